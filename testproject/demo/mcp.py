"""The demo library's MCP server: ORM-backed tools, resources and a prompt.

``LibraryServer`` is published over HTTP at ``/mcp/library`` and over STDIO
as ``library``. It shows the usual shapes of a Django-backed server:

* ``search-books``: a sync tool using the sync ORM, with ``msgspec.Meta``
  constraints, a sync ``@rule`` and a structured output schema;
* ``book-details``: an async tool using the async ORM that reports a
  missing book as a tool error;
* ``set-stock``: a write guarded by the ``demo.change_stock`` permission,
  with an async ``@rule`` that checks the ISBN exists;
* ``restock-report``: an async generator that reports progress per author;
* ``reserve-book``: asks the user who collects the book, and where, with an
  elicitation form (a multi round-trip request), and handles every answer;
* ``audit-stock``: a sync tool that runs as a task (``task = "optional"``)
  for clients that declare the tasks extension, publishing its progress as
  the task's status message; other clients get the result directly;
* ``library://catalog`` (fixed, publicly cacheable),
  ``library://books/{isbn}`` (with ISBN completion) and
  ``library://authors/{author_id}/books`` (plain text);
* ``recommend-book``: a prompt with genre/audience completion;
* ``admin-book-list``, ``admin-book-get`` and ``admin-book-change``: the
  ``BookAdmin`` of the Django admin as tools (``ModelAdminTools``), for
  active staff with the book permissions.
* ``stock-board``: an MCP App (``StockBoardApp``, the template
  ``demo/apps/stock_board.html``) shows the books and their stock beside the
  tool's result in hosts that render Apps (the admin's playground is one);
  the page filters through ``stock-board-page``, a tool only the App calls
  (``app_visibility = ("app",)``), and asks the host to send a chat message;
* ``restock-check``: a skill (``skills/restock-check/`` of this app) that
  walks an agent through a restock with the tools above.

Because ``set-stock`` is guarded, the listings depend on the caller and are
always sent with ``cacheScope: "private"``, whatever ``LibraryServer.cache``
says; the unguarded catalog read keeps its own public hint.
"""

from __future__ import annotations

import datetime
import importlib.util
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Annotated, Literal

import msgspec
from django.db.models import Q

import django_mcp
from django_mcp import (
    AppResource,
    CacheHint,
    Completion,
    McpRequest,
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
    ToolAnnotations,
)
from django_mcp.contrib.admin import ModelAdminTools
from django_mcp.exceptions import ResourceNotFound
from django_mcp.inputs import elicit, input_required
from django_mcp.schemas import Schema, rule
from testproject.demo.admin import BookAdmin
from testproject.demo.models import Author, Book

__all__ = [
    "AUDIENCES",
    "BRANCHES",
    "GENRES",
    "AuditStockTool",
    "AuthorBooksResource",
    "BookDetailsTool",
    "BookResource",
    "CatalogResource",
    "LibraryServer",
    "RecommendBookPrompt",
    "ReserveBookTool",
    "RestockReportTool",
    "SearchBooksTool",
    "SetStockTool",
]

#: Values ``recommend-book`` suggests for its ``genre`` argument.
GENRES = (
    "adventure",
    "classics",
    "fantasy",
    "fiction",
    "historical fiction",
    "horror",
    "humour",
    "mystery",
    "mythology",
    "science fiction",
)

#: Values ``recommend-book`` suggests for its ``audience`` argument.
AUDIENCES = ("adults", "children", "young adults")

#: Where ``reserve-book`` lets a reader collect a book.
BRANCHES = ("Main library", "Riverside")
Branch = Literal["Main library", "Riverside"]

Isbn = Annotated[
    str,
    msgspec.Meta(
        pattern="^(?:[0-9]{9}[0-9X]|[0-9]{13})$",
        description="ISBN-10 or ISBN-13, without hyphens.",
        examples=["9780547773742"],
    ),
]


# ---------------------------------------------------------------- schemas


