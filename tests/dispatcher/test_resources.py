"""Resource reads and lists: django_mcp/dispatcher/resources.py.

The requests go through a real ``Dispatcher`` (``tests.wire``): a fixed
resource, a template, a resource behind a permission and resources that
fail; every message is checked against the spec schemas by the
wire-schema fixture.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser

from django_mcp import CacheHint, McpResponse, Resource, Server
from django_mcp.protocol import jsonrpc
from tests.wire import call


class ShelfResource(Resource):
    name = "shelf"
    uri = "books://shelf"
    mime_type = "text/plain"
    cache = CacheHint(ttl_ms=60_000, scope="public")

    def handle(self) -> McpResponse:
        return McpResponse.text("Kindred, Dune")


class BookResource(Resource):
    name = "book"
    uri_template = "books://book/{id}"
    mime_type = "text/plain"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable's name
        return McpResponse.text(f"book {id}")


class LedgerResource(Resource):
    name = "ledger"
    uri = "books://ledger"
    permissions = ("auth.view_user",)
    cache = CacheHint(ttl_ms=60_000, scope="public")

    def handle(self) -> McpResponse:
        return McpResponse.text("accounts")


class BrokenResource(Resource):
    name = "broken"
    uri = "books://broken"

    def handle(self) -> McpResponse:
        raise RuntimeError("disk on fire at /srv/secret")


class LibraryServer(Server):
    resources = (ShelfResource, BookResource, LedgerResource, BrokenResource)


async def read(uri: Any, user: Any = None) -> dict[str, Any]:
    return await call(LibraryServer, "resources/read", {"uri": uri}, user=user or AnonymousUser())


async def test_a_fixed_resource_is_read_with_its_cache_hint() -> None:
    reply = await read("books://shelf")

    assert reply["result"]["contents"] == [
        {"uri": "books://shelf", "mimeType": "text/plain", "text": "Kindred, Dune"}
    ]
    assert (reply["result"]["ttlMs"], reply["result"]["cacheScope"]) == (60_000, "public")


async def test_a_template_resource_gets_its_variables() -> None:
    reply = await read("books://book/42")

    assert reply["result"]["contents"][0]["text"] == "book 42"


async def test_an_unknown_and_a_hidden_resource_answer_alike() -> None:
    unknown = await read("books://nowhere")
    hidden = await read("books://ledger")

    assert unknown["error"] == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "Resource not found",
        "data": {"uri": "books://nowhere"},
    }
    assert hidden["error"] == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "Resource not found",
        "data": {"uri": "books://ledger"},
    }


async def test_a_failing_resource_is_an_internal_error_saying_nothing_of_why() -> None:
    reply = await read("books://broken")

    assert reply["error"] == {"code": jsonrpc.INTERNAL_ERROR, "message": "Internal error"}


async def test_a_uri_that_is_no_string_is_invalid_params() -> None:
    for uri in (None, "", 3):
        reply = await read(uri)
        assert reply["error"] == {
            "code": jsonrpc.INVALID_PARAMS,
            "message": "resources/read needs a string uri",
        }


async def test_lists_show_what_the_caller_may_read() -> None:
    listed = await call(LibraryServer, "resources/list", user=AnonymousUser())
    templates = await call(LibraryServer, "resources/templates/list", user=AnonymousUser())

    assert [entry["uri"] for entry in listed["result"]["resources"]] == [
        "books://shelf",
        "books://broken",
    ]
    assert [entry["uriTemplate"] for entry in templates["result"]["resourceTemplates"]] == [
        "books://book/{id}"
    ]


class Auditor:
    """A user holding every permission, without the database."""

    is_active = True
    is_authenticated = True

    def has_perms(self, perms: Any) -> bool:
        return True


async def test_a_resource_behind_a_permission_is_read_with_a_private_cache_scope() -> None:
    reply = await read("books://ledger", user=Auditor())

    assert reply["result"]["contents"][0]["text"] == "accounts"
    # Declared public, but what a permission guards is never shared between callers.
    assert (reply["result"]["ttlMs"], reply["result"]["cacheScope"]) == (60_000, "private")
