"""Checks of the audit log and telemetry settings.

- ``E034`` ``MCP_AUDIT`` is not None, "off", "writes" or "all"
- ``E035`` ``MCP_AUDIT_REDACT`` is not a list of regular expressions
- ``E036`` ``MCP_AUDIT_RETENTION_DAYS`` is not None or a positive number
- ``E037`` ``MCP_TELEMETRY`` is not True or False
"""

from __future__ import annotations

import math
import re

from django.core.checks import CheckMessage, Error
from django.utils.translation import gettext as _

from django_mcp.conf import DEFAULTS, get_setting

__all__ = ["check_observability"]


def check_observability() -> list[CheckMessage]:
    """Report malformed audit and telemetry settings."""
    messages: list[CheckMessage] = []
    mode = get_setting("MCP_AUDIT")
    if mode is not None and mode not in ("off", "writes", "all"):
        messages.append(
            Error(
                _("MCP_AUDIT must be None, 'off', 'writes' or 'all', got {mode!r}.").format(mode=mode),
                hint=_(
                    "'writes' records calls of tools not marked readOnlyHint, 'all' every "
                    "request; None or 'off' records nothing (the default)."
                ),
                id="django_mcp.E034",
            )
        )
    sources = get_setting("MCP_AUDIT_REDACT")
    if not isinstance(sources, list | tuple) or not all(isinstance(item, str) for item in sources):
        messages.append(
            Error(
                _("MCP_AUDIT_REDACT must be a list of regular expressions, got {sources!r}.").format(
                    sources=sources
                ),
                hint=_(
                    "Write it as a list of strings, e.g. MCP_AUDIT_REDACT = {defaults_mcp_audit_redact!r}."
                ).format(defaults_mcp_audit_redact=DEFAULTS["MCP_AUDIT_REDACT"]),
                id="django_mcp.E035",
            )
        )
    else:
        for source in sources:
            try:
                re.compile(source)
            except re.error as exc:
                messages.append(
                    Error(
                        _("MCP_AUDIT_REDACT entry {source!r} is not a regular expression: {exc}.").format(
                            source=source, exc=exc
                        ),
                        hint=_("Fix the expression (Python's re syntax); until then it redacts nothing."),
                        id="django_mcp.E035",
                    )
                )
    days = get_setting("MCP_AUDIT_RETENTION_DAYS")
    if days is not None and (
        isinstance(days, bool) or not isinstance(days, int | float) or not math.isfinite(days) or days <= 0
    ):
        messages.append(
            Error(
                _("MCP_AUDIT_RETENTION_DAYS must be None or a positive number of days, got {days!r}.").format(
                    days=days
                ),
                hint=_(
                    "manage.py mcp_prune_audit deletes audit entries older than this many "
                    "days; None keeps them forever. The default is "
                    "{defaults_mcp_audit_retention_days!r}."
                ).format(defaults_mcp_audit_retention_days=DEFAULTS["MCP_AUDIT_RETENTION_DAYS"]),
                id="django_mcp.E036",
            )
        )
    telemetry = get_setting("MCP_TELEMETRY")
    if not isinstance(telemetry, bool):
        messages.append(
            Error(
                _("MCP_TELEMETRY must be True or False, got {telemetry!r}.").format(telemetry=telemetry),
                hint=_(
                    "True (the default) emits OpenTelemetry spans and metrics when a "
                    "provider is configured; False never does."
                ),
                id="django_mcp.E037",
            )
        )
    return messages
