"""The admin's idempotency keys: django_mcp/_admin/idempotency.py.

The changelist shows each key's server, tool, caller, age and whether a
result is stored; nobody, not even a superuser, may add, change or delete
one there.
"""

from __future__ import annotations

import html

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from django_mcp.models import McpIdempotencyKey

pytestmark = pytest.mark.django_db

LIST = "/admin/django_mcp/mcpidempotencykey/"


def _superuser() -> Client:
    user = get_user_model().objects.create_superuser(username="root", password="pw-123456")
    client = Client()
    client.force_login(user)
    return client


def _key(key: str, *, result: str | None = None) -> McpIdempotencyKey:
    return McpIdempotencyKey.objects.create(
        server="shop.mcp.ShopServer",
        caller="user:1",
        tool="place-order",
        key=key,
        arguments_hash="0" * 64,
        created_at=timezone.now(),
        result=result,
    )


def test_the_changelist_lists_keys_with_whether_a_result_is_stored_and_no_add_link() -> None:
    _key("done-1", result='{"content":[],"isError":false}')
    _key("running-1")
    client = _superuser()

    page = html.unescape(client.get(LIST).content.decode())
    searched = html.unescape(client.get(LIST, {"q": "running"}).content.decode())

    assert "done-1" in page and "running-1" in page and "place-order" in page and "user:1" in page
    assert "Result stored" in page and 'alt="True"' in page and 'alt="False"' in page
    assert "running-1" in searched and "done-1" not in searched
    assert f"{LIST}add/" not in page


def test_a_key_is_shown_read_only_and_cannot_be_changed_or_deleted() -> None:
    row = _key("done-1")
    client = _superuser()

    response = client.get(f"{LIST}{row.pk}/change/")

    assert response.status_code == 200
    assert 'type="submit"' not in html.unescape(response.content.decode()).split('id="content-main"')[1]
    assert client.post(f"{LIST}{row.pk}/change/", {"key": "changed"}).status_code == 403
    assert client.get(f"{LIST}{row.pk}/delete/").status_code == 403
    assert client.get(f"{LIST}add/").status_code == 403
    row.refresh_from_db()
    assert row.key == "done-1"
