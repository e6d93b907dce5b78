"""``manage.py mcp_prune_idempotency_keys``: delete idempotency keys past their TTL."""

from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError
from django.utils import timezone

from django_mcp.models import McpIdempotencyKey

pytestmark = pytest.mark.django_db


def _key(seconds_old: float) -> McpIdempotencyKey:
    return McpIdempotencyKey.objects.create(
        server="shop.ShopServer",
        caller="user:1",
        tool="place-order",
        key=f"key-{seconds_old}",
        arguments_hash="0" * 64,
        created_at=timezone.now() - datetime.timedelta(seconds=seconds_old),
    )


def _prune(*args: str) -> str:
    out = io.StringIO()
    call_command("mcp_prune_idempotency_keys", *args, stdout=out)
    return out.getvalue().strip()


def test_the_command_deletes_the_keys_older_than_the_ttl_setting(settings: Any) -> None:
    settings.MCP_IDEMPOTENCY_KEY_TTL = 60
    kept, _old, _older = _key(5), _key(61), _key(86400)

    assert _prune() == "Deleted 2 expired idempotency keys."
    assert list(McpIdempotencyKey.objects.values_list("pk", flat=True)) == [kept.pk]


def test_dry_run_counts_and_deletes_nothing() -> None:
    _key(5)
    _key(86401)

    assert _prune("--dry-run") == "Would delete 1 expired idempotency key."
    assert McpIdempotencyKey.objects.count() == 2


def test_a_database_error_is_a_command_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**kwargs: Any) -> int:
        raise DatabaseError("no such table")

    monkeypatch.setattr("django_mcp.management.commands.mcp_prune_idempotency_keys.prune", broken)

    with pytest.raises(CommandError, match="Could not prune MCP idempotency keys"):
        _prune()
