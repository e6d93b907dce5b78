"""The shelf's admin and API tools over the HTTP endpoint, as four session users.

The endpoint authenticates the caller from Django's session
(``Client.force_login``); the tools must see that same user.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.test import Client

from testproject.shelf.models import Volume
from tests.contrib.shelf import Shelf
from tests.wire import modern_headers, modern_request, tool_request

HAS_DRF = importlib.util.find_spec("rest_framework") is not None
transactional = pytest.mark.django_db(transaction=True)


def post(client: Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(
        "/mcp/shelf", json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def client_for(user: Any) -> Client:
    client = Client()
    if user.is_authenticated:
        client.force_login(user)
    return client


@pytest.fixture
def http_shelf(transactional_db: Any) -> Shelf:
    return Shelf()


@pytest.mark.parametrize(
    ("who", "admin", "api"),
    [
        ("boss", 6, 6),
        ("viewer", 2, 6),
        ("outsider", 0, 6),
        ("anonymous", 0, 0),
    ],
)
def test_tools_list_over_http_follows_the_session_user(
    http_shelf: Shelf, who: str, admin: int, api: int
) -> None:
    reply = post(client_for(getattr(http_shelf, who)), modern_request("tools/list"))

    names = [tool["name"] for tool in reply["result"]["tools"]]
    assert len([name for name in names if name.startswith("admin-")]) == admin
    assert len([name for name in names if name.startswith("api-")]) == (api if HAS_DRF else 0)


def test_an_admin_change_over_http_is_logged_under_the_session_user(http_shelf: Shelf) -> None:
    volume = http_shelf.kindred
    reply = post(
        client_for(http_shelf.boss),
        tool_request("admin-volume-change", {"id": volume.pk, "title": "Kindred!"}),
    )

    assert reply["result"]["isError"] is False
    assert reply["result"]["structuredContent"]["title"] == "Kindred!"
    entry = LogEntry.objects.get()
    assert (entry.user, entry.action_flag, entry.object_id) == (http_shelf.boss, CHANGE, str(volume.pk))


def test_another_users_row_over_http_is_not_found(http_shelf: Shelf) -> None:
    reply = post(client_for(http_shelf.boss), tool_request("admin-volume-get", {"id": http_shelf.theirs.pk}))

    assert reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"] == f'Volume with ID "{http_shelf.theirs.pk}" does not exist.'


@pytest.mark.skipif(not HAS_DRF, reason="Django REST framework (the drf extra) is not installed")
def test_an_api_write_over_http_runs_as_the_session_user_despite_session_authentications_csrf(
    http_shelf: Shelf,
) -> None:
    # The endpoint answers a POST without a CSRF token; SessionAuthentication
    # would refuse it, but the ViewSet is handed the endpoint's caller.
    client = Client(enforce_csrf_checks=True)
    client.force_login(http_shelf.outsider)
    reply = post(
        client, tool_request("api-volume-create", {"title": "Fledgling", "author": http_shelf.butler.pk})
    )

    assert reply["result"]["isError"] is False, reply
    assert Volume.objects.get(title="Fledgling").owner == http_shelf.outsider
