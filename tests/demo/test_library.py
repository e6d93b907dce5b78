"""Tests for testproject.demo: the library server, served through the dispatcher.

Every component is exercised on the wire: a JSON-RPC message is encoded,
parsed, dispatched by a real ``Dispatcher`` and its encoded reply decoded.
Tests whose handlers use the async ORM use ``transaction=True``: the ORM
then runs on another thread's connection, which must see committed data.
"""

from __future__ import annotations

import asyncio
import datetime
import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from django.contrib.auth.models import AnonymousUser, Permission, User
from django.core.management import call_command
from django.urls import reverse

from django_mcp.events import get_backend
from django_mcp.protocol.jsonrpc import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from django_mcp.registry import registry
from django_mcp.testing import McpTestClient
from testproject.demo.mcp import LibraryServer
from testproject.demo.models import Author, Book
from tests.wire import call, modern_headers, modern_meta, modern_request

transactional = pytest.mark.django_db(transaction=True)
TASKS = "io.modelcontextprotocol/tasks"

RESULT_META = {
    "io.modelcontextprotocol/serverInfo": {
        "name": "library",
        "version": "1.0.0",
        "title": "Demo library",
        "description": "The books and authors of the django_mcp demo project.",
    }
}

WIZARD = "9780547773742"
DISPOSSESSED = "9780061054884"
KINDRED = "9780807083697"
MISSING = "9780000000000"
RESTOCK_SKILL = Path(__file__).resolve().parents[2] / "testproject/demo/skills/restock-check/SKILL.md"


async def rpc(
    method: str, params: dict[str, Any] | None = None, *, user: Any = None, **kwargs: Any
) -> dict[str, Any]:
    """Call the library server as ``user`` (anonymous by default); return the decoded reply."""
    return await call(LibraryServer, method, params, user=AnonymousUser() if user is None else user, **kwargs)


def ok(result: dict[str, Any]) -> dict[str, Any]:
    """Return the full reply carrying ``result`` (plus the server info)."""
    return {"jsonrpc": "2.0", "id": 1, "result": {**result, "_meta": RESULT_META}}


def tool_result(structured: Any, *extra: dict[str, Any]) -> dict[str, Any]:
    """Return the full reply of a successful tool call with structured content."""
    text = msgspec.json.encode(structured).decode()
    return ok(
        {
            "resultType": "complete",
            "content": [{"type": "text", "text": text}, *extra],
            "structuredContent": structured,
            "isError": False,
        }
    )


def tool_error(message: str) -> dict[str, Any]:
    """Return the full reply of a tool call that failed with ``message``."""
    return ok({"resultType": "complete", "content": [{"type": "text", "text": message}], "isError": True})


def invalid_arguments(detail: str) -> dict[str, Any]:
    """Return the full reply refusing arguments with one ``path: problem`` detail."""
    path, _, problem = detail.partition(": ")
    return ok(
        {
            "resultType": "complete",
            "content": [{"type": "text", "text": f"Invalid tool arguments:\n- {detail}"}],
            "structuredContent": {"errors": {path: [problem]}},
            "isError": True,
        }
    )


def summary(isbn: str) -> dict[str, Any]:
    """Return the wire form of a fixture book's ``BookSummary``."""
    return {
        WIZARD: {
            "isbn": WIZARD,
            "title": "A Wizard of Earthsea",
            "author": "Ursula K. Le Guin",
            "published": "1968-11-01",
            "in_stock": True,
            "price": "9.99",
        },
        DISPOSSESSED: {
            "isbn": DISPOSSESSED,
            "title": "The Dispossessed",
            "author": "Ursula K. Le Guin",
            "published": "1974-05-01",
            "in_stock": False,
            "price": "11.25",
        },
        KINDRED: {
            "isbn": KINDRED,
            "title": "Kindred",
            "author": "Octavia E. Butler",
            "published": "1979-06-01",
            "in_stock": True,
            "price": "10.00",
        },
    }[isbn]


