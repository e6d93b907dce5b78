"""The admin's audit trail: django_mcp/_admin/audit.py.

The changelist renders the entries with their filters and search; nobody,
not even a superuser, may add, change or delete one there.
"""

from __future__ import annotations

import html

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from django_mcp.models import McpAuditEntry
from django_mcp.observability.audit import REDACTED

pytestmark = pytest.mark.django_db

LIST = "/admin/django_mcp/mcpauditentry/"


def _superuser() -> Client:
    user = get_user_model().objects.create_superuser(username="root", password="pw-123456")
    client = Client()
    client.force_login(user)
    return client


def _entry(**fields: object) -> McpAuditEntry:
    values: dict[str, object] = {
        "created_at": timezone.now(),
        "server": "shop.mcp.ShopServer",
        "method": "tools/call",
        "component": "refund",
        "user_pk": "1",
        "username": "ada",
        "client": "user:1",
        "transport": "http",
        "arguments": {"order": 7, "password": REDACTED},
        "outcome": "ok",
        "duration": 0.25,
        **fields,
    }
    return McpAuditEntry.objects.create(**values)


def test_the_changelist_lists_entries_with_filters_and_search_and_no_add_link() -> None:
    _entry()
    _entry(component="lookup", username="", user_pk="", client="ip:10.0.0.9", outcome="tool_error")
    client = _superuser()

    page = html.unescape(client.get(LIST).content.decode())
    searched = html.unescape(client.get(LIST, {"q": "ada"}).content.decode())
    failed = html.unescape(client.get(LIST, {"outcome__exact": "tool_error"}).content.decode())

    assert "refund" in page and "lookup" in page and "ip:10.0.0.9" in page
    assert "By server" in page and "By method" in page and "By outcome" in page and "By when" in page
    assert "refund" in searched and "lookup" not in searched
    assert "lookup" in failed and "refund" not in failed
    assert f"{LIST}add/" not in page


def test_an_entry_is_shown_read_only_with_its_redacted_arguments() -> None:
    entry = _entry()
    client = _superuser()

    response = client.get(f"{LIST}{entry.pk}/change/")
    page = html.unescape(response.content.decode())

    assert response.status_code == 200
    assert f'"password": "{REDACTED}"' in page
    assert 'type="submit"' not in page.split('id="content-main"')[1]
    assert client.post(f"{LIST}{entry.pk}/change/", {"component": "changed"}).status_code == 403
    assert client.get(f"{LIST}{entry.pk}/delete/").status_code == 403
    assert client.get(f"{LIST}add/").status_code == 403
    entry.refresh_from_db()
    assert entry.component == "refund"


def test_a_signed_in_users_audited_call_appears_with_redacted_arguments(settings: object) -> None:
    from asgiref.sync import async_to_sync

    from django_mcp.testing import McpTestClient
    from tests.observability.test_audit import ARGUMENTS, BankServer

    settings.MCP_AUDIT = "writes"  # type: ignore[attr-defined]
    client = _superuser()
    user = get_user_model().objects.get(username="root")

    async_to_sync(McpTestClient(BankServer, user).call_tool)("transfer", ARGUMENTS).assert_ok()

    listed = html.unescape(client.get(LIST, {"q": "root"}).content.decode())
    entry = McpAuditEntry.objects.get()
    shown = html.unescape(client.get(f"{LIST}{entry.pk}/change/").content.decode())
    assert "transfer" in listed and "root" in listed
    assert f'"pin": "{REDACTED}"' in shown and f'"number": "{REDACTED}"' in shown
    assert "1234" not in shown and "4111111111111111" not in shown
