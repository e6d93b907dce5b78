"""The helpers the contrib tool factories share: names, inner requests, values."""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import RequestFactory

from django_mcp import McpRequest
from django_mcp.contrib._calls import class_name, inner_request, json_value, tool_name


def mcp_request(http_request: Any = None, user: Any = None) -> McpRequest:
    return McpRequest(
        method="tools/call",
        params={},
        meta={},
        protocol_version="2026-07-28",
        client_capabilities={},
        http_request=http_request,
        user=user,
    )


@pytest.mark.parametrize(
    ("prefix", "action", "name", "cls"),
    [
        ("api-book", "partial_update", "api-book-partial-update", "ApiBookPartialUpdateTool"),
        ("book", "list", "book-list", "BookListTool"),
        ("shop.items", "mark_worn", "shop.items-mark-worn", "ShopItemsMarkWornTool"),
    ],
)
def test_tool_and_class_names_follow_the_prefix_and_action(
    prefix: str, action: str, name: str, cls: str
) -> None:
    assert tool_name(prefix, action) == name
    assert class_name(name) == cls


def test_the_inner_request_keeps_where_the_call_came_from_and_the_caller(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["shop.example.com"]
    user = User(username="ann")
    outer = RequestFactory().post(
        "/mcp/shelf",
        b'{"secret": "body"}',
        content_type="application/json",
        secure=True,
        headers={"host": "shop.example.com", "Authorization": "Token abc", "Cookie": "sessionid=x"},
        REMOTE_ADDR="203.0.113.7",
    )

    inner = inner_request(mcp_request(outer, user), "GET", query="search=earthsea")

    assert inner.user is user
    assert inner.build_absolute_uri() == "https://shop.example.com/mcp/shelf?search=earthsea"
    assert (inner.META["REMOTE_ADDR"], inner.META["HTTP_AUTHORIZATION"]) == ("203.0.113.7", "Token abc")
    assert "HTTP_COOKIE" not in inner.META  # the session stays the endpoint's
    assert inner.GET["search"] == "earthsea" and inner.body == b""


def test_without_an_http_request_the_caller_is_anonymous_on_localhost() -> None:
    inner = inner_request(mcp_request(), "POST")

    assert isinstance(inner.user, AnonymousUser)
    assert (inner.get_host(), inner.scheme, inner.method) == ("localhost", "http", "POST")


def test_json_value_writes_dates_decimals_and_uuids_as_strings() -> None:
    ident = uuid.UUID(int=1)
    value = {
        "day": datetime.date(2024, 1, 2),
        "at": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        "price": decimal.Decimal("9.50"),
        "id": ident,
        "tags": (1, 2),
    }
    assert json_value(value) == {
        "day": "2024-01-02",
        "at": "2024-01-02T03:04:05+00:00",
        "price": "9.50",
        "id": str(ident),
        "tags": [1, 2],
    }
