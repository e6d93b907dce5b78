"""Admins of rows only the request path writes: viewed here, never added, changed or deleted.

The audit trail (``McpAuditEntry``) and idempotency keys
(``McpIdempotencyKey``) are records of what clients did; a staff member
reads them, and only their pruning commands delete them.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

__all__ = ["RecordsOnly"]


class RecordsOnly:
    """Mixin for a ModelAdmin whose rows the request path writes: view permission only."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Return False: rows are written by the request path."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Return False: a record never changes."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Return False: rows go only through their pruning command."""
        return False