@pytest.fixture
def library() -> dict[str, Author]:
    """Create two authors and three books; return the authors by key."""
    le_guin = Author.objects.create(name="Ursula K. Le Guin", born=datetime.date(1929, 10, 21))
    butler = Author.objects.create(name="Octavia E. Butler")
    Book.objects.create(
        title="A Wizard of Earthsea",
        author=le_guin,
        published=datetime.date(1968, 11, 1),
        isbn=WIZARD,
        summary="A young mage learns the price of pride.",
        in_stock=True,
        price=Decimal("9.99"),
    )
    Book.objects.create(
        title="The Dispossessed",
        author=le_guin,
        published=datetime.date(1974, 5, 1),
        isbn=DISPOSSESSED,
        summary="A physicist between two worlds.",
        in_stock=False,
        price=Decimal("11.25"),
    )
    Book.objects.create(
        title="Kindred",
        author=butler,
        published=datetime.date(1979, 6, 1),
        isbn=KINDRED,
        summary="A writer pulled back in time.",
        in_stock=True,
        price=Decimal("10.00"),
    )
    return {"le_guin": le_guin, "butler": butler}


@pytest.fixture
def reader() -> User:
    """Return an active user without any permission."""
    return User.objects.create_user("reader")


@pytest.fixture
def librarian() -> User:
    """Return an active user holding ``demo.change_stock``."""
    user = User.objects.create_user("librarian")
    user.user_permissions.add(Permission.objects.get(codename="change_stock"))
    return User.objects.get(pk=user.pk)  # a fresh instance: no stale perm cache


# ------------------------------------------------------------ registration


def test_library_server_is_published_over_http_and_stdio() -> None:
    assert registry.web_servers()["library"] is LibraryServer
    assert registry.local_servers()["library"] is LibraryServer
    assert reverse("django_mcp:library") == "/mcp/library"


@transactional
async def test_http_endpoint_serves_the_library_with_the_session_user(
    async_client: Any, librarian: User
) -> None:
    body = modern_request("tools/list")
    headers = modern_headers(body)

    anonymous = await async_client.post(
        "/mcp/library", body, content_type="application/json", headers=headers
    )
    await async_client.aforce_login(librarian)
    logged_in = await async_client.post(
        "/mcp/library", body, content_type="application/json", headers=headers
    )

    assert (anonymous.status_code, logged_in.status_code) == (200, 200)
    assert [tool["name"] for tool in anonymous.json()["result"]["tools"]] == [
        "search-books",
        "book-details",
        "restock-report",
        "reserve-book",
        "audit-stock",
        "stock-board",
        "stock-board-page",
    ]
    assert [tool["name"] for tool in logged_in.json()["result"]["tools"]] == [
        "search-books",
        "book-details",
        "set-stock",
        "restock-report",
        "reserve-book",
        "audit-stock",
        "stock-board",
        "stock-board-page",
    ]


# ------------------------------------------------------------------- tools


@transactional
async def test_search_books_returns_matching_books(library: dict[str, Author]) -> None:
    reply = await rpc("tools/call", {"name": "search-books", "arguments": {"query": "le guin"}})

    expected = {"books": [summary(WIZARD), summary(DISPOSSESSED)], "count": 2}
    assert reply == tool_result(expected)


@transactional
async def test_the_stock_board_links_its_app_and_answers_text_beside_structured_content(
    library: dict[str, Author],
) -> None:
    listing = await rpc("tools/list")
    reply = await rpc("tools/call", {"name": "stock-board", "arguments": {"in_stock": False}})

    tools = {tool["name"]: tool for tool in listing["result"]["tools"]}
    assert tools["stock-board"]["_meta"] == {
        "ui": {"resourceUri": "ui://library/stock-board", "visibility": ["model", "app"]}
    }
    assert tools["stock-board-page"]["_meta"] == {
        "ui": {"resourceUri": "ui://library/stock-board", "visibility": ["app"]}
    }
    result = reply["result"]
    assert result["content"][0] == {
        "type": "text",
        "text": "1 book, 1 out of stock: The Dispossessed (out of stock)",
    }
    assert result["structuredContent"] == {"books": [summary(DISPOSSESSED)], "count": 1, "out_of_stock": 1}


async def test_the_stock_board_page_inlines_its_bridge_and_styles_and_loads_nothing_external() -> None:
    reply = await rpc("resources/read", {"uri": "ui://library/stock-board"})

    [content] = reply["result"]["contents"]
    page = content["text"]
    assert content["mimeType"] == "text/html;profile=mcp-app"
    assert content["_meta"] == {"ui": {"prefersBorder": True}}
    assert page.startswith("<!DOCTYPE html>")
    assert '<script data-mcp-app-name="stock-board" data-mcp-app-version="1.0.0"' in page
    assert "<style>\n/* The stock board App's styles" in page
    assert "http://" not in page
    assert "https://" not in page


