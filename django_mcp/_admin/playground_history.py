"""The playground's admin history: one CHANGE entry per request sent.

An entry names the component and the outcome, never the arguments or the
answers (they may hold secrets).
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType

from django_mcp._admin.catalog import CatalogEntry
from django_mcp._admin.outcome import Outcome
from django_mcp.models import McpCatalog

__all__ = ["record", "record_task"]


def record_task(user: Any, entry: CatalogEntry, method: str) -> None:
    """Add a CHANGE entry to the admin history: a task request (``tasks/...``) for ``entry``."""
    what = f"{entry.kind_label.lower()} “{entry.name}”"
    _log_change(user, entry, f"Playground sent {method} for a task of {what}.")


def record(user: Any, entry: CatalogEntry, method: str, outcome: Outcome, *, continued: bool = False) -> None:
    """Add a CHANGE entry to the admin history: the component and the outcome only."""
    what = "answered input for" if continued else "sent"
    _log_change(
        user,
        entry,
        f"Playground {what} {method} for {entry.kind_label.lower()} “{entry.name}” "
        f"({entry.server_key}): {outcome.summary}.",
    )


def _log_change(user: Any, entry: CatalogEntry, message: str) -> None:
    """Add a CHANGE entry about ``entry`` to the admin history, as ``user``."""
    LogEntry.objects.create(
        user_id=user.pk,
        content_type=ContentType.objects.get_for_model(McpCatalog, for_concrete_model=False),
        object_id=entry.component_id,
        object_repr=f"{entry.kind_label} {entry.name}"[:200],
        action_flag=CHANGE,
        change_message=message,
    )