class BookSummary(Schema):
    """One book as listed by search results and the catalog."""

    isbn: str
    title: str
    author: str
    published: datetime.date
    in_stock: bool
    price: Decimal


class AuthorInfo(Schema):
    """The author of a book."""

    id: int
    name: str
    born: datetime.date | None = None


class BookDetails(Schema):
    """Everything the library knows about one book."""

    isbn: str
    title: str
    author: AuthorInfo
    published: datetime.date
    summary: str
    in_stock: bool
    price: Decimal


class SearchInput(Schema):
    """Find books whose title or author contains the query, or by ISBN."""

    query: Annotated[str, msgspec.Meta(max_length=200, description="Words to look for.")]
    limit: Annotated[int, msgspec.Meta(ge=1, le=50, description="At most this many books.")] = 10

    @rule(field="query")
    def query_not_blank(self) -> None:
        if not self.query.strip():
            raise ValueError("must not be blank")


class SearchResults(Schema):
    """The books matching a search, best first."""

    books: list[BookSummary]
    count: int


class IsbnInput(Schema):
    """Identify one book."""

    isbn: Isbn


class StockInput(Schema):
    """Mark a book as in stock or out of stock."""

    isbn: Isbn
    in_stock: bool

    @rule(field="isbn")
    async def book_exists(self) -> None:
        # An async rule: it runs on the event loop, so use the async ORM.
        if not await Book.objects.filter(isbn=self.isbn).aexists():
            raise ValueError("no book has this ISBN")


class AuthorStock(Schema):
    """Stock of one author's books."""

    author_id: int
    name: str
    in_stock: int
    to_restock: list[str]


class RestockReport(Schema):
    """Which books need restocking, per author."""

    authors: list[AuthorStock]
    to_restock: int


class ReservationDetails(Schema):
    """What ``reserve-book`` asks the user: a flat form, as elicitation wants."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100, description="Who collects the book.")]
    branch: Branch = "Main library"


class Reservation(Schema):
    """A reservation made by ``reserve-book`` (its structured content)."""

    isbn: str
    title: str
    name: str
    branch: Branch


class StockAudit(Schema):
    """The books counted by ``audit-stock`` and the value of those in stock."""

    books: int
    in_stock: int
    stock_value: Decimal


class Catalog(Schema):
    """Every book of the library."""

    author_count: int
    book_count: int
    books: list[BookSummary]


def _summary(book: Book) -> BookSummary:
    return BookSummary(
        isbn=book.isbn,
        title=book.title,
        author=book.author.name,
        published=book.published,
        in_stock=book.in_stock,
        price=book.price,
    )


def _details(book: Book) -> BookDetails:
    author = book.author
    return BookDetails(
        isbn=book.isbn,
        title=book.title,
        author=AuthorInfo(id=author.pk, name=author.name, born=author.born),
        published=book.published,
        summary=book.summary,
        in_stock=book.in_stock,
        price=book.price,
    )


def book_uri(isbn: str) -> str:
    """Return the ``library://books/{isbn}`` URI of a book."""
    return f"library://books/{isbn}"


# ------------------------------------------------------------------ tools

_READ_ONLY = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)


class SearchBooksTool(Tool[SearchInput, SearchResults]):
    """Search the catalog by title, author name or exact ISBN."""

    name = "search-books"
    title = "Search books"
    annotations = _READ_ONLY

    def handle(self, payload: SearchInput) -> McpResponse:
        # A sync handler runs in Django's sync thread: the plain ORM is fine.
        query = payload.query.strip()
        books = (
            Book.objects.select_related("author")
            .filter(Q(title__icontains=query) | Q(author__name__icontains=query) | Q(isbn=query))
            .order_by("title")[: payload.limit]
        )
        found = [_summary(book) for book in books]
        return McpResponse.structured(SearchResults(books=found, count=len(found)))