@transactional
async def test_search_books_matches_an_exact_isbn_and_applies_the_limit(library: dict[str, Author]) -> None:
    by_isbn = await rpc("tools/call", {"name": "search-books", "arguments": {"query": KINDRED}})
    limited = await rpc("tools/call", {"name": "search-books", "arguments": {"query": "e", "limit": 1}})

    assert by_isbn == tool_result({"books": [summary(KINDRED)], "count": 1})
    assert limited == tool_result({"books": [summary(WIZARD)], "count": 1})


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({}, "query: required field is missing"),
        ({"query": "earthsea", "limit": 0}, "limit: expected int >= 1"),
        ({"query": "earthsea", "limit": 51}, "limit: expected int <= 50"),
        ({"query": "earthsea", "limit": "5"}, "limit: expected int, got str"),
        ({"query": "earthsea", "sort": "title"}, "sort: unknown field"),
        ({"query": "   "}, "query: must not be blank"),  # the sync @rule
    ],
)
async def test_search_books_reports_invalid_arguments_with_their_path(
    arguments: dict[str, Any], detail: str
) -> None:
    reply = await rpc("tools/call", {"name": "search-books", "arguments": arguments})

    assert reply == invalid_arguments(detail)


@transactional
async def test_book_details_returns_the_book_and_a_link_to_its_resource(library: dict[str, Author]) -> None:
    reply = await rpc("tools/call", {"name": "book-details", "arguments": {"isbn": WIZARD}})

    details = {
        "isbn": WIZARD,
        "title": "A Wizard of Earthsea",
        "author": {"id": library["le_guin"].pk, "name": "Ursula K. Le Guin", "born": "1929-10-21"},
        "published": "1968-11-01",
        "summary": "A young mage learns the price of pride.",
        "in_stock": True,
        "price": "9.99",
    }
    link = {
        "type": "resource_link",
        "uri": f"library://books/{WIZARD}",
        "name": "A Wizard of Earthsea",
        "mimeType": "application/json",
    }
    assert reply == tool_result(details, link)


@transactional
async def test_book_details_reports_a_missing_book_as_a_tool_error(library: dict[str, Author]) -> None:
    reply = await rpc("tools/call", {"name": "book-details", "arguments": {"isbn": MISSING}})

    assert reply == tool_error("Book not found.")


async def test_book_details_rejects_a_malformed_isbn() -> None:
    reply = await rpc("tools/call", {"name": "book-details", "arguments": {"isbn": "978-0547773742"}})

    assert reply == invalid_arguments("isbn: expected str matching regex '^(?:[0-9]{9}[0-9X]|[0-9]{13})$'")


@transactional
@pytest.mark.parametrize("who", ["anonymous", "reader"])
async def test_set_stock_is_hidden_from_callers_without_the_permission(
    library: dict[str, Author], reader: User, who: str
) -> None:
    user = AnonymousUser() if who == "anonymous" else reader

    listing = await rpc("tools/list", user=user)
    denied = await rpc(
        "tools/call", {"name": "set-stock", "arguments": {"isbn": WIZARD, "in_stock": False}}, user=user
    )
    unknown = await rpc(
        "tools/call", {"name": "no-such-tool", "arguments": {"isbn": WIZARD, "in_stock": False}}, user=user
    )

    assert [tool["name"] for tool in listing["result"]["tools"]] == [
        "search-books",
        "book-details",
        "restock-report",
        "reserve-book",
        "audit-stock",
        "stock-board",
        "stock-board-page",
    ]
    # The listing depends on who asks, so it must not be shared.
    assert (listing["result"]["ttlMs"], listing["result"]["cacheScope"]) == (300_000, "private")
    assert denied == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": INVALID_PARAMS, "message": "Unknown tool: set-stock"},
    }
    assert unknown == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": INVALID_PARAMS, "message": "Unknown tool: no-such-tool"},
    }
    assert (await Book.objects.aget(isbn=WIZARD)).in_stock is True


