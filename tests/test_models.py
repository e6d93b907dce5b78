"""Tests for django_mcp.models: the admin section's unmanaged model, and the migrations."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from django_mcp.models import McpCatalog, McpIdempotencyKey


def test_the_catalog_model_is_unmanaged_with_only_the_playground_permission() -> None:
    meta = McpCatalog._meta

    assert meta.managed is False
    assert meta.default_permissions == ()
    assert meta.permissions == [
        ("use_playground", "Can call tools, read resources and get prompts in the admin")
    ]
    assert str(McpCatalog()) == "MCP catalog"


@pytest.mark.django_db
def test_migrate_creates_no_table_but_the_permission() -> None:
    assert McpCatalog._meta.db_table not in connection.introspection.table_names()
    permission = Permission.objects.get(content_type__app_label="django_mcp", codename="use_playground")
    assert permission.content_type.model == "mcpcatalog"


@pytest.mark.django_db
def test_the_migrations_match_the_models() -> None:
    out = io.StringIO()

    # Exits with status 1 (SystemExit) when a migration is missing.
    call_command("makemigrations", "django_mcp", "--check", "--dry-run", stdout=out)

    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_an_idempotency_key_is_unique_per_server_caller_tool_and_key() -> None:
    fields = {"server": "s", "caller": "user:1", "tool": "t", "key": "k", "arguments_hash": "0" * 64}
    McpIdempotencyKey.objects.create(created_at=timezone.now(), **fields)
    McpIdempotencyKey.objects.create(created_at=timezone.now(), **{**fields, "caller": "user:2"})

    with pytest.raises(IntegrityError), transaction.atomic():
        McpIdempotencyKey.objects.create(created_at=timezone.now(), **{**fields, "arguments_hash": "1" * 64})

    assert McpIdempotencyKey.objects.count() == 2