class BookDetailsTool(Tool[IsbnInput, BookDetails]):
    """Return a book's details and a link to its resource."""

    name = "book-details"
    title = "Book details"
    annotations = _READ_ONLY

    async def handle(self, payload: IsbnInput) -> list[McpResponse]:
        try:
            book = await Book.objects.select_related("author").aget(isbn=payload.isbn)
        except Book.DoesNotExist:
            return [McpResponse.error("Book not found.")]
        return [
            McpResponse.structured(_details(book)),
            McpResponse.resourceLink(book_uri(book.isbn), book.title, mime_type="application/json"),
        ]


class SetStockTool(Tool[StockInput, BookSummary]):
    """Mark a book as in stock or out of stock (librarians only)."""

    name = "set-stock"
    title = "Set stock"
    permissions = ("demo.change_stock",)
    annotations = ToolAnnotations(read_only=False, destructive=False, idempotent=True, open_world=False)

    async def handle(self, payload: StockInput) -> McpResponse:
        await Book.objects.filter(isbn=payload.isbn).aupdate(in_stock=payload.in_stock)
        book = await Book.objects.select_related("author").aget(isbn=payload.isbn)
        # Tell subscribed clients that both views of this book changed.
        django_mcp.resource_updated(LibraryServer, book_uri(book.isbn))
        django_mcp.resource_updated(LibraryServer, CatalogResource.uri)
        return McpResponse.structured(_summary(book))


class RestockReportTool(Tool[None, RestockReport]):
    """List the out-of-stock books of every author, reporting progress."""

    name = "restock-report"
    title = "Restock report"
    annotations = _READ_ONLY

    async def handle(self) -> AsyncIterator[McpResponse]:
        total = await Author.objects.acount()
        yield McpResponse.progress(0, total, f"Checking {total} authors")
        rows: list[AuthorStock] = []
        done = 0
        async for author in Author.objects.order_by("name"):
            missing = [book.isbn async for book in author.books.filter(in_stock=False).order_by("title")]
            in_stock = await author.books.filter(in_stock=True).acount()
            rows.append(
                AuthorStock(author_id=author.pk, name=author.name, in_stock=in_stock, to_restock=missing)
            )
            done += 1
            yield McpResponse.progress(done, total, f"Checked {author.name}")
        yield McpResponse.structured(
            RestockReport(authors=rows, to_restock=sum(len(r.to_restock) for r in rows))
        )


class ReserveBookTool(Tool[IsbnInput]):
    """Reserve a book for collection; asks who collects it and where."""

    name = "reserve-book"
    title = "Reserve a book"
    annotations = ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=False)

    async def handle(self, payload: IsbnInput, request: McpRequest) -> McpResponse:
        book = await Book.objects.filter(isbn=payload.isbn).afirst()
        if book is None:
            return McpResponse.error("Book not found.")
        answer = request.input_responses.get("details")
        if answer is None:
            # The first call: ask the user through the client. The client
            # calls again with the same arguments and the answer.
            message = f"Reserve “{book.title}”: who collects it, and at which branch?"
            return input_required({"details": elicit(message, ReservationDetails)})
        if answer.get("action") != "accept":  # "decline" or "cancel"
            return McpResponse.text("Nothing was reserved.")
        try:
            details = msgspec.convert(answer.get("content"), ReservationDetails)
        except msgspec.ValidationError:
            return McpResponse.error("The form came back incomplete: nothing was reserved.")
        return McpResponse.structured(
            Reservation(isbn=book.isbn, title=book.title, name=details.name, branch=details.branch)
        )


class AuditStockTool(Tool[None, StockAudit]):
    """Count every book and the value of the stock, as a task where the client can."""

    name = "audit-stock"
    title = "Audit stock"
    annotations = _READ_ONLY
    # A task for clients that declare io.modelcontextprotocol/tasks (they
    # poll tasks/get); a direct answer for every other client.
    task = "optional"

    def handle(self, request: McpRequest) -> McpResponse:
        # A sync handler: as a task it runs on the Tasks backend, else in
        # Django's sync thread; either way the plain ORM is fine.
        books = list(Book.objects.order_by("isbn"))
        in_stock, value = 0, Decimal(0)
        for done, book in enumerate(books, start=1):
            if request.task is not None:
                request.task.check_cancelled()
                request.task.status_message = f"Counted {done} of {len(books)} books"
            if book.in_stock:
                in_stock += 1
                value += book.price
        return McpResponse.structured(StockAudit(books=len(books), in_stock=in_stock, stock_value=value))