@transactional
async def test_set_stock_is_listed_for_a_librarian_and_updates_the_book(
    library: dict[str, Author], librarian: User
) -> None:
    listing = await rpc("tools/list", user=librarian)
    async with get_backend().listen() as events:
        reply = await rpc(
            "tools/call",
            {"name": "set-stock", "arguments": {"isbn": WIZARD, "in_stock": False}},
            user=librarian,
        )
        announced = [await asyncio.wait_for(anext(events), timeout=5) for _ in range(2)]

    tools = {tool["name"]: tool for tool in listing["result"]["tools"]}
    assert list(tools) == [
        "search-books",
        "book-details",
        "set-stock",
        "restock-report",
        "reserve-book",
        "audit-stock",
        "stock-board",
        "stock-board-page",
    ]
    assert tools["set-stock"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert listing["result"]["cacheScope"] == "private"
    assert reply == tool_result({**summary(WIZARD), "in_stock": False})
    assert (await Book.objects.aget(isbn=WIZARD)).in_stock is False
    assert [(event.kind, event.uri) for event in announced] == [
        ("resource_updated", f"library://books/{WIZARD}"),
        ("resource_updated", "library://catalog"),
    ]


@transactional
async def test_set_stock_rejects_an_unknown_isbn_through_its_async_rule(
    library: dict[str, Author], librarian: User
) -> None:
    reply = await rpc(
        "tools/call", {"name": "set-stock", "arguments": {"isbn": MISSING, "in_stock": True}}, user=librarian
    )

    assert reply == invalid_arguments("isbn: no book has this ISBN")


@transactional
async def test_restock_report_streams_progress_per_author(library: dict[str, Author]) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    reply = await rpc(
        "tools/call",
        {"name": "restock-report"},
        meta=modern_meta(progressToken="restock-1"),
        emit=lambda method, params: sent.append((method, params)),
    )

    def progress(value: int, message: str) -> tuple[str, dict[str, Any]]:
        params = {"progressToken": "restock-1", "progress": value, "total": 2, "message": message}
        return ("notifications/progress", params)

    assert sent == [
        progress(0, "Checking 2 authors"),
        progress(1, "Checked Octavia E. Butler"),
        progress(2, "Checked Ursula K. Le Guin"),
    ]
    report = {
        "authors": [
            {"author_id": library["butler"].pk, "name": "Octavia E. Butler", "in_stock": 1, "to_restock": []},
            {
                "author_id": library["le_guin"].pk,
                "name": "Ursula K. Le Guin",
                "in_stock": 1,
                "to_restock": [DISPOSSESSED],
            },
        ],
        "to_restock": 1,
    }
    assert reply == tool_result(report)


@transactional
async def test_restock_report_sends_no_progress_without_a_token(library: dict[str, Author]) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    reply = await rpc(
        "tools/call", {"name": "restock-report"}, emit=lambda method, params: sent.append((method, params))
    )

    assert sent == []
    assert reply["result"]["structuredContent"]["to_restock"] == 1


@transactional
async def test_reserve_book_asks_who_collects_it_with_an_elicitation_form(
    library: dict[str, Author],
) -> None:
    client = McpTestClient(LibraryServer, client_capabilities={"elicitation": {}})

    asked = await client.call_tool("reserve-book", {"isbn": KINDRED})

    asked.assert_input_required(["details"])
    assert asked.input_requests["details"] == {
        "method": "elicitation/create",
        "params": {
            "message": "Reserve “Kindred”: who collects it, and at which branch?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 100,
                        "description": "Who collects the book.",
                    },
                    "branch": {
                        "type": "string",
                        "enum": ["Main library", "Riverside"],
                        "default": "Main library",
                    },
                },
                "required": ["name"],
            },
        },
    }


@transactional
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            {"action": "accept", "content": {"name": "Ada", "branch": "Riverside"}},
            {"isbn": KINDRED, "title": "Kindred", "name": "Ada", "branch": "Riverside"},
        ),
        (
            {"action": "accept", "content": {"name": "Ada"}},
            {"isbn": KINDRED, "title": "Kindred", "name": "Ada", "branch": "Main library"},
        ),
        ({"action": "decline"}, "Nothing was reserved."),
        ({"action": "cancel"}, "Nothing was reserved."),
        ({"action": "accept", "content": {"branch": "Riverside"}}, "error"),
        ({"action": "accept", "content": {"name": "Ada", "branch": "Mars"}}, "error"),
    ],
)
async def test_reserve_book_handles_every_answer(
    library: dict[str, Author], answer: dict[str, Any], expected: Any
) -> None:
    client = McpTestClient(LibraryServer, client_capabilities={"elicitation": {}})

    reply = await client.call_tool("reserve-book", {"isbn": KINDRED}, input_responses={"details": answer})

    if expected == "error":
        reply.assert_tool_error()
        assert reply.text == "The form came back incomplete: nothing was reserved."
    elif isinstance(expected, str):
        assert reply.assert_ok().text == expected
    else:
        reply.assert_ok().assert_structured(expected)


