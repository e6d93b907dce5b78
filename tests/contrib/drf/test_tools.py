"""ViewSetTools on the wire: the shelf's VolumeViewSet as four callers see it.

``VolumeViewSet`` is a ModelViewSet with ``IsAuthenticated``, Session and
Token authentication classes, a search filter, an owner-scoped
``get_queryset()`` and a detail ``@action`` (``restock``) with its own
serializer.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")

from django.db import connection  # noqa: E402
from django.test import RequestFactory  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from rest_framework import viewsets  # noqa: E402
from rest_framework.authentication import TokenAuthentication  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402
from rest_framework.response import Response  # noqa: E402

from django_mcp import McpRequest  # noqa: E402
from django_mcp.contrib.drf import ViewSetTools  # noqa: E402
from django_mcp.protocol.jsonrpc import INVALID_PARAMS  # noqa: E402
from testproject.shelf.mcp import ShelfServer  # noqa: E402
from testproject.shelf.models import Volume  # noqa: E402
from tests.contrib.shelf import Shelf, call, listed  # noqa: E402

API_TOOLS = [
    "api-volume-list",
    "api-volume-retrieve",
    "api-volume-create",
    "api-volume-partial-update",
    "api-volume-destroy",
    "api-volume-restock",
]


def api_tools(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("api-")]


def serialized(volume: Volume) -> dict[str, Any]:
    """Return a volume as ``VolumeSerializer`` renders it."""
    return {
        "id": volume.pk,
        "title": volume.title,
        "author": volume.author_id,
        "tags": sorted(tag.pk for tag in volume.tags.all()),
        "stock": volume.stock,
        "condition": volume.condition,
        "owner": volume.owner.username,
    }


def rows(result: Any) -> list[dict[str, Any]]:
    found = result.assert_ok().structured_content["results"]
    return [{**row, "tags": sorted(row["tags"])} for row in found]


# ---------------------------------------------------------------- visibility


@pytest.mark.parametrize("who", ["boss", "viewer", "outsider"])
def test_signed_in_callers_see_the_api_tools(shelf: Shelf, who: str) -> None:
    # IsAuthenticated is the ViewSet's only permission: staff or not.
    assert api_tools(listed(shelf.client(getattr(shelf, who)))) == API_TOOLS


def test_an_anonymous_caller_sees_no_api_tool_and_each_answers_like_an_unknown_one(shelf: Shelf) -> None:
    client = shelf.client(shelf.anonymous)

    hidden = call(client, "api-volume-list")

    assert api_tools(listed(client)) == []
    assert hidden.error == {"code": INVALID_PARAMS, "message": "Unknown tool: api-volume-list"}


def test_annotations_follow_the_http_method() -> None:
    tools = ShelfServer.compiled().tools
    hints = {
        name: (tool.definition.annotations.read_only_hint, tool.definition.annotations.destructive_hint)
        for name, tool in tools.items()
        if name.startswith("api-")
    }
    assert hints == {
        "api-volume-list": (True, False),
        "api-volume-retrieve": (True, False),
        "api-volume-create": (False, False),
        "api-volume-partial-update": (False, False),
        "api-volume-destroy": (False, True),
        "api-volume-restock": (False, False),
    }


# --------------------------------------------------------------- row scope


def test_list_shows_the_callers_rows_only_page_by_page(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)
    first = call(client, "api-volume-list", {"page_size": 4})
    second = call(
        client, "api-volume-list", {"page_size": 4, "cursor": first.structured_content["nextCursor"]}
    )

    mine = sorted([*shelf.mine, shelf.kindred], key=lambda volume: volume.title)
    assert rows(first) + rows(second) == [serialized(volume) for volume in mine]
    assert second.structured_content["nextCursor"] is None
    assert rows(call(shelf.client(shelf.viewer), "api-volume-list")) == []


def test_search_is_the_search_filters_parameter(shelf: Shelf) -> None:
    found = rows(call(shelf.client(shelf.boss), "api-volume-list", {"search": "kind"}))
    assert found == [serialized(shelf.kindred)]


@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("api-volume-retrieve", {}),
        ("api-volume-partial-update", {"stock": 0}),
        ("api-volume-destroy", {}),
        ("api-volume-restock", {"amount": 5}),
    ],
)
def test_a_row_outside_get_queryset_answers_exactly_like_a_missing_one(
    shelf: Shelf, tool: str, extra: dict[str, Any]
) -> None:
    client = shelf.client(shelf.boss)
    missing_id = Volume.objects.order_by("-pk").first().pk + 100  # type: ignore[union-attr]

    outside = call(client, tool, {"id": shelf.theirs.pk, **extra})
    missing = call(client, tool, {"id": missing_id, **extra})

    assert (outside.is_error, missing.is_error) == (True, True)
    assert outside.text == missing.text == "No Volume matches the given query."
    theirs = Volume.objects.get(pk=shelf.theirs.pk)
    assert (theirs.stock, theirs.title) == (1, "Dawn")


def test_list_queries_do_not_grow_with_the_page_size(shelf: Shelf) -> None:
    for n in range(20):
        shelf.volume(f"Extra {n:02}", shelf.butler, shelf.boss, tags=(shelf.classic,))
    client = shelf.client(shelf.boss)
    call(client, "api-volume-list", {"page_size": 1})

    counts = []
    for size in (1, 5, 25):
        with CaptureQueriesContext(connection) as queries:
            assert len(rows(call(client, "api-volume-list", {"page_size": size}))) == size
        counts.append(len(queries))

    assert counts[0] == counts[1] == counts[2]


# ------------------------------------------------------------------ writes


def test_create_runs_perform_create_as_the_caller(shelf: Shelf) -> None:
    result = call(
        shelf.client(shelf.outsider),
        "api-volume-create",
        {"title": "Lilith's Brood", "author": shelf.butler.pk, "tags": [shelf.classic.pk]},
    )

    volume = Volume.objects.get(title="Lilith's Brood")
    result.assert_ok().assert_structured(serialized(volume))
    assert volume.owner == shelf.outsider


def test_serializer_errors_are_tool_errors_naming_each_field(shelf: Shelf) -> None:
    result = call(
        shelf.client(shelf.boss), "api-volume-create", {"title": "Nowhere", "author": 999, "tags": [998]}
    )

    result.assert_is_error()
    assert result.text.splitlines() == [
        "Invalid input:",
        '- author: Invalid pk "999" - object does not exist.',
        '- tags: Invalid pk "998" - object does not exist.',
    ]
    result.assert_structured(
        {
            "errors": {
                "author": ['Invalid pk "999" - object does not exist.'],
                "tags": ['Invalid pk "998" - object does not exist.'],
            }
        }
    )
    assert not Volume.objects.filter(title="Nowhere").exists()


def test_partial_update_keeps_the_fields_left_out(shelf: Shelf) -> None:
    result = call(shelf.client(shelf.boss), "api-volume-partial-update", {"id": shelf.kindred.pk, "stock": 4})

    shelf.kindred.refresh_from_db()
    result.assert_ok().assert_structured(serialized(shelf.kindred))
    assert (shelf.kindred.stock, shelf.kindred.title, shelf.kindred.notes) == (4, "Kindred", "Lent to Sam")


def test_destroy_deletes_the_callers_row(shelf: Shelf) -> None:
    result = call(shelf.client(shelf.boss), "api-volume-destroy", {"id": shelf.kindred.pk})

    result.assert_ok()
    assert result.text == "Deleted."
    assert not Volume.objects.filter(pk=shelf.kindred.pk).exists()


def test_a_detail_action_takes_the_id_and_its_serializers_fields(shelf: Shelf) -> None:
    client = shelf.client(shelf.boss)

    done = call(client, "api-volume-restock", {"id": shelf.kindred.pk, "amount": 3})
    too_many = call(client, "api-volume-restock", {"id": shelf.kindred.pk, "amount": 500})

    shelf.kindred.refresh_from_db()
    assert shelf.kindred.stock == 4
    done.assert_ok().assert_structured(serialized(shelf.kindred))
    too_many.assert_is_error()
    assert too_many.text == "Invalid tool arguments:\n- amount: expected int <= 100"
    too_many.assert_structured({"errors": {"amount": ["expected int <= 100"]}})


# ----------------------------------------------------------------- identity


class WhoAmIViewSet(viewsets.ViewSet):
    """Say who the ViewSet sees."""

    authentication_classes = (TokenAuthentication,)
    permission_classes = ()

    def list(self, request: Any) -> Response:
        return Response({"user": str(request.user), "auth": type(request.auth).__name__})


def who_am_i(user: Any, **headers: str) -> dict[str, Any]:
    (tool,) = ViewSetTools(WhoAmIViewSet, prefix="who", actions=("list",))
    http_request = RequestFactory().post("/mcp/shelf", headers=headers)
    request = McpRequest(
        method="tools/call",
        params={},
        meta={},
        protocol_version="2026-07-28",
        client_capabilities={},
        http_request=http_request,
        user=user,
    )
    payload = tool.input.convert({})
    result = tool().handle(payload, request)
    return dict(result.structured_content)


def test_the_viewset_sees_the_caller_whatever_its_authentication_classes_find(shelf: Shelf) -> None:
    token = Token.objects.create(user=shelf.other)

    # The other user's token does not make the caller someone else.
    assert who_am_i(shelf.boss, Authorization=f"Token {token.key}") == {"user": "boss", "auth": "NoneType"}
    # An anonymous caller stays anonymous, token or not.
    assert who_am_i(shelf.anonymous, Authorization=f"Token {token.key}") == {
        "user": "AnonymousUser",
        "auth": "NoneType",
    }
    # The caller's own token becomes request.auth.
    assert who_am_i(shelf.other, Authorization=f"Token {token.key}") == {"user": "other", "auth": "Token"}
    assert who_am_i(shelf.other) == {"user": "other", "auth": "NoneType"}


def test_a_viewset_without_a_serializer_still_serves_its_list() -> None:
    (tool,) = ViewSetTools(WhoAmIViewSet, prefix="who", actions=("list",))
    assert tool.output is None
