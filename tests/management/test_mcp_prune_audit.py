"""``manage.py mcp_prune_audit``: delete audit entries past the retention."""

from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from django_mcp.models import McpAuditEntry

pytestmark = pytest.mark.django_db


def _entry(days_old: float) -> McpAuditEntry:
    return McpAuditEntry.objects.create(
        created_at=timezone.now() - datetime.timedelta(days=days_old),
        server="s",
        method="tools/call",
        component="t",
        client="anonymous",
        transport="http",
        outcome="ok",
        duration=0.01,
    )


def _prune(*args: str) -> str:
    out = io.StringIO()
    call_command("mcp_prune_audit", *args, stdout=out)
    return out.getvalue().strip()


def test_the_command_deletes_entries_older_than_the_retention_setting(settings: Any) -> None:
    settings.MCP_AUDIT_RETENTION_DAYS = 30
    kept, _old, _older = _entry(2), _entry(31), _entry(365)

    assert _prune() == "Deleted 2 audit entries older than 30 days."
    assert list(McpAuditEntry.objects.values_list("pk", flat=True)) == [kept.pk]


def test_days_overrides_the_setting_and_dry_run_deletes_nothing() -> None:
    _entry(2)
    _entry(10)

    assert _prune("--days", "5", "--dry-run") == "Would delete 1 audit entry older than 5 days."
    assert McpAuditEntry.objects.count() == 2
    assert _prune("--days", "0.5") == "Deleted 2 audit entries older than 0.5 days."


def test_no_retention_keeps_everything(settings: Any) -> None:
    settings.MCP_AUDIT_RETENTION_DAYS = None
    _entry(1000)

    assert _prune() == "MCP_AUDIT_RETENTION_DAYS is None: audit entries are kept forever."
    assert McpAuditEntry.objects.count() == 1


def test_a_negative_retention_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="zero or more days"):
        _prune("--days", "-1")