@transactional
async def test_reserve_book_reports_a_missing_book_before_asking(library: dict[str, Author]) -> None:
    client = McpTestClient(LibraryServer, client_capabilities={"elicitation": {}})

    reply = await client.call_tool("reserve-book", {"isbn": MISSING})

    reply.assert_tool_error()
    assert reply.text == "Book not found."


@transactional
async def test_reserve_book_needs_a_client_that_shows_forms(library: dict[str, Author]) -> None:
    reply = await McpTestClient(LibraryServer, client_capabilities={}).call_tool(
        "reserve-book", {"isbn": KINDRED}
    )

    reply.assert_error(MISSING_REQUIRED_CLIENT_CAPABILITY)
    assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {"form": {}}}}


AUDIT = {"books": 3, "in_stock": 2, "stock_value": "19.99"}


@transactional
async def test_audit_stock_answers_directly_without_the_tasks_extension(library: dict[str, Author]) -> None:
    reply = await McpTestClient(LibraryServer, client_capabilities={}).call_tool("audit-stock")

    reply.assert_ok().assert_structured(AUDIT)


@transactional
async def test_audit_stock_runs_as_a_task_for_a_client_with_the_extension(library: dict[str, Author]) -> None:
    # The demo settings run tasks with the immediate backend: the task is
    # done by the time tools/call answers.
    client = McpTestClient(LibraryServer, client_capabilities={"extensions": {TASKS: {}}})

    created = (await client.call_tool("audit-stock")).result
    task = (await client.request("tasks/get", {"taskId": created["taskId"]}))["result"]

    assert created["resultType"] == "task"
    assert task["status"] == "completed"
    assert task["statusMessage"] == "Counted 3 of 3 books"
    assert task["result"]["structuredContent"] == AUDIT
    assert task["result"]["isError"] is False


# --------------------------------------------------------------- resources


@transactional
async def test_catalog_read_keeps_its_public_cache_hint(library: dict[str, Author]) -> None:
    reply = await rpc("resources/read", {"uri": "library://catalog"})

    catalog = {
        "author_count": 2,
        "book_count": 3,
        "books": [summary(WIZARD), summary(KINDRED), summary(DISPOSSESSED)],
    }
    assert reply == ok(
        {
            "resultType": "complete",
            "contents": [
                {
                    "uri": "library://catalog",
                    "mimeType": "application/json",
                    "text": msgspec.json.encode(catalog).decode(),
                }
            ],
            # The catalog is not guarded, so its own hint stands even though
            # the server has a guarded tool (and its listings are private).
            "ttlMs": 60_000,
            "cacheScope": "public",
        }
    )


async def test_resource_listings_are_private_because_the_server_has_a_guarded_tool() -> None:
    resources = await rpc("resources/list")
    templates = await rpc("resources/templates/list")

    assert resources == ok(
        {
            "resultType": "complete",
            "ttlMs": 300_000,
            "cacheScope": "private",
            "resources": [
                {
                    "uri": "library://catalog",
                    "name": "catalog",
                    "title": "Library catalog",
                    "description": "Every book of the library; the same for every caller.",
                    "mimeType": "application/json",
                },
                # The demo's skill: its SKILL.md is a resource too.
                {
                    "uri": "skill://restock-check/SKILL.md",
                    "name": "restock-check",
                    "description": "Find the library's out-of-stock books and, once a librarian agrees, "
                    "put them back in stock, using the library server's tools.",
                    "mimeType": "text/markdown",
                    "size": RESTOCK_SKILL.stat().st_size,
                },
            ],
        }
    )
    assert [t["uriTemplate"] for t in templates["result"]["resourceTemplates"]] == [
        "library://books/{isbn}",
        "library://authors/{author_id}/books",
    ]
    assert templates["result"]["cacheScope"] == "private"


