"""The official MCP Python SDK client driving ``manage.py mcp_stdio`` as a subprocess.

``mcp==2.3.0`` launches ``python testproject/manage.py mcp_stdio library``
through its own stdio transport (``StdioServerParameters`` and
``stdio_client``): newline-delimited JSON-RPC on the child's stdin and
stdout, the child's stderr sent to a file of the test's. Each test runs on
both protocol eras, picked the same way as over HTTP
(tests/live/test_python_sdk_client.py): ``mode="auto"`` discovers and adopts
2026-07-28 with ``server/discover``; ``mode="legacy"`` runs the
``initialize`` handshake on 2025-11-25, the one legacy session of the
process.

The child gets only what an MCP host would give it: the SDK's default
environment (``PATH``, ``HOME``, ...), the settings module, a temporary
database migrated and seeded once for this module (an SQLite file, or on
PostgreSQL a database of its own, ``tests/databases.py``), and
``DJANGO_MCP_LOG=DEBUG`` so django_mcp logs everything it can to stderr.
The SDK reports every stdout line it cannot parse as a JSON-RPC message as
an exception to the client's message handler; each connection collects
those and a test fails if there is one, so every test also checks that
stdout carries protocol messages only. STDIO has no user, so the
permission-guarded ``set-stock`` is never listed. Every wait is bounded by
``anyio.fail_after``; the SDK's own shutdown (close stdin, wait, kill) is
bounded too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage

from testproject.demo.mcp import GENRES
from testproject.demo.seed import AUTHORS
from tests.databases import database_env

ROOT = Path(__file__).resolve().parents[2]

MODERN = "2026-07-28"
LEGACY = "2025-11-25"

#: The SDK's connection mode that selects each era against this server.
CONNECT_MODE = {MODERN: "auto", LEGACY: "legacy"}

#: Seconds any single test may take, process start and shutdown included.
TIMEOUT = 30

#: Seconds the setup commands (migrate, seed_demo) may take.
SETUP_TIMEOUT = 120

SERVER = "library"

#: A seeded book: (isbn, title, author).
WIZARD = ("9780547773742", "A Wizard of Earthsea", "Ursula K. Le Guin")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Return the environment naming a migrated database holding the demo library."""
    database = database_env(tmp_path_factory.mktemp("stdio") / "library.sqlite3")
    env = {**os.environ, **database, "DJANGO_SETTINGS_MODULE": "testproject.settings"}
    for command in (["migrate", "--noinput", "-v", "0"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "testproject/manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=SETUP_TIMEOUT,
        )
    return database


@pytest.fixture(params=[MODERN, LEGACY])
def era(request: pytest.FixtureRequest) -> str:
    """Return the protocol version the test runs on."""
    return str(request.param)


class StdioServer:
    """One ``manage.py mcp_stdio`` child process, as the SDK runs it."""

    def __init__(self, database: dict[str, str], stderr: Path) -> None:
        self.parameters = StdioServerParameters(
            command=sys.executable,
            args=["testproject/manage.py", "mcp_stdio", SERVER],
            cwd=ROOT,
            env={
                "DJANGO_SETTINGS_MODULE": "testproject.settings",
                **database,
                "DJANGO_MCP_LOG": "DEBUG",
            },
        )
        self.stderr = stderr
        #: Lines of stdout the SDK could not parse as JSON-RPC messages.
        self.unparsable: list[Exception] = []
        #: The SDK's write stream to the child's stdin, once connected.
        self.to_server: Any = None

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[Any]:
        """Run the child through the SDK's stdio transport, stderr to a file."""
        with self.stderr.open("w", encoding="utf-8") as errlog:
            async with stdio_client(self.parameters, errlog=errlog) as (read_stream, write_stream):
                self.to_server = write_stream
                yield read_stream, write_stream

    async def on_message(self, message: IncomingMessage) -> None:
        """Collect what the SDK could not parse; ignore notifications."""
        if isinstance(message, Exception):
            self.unparsable.append(message)

    @asynccontextmanager
    async def connect(self, era: str, **options: Any) -> AsyncIterator[Client]:
        """Connect an SDK client on ``era``; check the negotiated version."""
        client = Client(
            self.transport(),
            mode=CONNECT_MODE[era],
            read_timeout_seconds=TIMEOUT,
            message_handler=self.on_message,
            **options,
        )
        async with client:
            assert client.protocol_version == era
            yield client
        assert self.unparsable == [], "the server wrote something other than JSON-RPC to stdout"


@pytest.fixture
def server(database: dict[str, str], tmp_path: Path) -> StdioServer:
    """Return a launcher for the demo library's STDIO server."""
    return StdioServer(database, tmp_path / "stderr.log")


def text_of(blocks: list[Any]) -> str:
    """Return the text of a one-text-block content list."""
    assert len(blocks) == 1
    assert isinstance(blocks[0], types.TextContent | types.TextResourceContents)
    return blocks[0].text


def seeded_books() -> list[tuple[str, str, str, bool]]:
    """Return ``(isbn, title, author, in_stock)`` for every seeded book."""
    return [(book[0], book[1], name, book[4]) for name, _born, books in AUTHORS for book in books]


async def test_names_the_server_on_each_era(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            info = client.server_info
            capabilities = client.server_capabilities

    assert info is not None
    assert (info.name, info.version, info.title) == (SERVER, "1.0.0", "Demo library")
    assert capabilities.tools is not None
    assert capabilities.resources is not None
    assert capabilities.prompts is not None
    assert capabilities.completions is not None


async def test_lists_only_the_tools_a_caller_without_a_user_may_use(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            listing = await client.list_tools()

    # set-stock needs the demo.change_stock permission; STDIO has no user.
    assert [tool.name for tool in listing.tools] == [
        "search-books",
        "book-details",
        "restock-report",
        "reserve-book",
        "audit-stock",
        "stock-board",
        "stock-board-page",
    ]
    assert listing.next_cursor is None


async def test_search_books_returns_structured_books(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.call_tool("search-books", {"query": "a"})

    expected = sorted(
        (title, isbn)
        for isbn, title, author, _ in seeded_books()
        if "a" in title.casefold() or "a" in author.casefold()
    )
    assert result.is_error is False
    assert result.structured_content is not None
    books = result.structured_content["books"]
    assert result.structured_content["count"] == len(books) == len(expected)
    assert [(book["title"], book["isbn"]) for book in books] == expected
    assert books[0] == {
        "isbn": WIZARD[0],
        "title": WIZARD[1],
        "author": WIZARD[2],
        "published": "1968-11-01",
        "in_stock": True,
        "price": "9.99",
    }


async def test_restock_report_sends_increasing_progress_to_the_callback(
    server: StdioServer, era: str
) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.call_tool("restock-report", {}, progress_callback=on_progress)

    authors = len(AUTHORS)
    assert updates[0] == (0, authors, f"Checking {authors} authors")
    assert [progress for progress, _, _ in updates] == list(range(authors + 1))
    assert {total for _, total, _ in updates} == {authors}
    assert result.is_error is False
    assert result.structured_content is not None
    out_of_stock = sorted(isbn for isbn, _, _, in_stock in seeded_books() if not in_stock)
    assert result.structured_content["to_restock"] == len(out_of_stock)
    listed = [isbn for row in result.structured_content["authors"] for isbn in row["to_restock"]]
    assert sorted(listed) == out_of_stock


async def test_reads_the_catalog_resource(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.read_resource("library://catalog")

    [contents] = result.contents
    assert (contents.uri, contents.mime_type) == ("library://catalog", "application/json")
    catalog = json.loads(text_of(result.contents))
    assert (catalog["author_count"], catalog["book_count"]) == (len(AUTHORS), len(seeded_books()))
    assert sorted(book["isbn"] for book in catalog["books"]) == sorted(b[0] for b in seeded_books())


async def test_reads_a_book_through_its_uri_template(server: StdioServer, era: str) -> None:
    isbn, title, author = WIZARD
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            templates = await client.list_resource_templates()
            result = await client.read_resource(f"library://books/{isbn}")

    assert "library://books/{isbn}" in [t.uri_template for t in templates.resource_templates]
    [contents] = result.contents
    assert (contents.uri, contents.mime_type) == (f"library://books/{isbn}", "application/json")
    book = json.loads(text_of(result.contents))
    assert (book["isbn"], book["title"], book["author"]["name"]) == (isbn, title, author)


async def test_gets_the_recommend_book_prompt(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.get_prompt("recommend-book", {"genre": "fantasy"})

    assert [message.role for message in result.messages] == ["user", "assistant", "user"]
    shelf = result.messages[0].content
    assert isinstance(shelf, types.TextContent)
    in_stock = [title for _, title, _, available in seeded_books() if available]
    out_of_stock = [title for _, title, _, available in seeded_books() if not available]
    assert all(title in shelf.text for title in in_stock)
    assert not any(title in shelf.text for title in out_of_stock)
    assert result.messages[2].content == types.TextContent(type="text", text="Recommend one fantasy book.")


async def test_completes_the_prompts_genre_argument(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.complete(
                types.PromptReference(type="ref/prompt", name="recommend-book"),
                {"name": "genre", "value": "f"},
            )

    expected = [genre for genre in GENRES if genre.startswith("f")]
    assert expected == ["fantasy", "fiction"]
    assert result.completion.values == expected


async def test_completes_the_book_templates_isbn(server: StdioServer, era: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with server.connect(era) as client:
            result = await client.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="library://books/{isbn}"),
                {"name": "isbn", "value": WIZARD[0][:7]},
            )

    expected = sorted(isbn for isbn, _, _, _ in seeded_books() if isbn.startswith(WIZARD[0][:7]))
    assert result.completion.values == expected
    assert (result.completion.total, result.completion.has_more) == (len(expected), False)


async def test_debug_logging_goes_to_stderr_and_leaves_stdout_to_the_protocol(server: StdioServer) -> None:
    # A response to a request the server never sent is ignored in the
    # 2025-11-25 session, with a DEBUG log line: that line must reach
    # stderr, and the session must go on with clean stdout.
    stray = types.JSONRPCResponse(jsonrpc="2.0", id="stray-response", result={})
    with anyio.fail_after(TIMEOUT):
        async with server.connect(LEGACY) as client:
            await server.to_server.send(SessionMessage(stray))
            # Lines are read in order: once this answer is back, the stray
            # response has been handled and its log line written.
            result = await client.call_tool("search-books", {"query": WIZARD[0]})

    assert result.structured_content is not None
    assert [book["isbn"] for book in result.structured_content["books"]] == [WIZARD[0]]
    logged = server.stderr.read_text(encoding="utf-8")
    assert "Ignored a response to unknown request 'stray-response'" in logged