class BoardInput(Schema):
    """Which books the stock board shows."""

    in_stock: Annotated[
        bool | None, msgspec.Meta(description="Only books in stock (true), out of stock (false), or all.")
    ] = None


class StockBoard(Schema):
    """The books on the stock board and how many are missing."""

    books: list[BookSummary]
    count: int
    out_of_stock: int


class StockBoardApp(AppResource):
    """The stock board: a table of books a librarian filters and asks about."""

    name = "stock-board"
    template_name = "demo/apps/stock_board.html"
    prefers_border = True

    def get_context_data(self) -> dict[str, object]:
        # The page is the same for every caller (hosts cache it): the books
        # come with each tool result.
        return {**super().get_context_data(), "heading": "Stock board"}


def _board(payload: BoardInput) -> list[McpResponse]:
    books = Book.objects.select_related("author").order_by("title")
    if payload.in_stock is not None:
        books = books.filter(in_stock=payload.in_stock)
    found = [_summary(book) for book in books]
    missing = sum(1 for book in found if not book.in_stock)
    noun = "book" if len(found) == 1 else "books"
    text = f"{len(found)} {noun}, {missing} out of stock: " + "; ".join(
        f"{book.title} ({'in stock' if book.in_stock else 'out of stock'})" for book in found
    )
    # The sentence is for the model and clients without Apps; the App
    # renders structuredContent.
    return [
        McpResponse.text(text),
        McpResponse.structured(StockBoard(books=found, count=len(found), out_of_stock=missing)),
    ]


class StockBoardTool(Tool[BoardInput, StockBoard]):
    """Show the library's books and their stock, on the stock board where the client renders Apps."""

    name = "stock-board"
    title = "Stock board"
    annotations = _READ_ONLY
    app = StockBoardApp

    def handle(self, payload: BoardInput) -> list[McpResponse]:
        return _board(payload)


class StockBoardPageTool(Tool[BoardInput, StockBoard]):
    """Return the stock board's books again, filtered (for the stock board App only)."""

    name = "stock-board-page"
    title = "Stock board page"
    annotations = _READ_ONLY
    app = StockBoardApp
    app_visibility = ("app",)

    def handle(self, payload: BoardInput) -> list[McpResponse]:
        return _board(payload)


# -------------------------------------------------------------- resources


class CatalogResource(Resource):
    """Every book of the library; the same for every caller."""

    name = "catalog"
    title = "Library catalog"
    uri = "library://catalog"
    mime_type = "application/json"
    cache = CacheHint(ttl_ms=60_000, scope="public")

    async def handle(self) -> McpResponse:
        books = [_summary(book) async for book in Book.objects.select_related("author").order_by("title")]
        authors = await Author.objects.acount()
        return McpResponse.structured(Catalog(author_count=authors, book_count=len(books), books=books))


class BookResource(Resource):
    """One book as JSON, addressed by its ISBN."""

    name = "book"
    title = "Book"
    uri_template = "library://books/{isbn}"
    mime_type = "application/json"

    async def handle(self, isbn: str, request: McpRequest) -> McpResponse:
        try:
            book = await Book.objects.select_related("author").aget(isbn=isbn)
        except Book.DoesNotExist:
            raise ResourceNotFound(data={"uri": request.uri}) from None
        return McpResponse.structured(_details(book))

    async def complete(self, value: str) -> Completion:
        matching = Book.objects.filter(isbn__startswith=value).order_by("isbn")
        total = await matching.acount()
        isbns = [isbn async for isbn in matching.values_list("isbn", flat=True)[:100]]
        return Completion(values=tuple(isbns), total=total, has_more=total > len(isbns))