@transactional
async def test_book_resource_reads_one_book_as_json(library: dict[str, Author]) -> None:
    reply = await rpc("resources/read", {"uri": f"library://books/{KINDRED}"})

    details = {
        "isbn": KINDRED,
        "title": "Kindred",
        "author": {"id": library["butler"].pk, "name": "Octavia E. Butler", "born": None},
        "published": "1979-06-01",
        "summary": "A writer pulled back in time.",
        "in_stock": True,
        "price": "10.00",
    }
    assert reply == ok(
        {
            "resultType": "complete",
            "contents": [
                {
                    "uri": f"library://books/{KINDRED}",
                    "mimeType": "application/json",
                    "text": msgspec.json.encode(details).decode(),
                }
            ],
            "ttlMs": 0,
            "cacheScope": "private",
        }
    )


@transactional
@pytest.mark.parametrize(
    "uri",
    [
        f"library://books/{MISSING}",
        "library://authors/999999/books",
        "library://authors/not-a-number/books",
        "library://shelves/1",
    ],
)
async def test_unknown_resources_are_not_found_with_their_uri(library: dict[str, Author], uri: str) -> None:
    reply = await rpc("resources/read", {"uri": uri})

    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": INVALID_PARAMS, "message": "Resource not found", "data": {"uri": uri}},
    }


@transactional
async def test_author_books_resource_lists_titles_as_text(library: dict[str, Author]) -> None:
    uri = f"library://authors/{library['le_guin'].pk}/books"

    reply = await rpc("resources/read", {"uri": uri})

    text = (
        "Books by Ursula K. Le Guin:\n"
        f"- A Wizard of Earthsea (1968), ISBN {WIZARD}, in stock\n"
        f"- The Dispossessed (1974), ISBN {DISPOSSESSED}, out of stock"
    )
    assert reply == ok(
        {
            "resultType": "complete",
            "contents": [{"uri": uri, "mimeType": "text/plain", "text": text}],
            "ttlMs": 0,
            "cacheScope": "private",
        }
    )


@transactional
@pytest.mark.parametrize(
    ("value", "completion"),
    [
        ("97805", {"values": [WIZARD], "total": 1, "hasMore": False}),
        ("978", {"values": [DISPOSSESSED, WIZARD, KINDRED], "total": 3, "hasMore": False}),
    ],
)
async def test_book_resource_completes_isbns_by_prefix(
    library: dict[str, Author], value: str, completion: dict[str, Any]
) -> None:
    reply = await rpc(
        "completion/complete",
        {
            "ref": {"type": "ref/resource", "uri": "library://books/{isbn}"},
            "argument": {"name": "isbn", "value": value},
        },
    )

    assert reply == ok({"resultType": "complete", "completion": completion})


@transactional
async def test_book_resource_completion_is_capped_at_one_hundred(library: dict[str, Author]) -> None:
    author = await Author.objects.acreate(name="Prolific")
    await Book.objects.abulk_create(
        Book(
            title=f"Volume {n}",
            author=author,
            published=datetime.date(2000, 1, 1),
            isbn=f"555{n:010d}",
            price=1,
        )
        for n in range(120)
    )

    reply = await rpc(
        "completion/complete",
        {
            "ref": {"type": "ref/resource", "uri": "library://books/{isbn}"},
            "argument": {"name": "isbn", "value": "555"},
        },
    )

    completion = reply["result"]["completion"]
    assert (len(completion["values"]), completion["total"], completion["hasMore"]) == (100, 120, True)


# ----------------------------------------------------------------- prompts


@transactional
async def test_recommend_book_prompt_builds_user_and_assistant_messages(library: dict[str, Author]) -> None:
    reply = await rpc(
        "prompts/get", {"name": "recommend-book", "arguments": {"genre": "fantasy", "audience": "children"}}
    )

    shelf = (
        f"- A Wizard of Earthsea by Ursula K. Le Guin (ISBN {WIZARD})\n"
        f"- Kindred by Octavia E. Butler (ISBN {KINDRED})"
    )

    def message(role: str, text: str) -> dict[str, Any]:
        return {"role": role, "content": {"type": "text", "text": text}}

    assert reply == ok(
        {
            "resultType": "complete",
            "messages": [
                message(
                    "user",
                    "You help library visitors choose a book. Recommend only books from this "
                    "list of titles in stock:\n" + shelf,
                ),
                message("assistant", "Understood. I will pick one title from that list and say why it fits."),
                message("user", "Recommend one fantasy book for children."),
            ],
        }
    )


