"""The admin's idempotency keys: the keys ``tools/call`` reserved, read-only.

``McpIdempotencyKeyAdmin`` lists ``McpIdempotencyKey`` rows newest first,
with their server, tool, caller, age and whether a result is stored,
filtered by server and date, searched by tool, caller and key. Nobody adds,
changes or deletes a key here, superusers included: a changed or deleted
key would let a retried write run twice. Keys are written by the request
path and removed once expired by ``manage.py mcp_prune_idempotency_keys``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from django_mcp._admin.framing import DenyFraming
from django_mcp._admin.records import RecordsOnly
from django_mcp.models import McpIdempotencyKey

__all__ = ["McpIdempotencyKeyAdmin"]

if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[McpIdempotencyKey]
else:
    _ModelAdmin = admin.ModelAdmin


class McpIdempotencyKeyAdmin(RecordsOnly, DenyFraming, _ModelAdmin):
    """List and inspect idempotency keys; nothing is edited here."""

    list_display = ("created_at", "server", "tool", "caller", "key", "stored")
    list_filter = ("server", "created_at")
    search_fields = ("tool", "caller", "key")
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False  # no COUNT(*) over a large table on every page

    def get_readonly_fields(self, request: HttpRequest, obj: McpIdempotencyKey | None = None) -> list[str]:
        """Show every field read-only."""
        return [field.name for field in McpIdempotencyKey._meta.fields]

    @admin.display(description=_("result stored"), boolean=True)
    def stored(self, key: McpIdempotencyKey) -> bool:
        """Return True once the first call's result is stored (False: it still runs)."""
        return key.result is not None
