"""The admin's audit trail: every audited MCP call, read-only.

``McpAuditEntryAdmin`` lists ``McpAuditEntry`` rows (``MCP_AUDIT``) newest
first, filtered by server, method, outcome and date, searched by
component, user name, user id and client. Nobody adds, changes or deletes
an entry here, superusers included: entries are written by the request
path and removed only by ``manage.py mcp_prune_audit``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from django_mcp._admin.framing import DenyFraming
from django_mcp._admin.records import RecordsOnly
from django_mcp.models import McpAuditEntry

__all__ = ["McpAuditEntryAdmin"]

if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[McpAuditEntry]
else:
    _ModelAdmin = admin.ModelAdmin


class McpAuditEntryAdmin(RecordsOnly, DenyFraming, _ModelAdmin):
    """List and inspect audited MCP calls; nothing is edited here."""

    # The server by its class name (the dotted path in its title), the
    # JSON-RPC code beside the outcome, on one line: the list fits beside the
    # admin's navigation and the filters at 1280 px.
    list_display = ("when", "server_name", "method", "component", "who", "outcome_code", "seconds")
    list_filter = ("server", "method", "outcome", "created_at")
    search_fields = ("component", "username", "user_pk", "client")
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False  # no COUNT(*) over a large table on every page
    exclude = ("arguments",)  # shown as indented JSON (arguments_json)

    def get_readonly_fields(self, request: HttpRequest, obj: McpAuditEntry | None = None) -> list[str]:
        """Show every field read-only, the arguments as indented JSON."""
        fields = [field.name for field in McpAuditEntry._meta.fields if field.name != "arguments"]
        return [*fields, "arguments_json"]

    @admin.display(description=_("when"), ordering="created_at")
    def when(self, entry: McpAuditEntry) -> str:
        """Return the time of the call, to the second, in the current time zone."""
        return f"{timezone.localtime(entry.created_at):%Y-%m-%d %H:%M:%S}"

    @admin.display(description=_("server"), ordering="server")
    def server_name(self, entry: McpAuditEntry) -> Any:
        """Return the server's class name, its dotted path as the title."""
        return format_html('<span title="{}">{}</span>', entry.server, entry.server.rsplit(".", 1)[-1])

    @admin.display(description=_("outcome"), ordering="outcome")
    def outcome_code(self, entry: McpAuditEntry) -> Any:
        """Return the outcome on one line, with the JSON-RPC error code when there is one."""
        label = entry.get_outcome_display()
        if entry.error_code is not None:
            label = f"{label} {entry.error_code}"
        return format_html('<span style="white-space: nowrap">{}</span>', label)

    @admin.display(description=_("who"), ordering="username")
    def who(self, entry: McpAuditEntry) -> str:
        """Return the signed-in user's name, else the client identity."""
        return entry.username or entry.client

    @admin.display(description=_("seconds"), ordering="duration")
    def seconds(self, entry: McpAuditEntry) -> str:
        """Return the duration in seconds."""
        return f"{entry.duration:.3f}"

    @admin.display(description=_("arguments (redacted)"))
    def arguments_json(self, entry: McpAuditEntry) -> Any:
        """Return the redacted arguments as indented JSON."""
        if entry.arguments is None:
            return "—"
        return format_html("<pre>{}</pre>", json.dumps(entry.arguments, indent=2, sort_keys=True))