class AuthorBooksResource(Resource):
    """The titles of one author, one per line."""

    name = "author-books"
    title = "Books by author"
    uri_template = "library://authors/{author_id}/books"
    mime_type = "text/plain"

    async def handle(self, author_id: str, request: McpRequest) -> McpResponse:
        author = None
        if author_id.isascii() and author_id.isdigit():
            author = await Author.objects.filter(pk=int(author_id)).afirst()
        if author is None:
            raise ResourceNotFound(data={"uri": request.uri})
        lines = [f"Books by {author.name}:"]
        async for book in author.books.order_by("published"):
            stock = "in stock" if book.in_stock else "out of stock"
            lines.append(f"- {book.title} ({book.published.year}), ISBN {book.isbn}, {stock}")
        if len(lines) == 1:
            lines.append("(none)")
        return McpResponse.text("\n".join(lines))


# ---------------------------------------------------------------- prompts


class RecommendBookPrompt(Prompt):
    """Ask the model to recommend one in-stock book of a genre."""

    name = "recommend-book"
    title = "Recommend a book"
    arguments = (
        PromptArgument(name="genre", description="The genre the reader wants.", required=True),
        PromptArgument(name="audience", description="Who the book is for, e.g. children."),
    )

    async def handle(self, genre: str, audience: str | None = None) -> list[McpResponse]:
        shelf = [
            f"- {book.title} by {book.author.name} (ISBN {book.isbn})"
            async for book in Book.objects.select_related("author").filter(in_stock=True).order_by("title")
        ]
        reader = f" for {audience}" if audience else ""
        return [
            McpResponse.text(
                "You help library visitors choose a book. Recommend only books from this "
                "list of titles in stock:\n" + ("\n".join(shelf) or "(nothing is in stock)")
            ).asUser(),
            McpResponse.text(
                "Understood. I will pick one title from that list and say why it fits."
            ).asAssistant(),
            McpResponse.text(f"Recommend one {genre} book{reader}.").asUser(),
        ]

    def complete(self, argument: str, value: str) -> Completion:
        options = GENRES if argument == "genre" else AUDIENCES
        prefix = value.strip().casefold()
        return Completion(values=tuple(option for option in options if option.startswith(prefix)))


# ----------------------------------------------------------------- server


class LibraryServer(Server):
    """Search, inspect and restock the demo library."""

    name = "library"
    version = "1.0.0"
    title = "Demo library"
    description = "The books and authors of the django_mcp demo project."
    instructions = (
        "Use search-books to find books and book-details for one ISBN; read "
        "library://catalog for the whole catalog. set-stock needs the "
        "demo.change_stock permission. reserve-book asks the user who collects "
        "the book; audit-stock runs as a task for clients with the tasks "
        "extension. ISBNs are digits only, no hyphens."
    )
    # Listings would be shareable, but set-stock's permission makes them
    # depend on the caller: the dispatcher then sends them as private.
    cache = CacheHint(ttl_ms=300_000, scope="public")
    tools = (
        SearchBooksTool,
        BookDetailsTool,
        SetStockTool,
        RestockReportTool,
        ReserveBookTool,
        AuditStockTool,
        StockBoardTool,
        StockBoardPageTool,
        # The library's own admin, for staff: the same permissions, forms and history.
        *ModelAdminTools(BookAdmin, prefix="admin-book", actions=("list", "get", "change")),
    )
    resources = (CatalogResource, BookResource, AuthorBooksResource)
    prompts = (RecommendBookPrompt,)
    # Served when the skills extra (PyYAML) is installed, as `bash .ci/demo`
    # and the test extras do (tox's "base" environment has no extras).
    skills = ("restock-check",) if importlib.util.find_spec("yaml") else ()


django_mcp.web("library", LibraryServer)
django_mcp.local("library", LibraryServer)