@transactional
async def test_recommend_book_prompt_audience_is_optional(library: dict[str, Author]) -> None:
    reply = await rpc("prompts/get", {"name": "recommend-book", "arguments": {"genre": "mystery"}})

    last = reply["result"]["messages"][-1]
    assert last == {"role": "user", "content": {"type": "text", "text": "Recommend one mystery book."}}


async def test_recommend_book_prompt_requires_a_genre() -> None:
    reply = await rpc("prompts/get", {"name": "recommend-book", "arguments": {"audience": "adults"}})

    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": INVALID_PARAMS, "message": "Missing required prompt argument: genre"},
    }


@pytest.mark.parametrize(
    ("argument", "value", "values"),
    [
        ("genre", "f", ["fantasy", "fiction"]),
        ("genre", "H", ["historical fiction", "horror", "humour"]),
        ("audience", "", ["adults", "children", "young adults"]),
    ],
)
async def test_recommend_book_prompt_completes_arguments_by_prefix(
    argument: str, value: str, values: list[str]
) -> None:
    reply = await rpc(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "recommend-book"},
            "argument": {"name": argument, "value": value},
        },
    )

    assert reply == ok({"resultType": "complete", "completion": {"values": values}})


async def test_a_completion_without_matches_still_sends_empty_values() -> None:
    reply = await rpc(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "recommend-book"},
            "argument": {"name": "genre", "value": "zzz"},
        },
    )

    assert reply == ok({"resultType": "complete", "completion": {"values": []}})


async def test_prompt_listing_describes_both_arguments() -> None:
    reply = await rpc("prompts/list")

    assert reply == ok(
        {
            "resultType": "complete",
            "ttlMs": 300_000,
            "cacheScope": "private",
            "prompts": [
                {
                    "name": "recommend-book",
                    "title": "Recommend a book",
                    "description": "Ask the model to recommend one in-stock book of a genre.",
                    "arguments": [
                        {"name": "genre", "description": "The genre the reader wants.", "required": True},
                        {
                            "name": "audience",
                            "description": "Who the book is for, e.g. children.",
                            "required": False,
                        },
                    ],
                }
            ],
        }
    )


# -------------------------------------------------------------- seed_demo


@pytest.mark.django_db
def test_seed_demo_is_idempotent_and_keeps_edits() -> None:
    first, second = io.StringIO(), io.StringIO()

    call_command("seed_demo", stdout=first)
    Book.objects.filter(isbn=WIZARD).update(in_stock=False)
    books = list(Book.objects.values_list("isbn", "title", "author__name"))
    call_command("seed_demo", stdout=second)

    assert first.getvalue() == "Created 4 author(s) and 8 book(s).\n"
    assert second.getvalue() == "Created 0 author(s) and 0 book(s).\n"
    assert list(Book.objects.values_list("isbn", "title", "author__name")) == books
    assert Author.objects.count() == 4
    assert Book.objects.get(isbn=WIZARD).in_stock is False


# ------------------------------------------------------------------ skill


async def test_the_demo_skill_is_listed_with_its_files_and_reads_back_verbatim() -> None:
    folder = RESTOCK_SKILL.parent
    listing = await rpc("skills/list")
    read = await rpc("resources/read", {"uri": "skill://restock-check/SKILL.md"})

    [entry] = listing["result"]["skills"]
    assert entry["uri"] == "skill://restock-check/SKILL.md"
    assert entry["frontmatter"]["name"] == "restock-check"
    assert [(r["uri"], r["size"]) for r in entry["resources"]] == [
        ("skill://restock-check/SKILL.md", RESTOCK_SKILL.stat().st_size),
        (
            "skill://restock-check/references/PRIORITIES.md",
            (folder / "references" / "PRIORITIES.md").stat().st_size,
        ),
    ]
    assert read["result"]["contents"] == [
        {
            "uri": "skill://restock-check/SKILL.md",
            "mimeType": "text/markdown",
            "text": RESTOCK_SKILL.read_text(),
        }
    ]
