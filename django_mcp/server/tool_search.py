"""Tool search: a large catalog listed as two meta-tools, searched on demand.

``Server.tool_search = ToolSearch(threshold=40, always=("help",))`` keeps a
large catalog out of the client's context. When a caller may use more than
``threshold`` tools, ``tools/list`` lists only the tools named in
``always`` (those the caller may use) and two meta-tools:

- ``search_tools`` (``query``, optional ``limit``, 1-50, default 10)
  answers the definitions (name, title, description, input schema,
  annotations) of the caller's tools that match ``query``, best first, in
  ``structuredContent.tools`` and as JSON text. Ranking is Okapi BM25
  (``django_mcp.server._bm25``) over each tool's name, title, description
  and argument names; equal scores keep the declaration order, so the same
  query always answers the same list. A tool the caller may not use is
  never found.
- ``call_tool`` (``name``, ``arguments``) is taken apart before the request
  is served (``django_mcp.dispatcher.tools.unwrap_call_tool``): the request
  is then the ``tools/call`` of the named tool, with its permission check
  (a hidden tool answers like an unknown one), rate limit, task support,
  idempotency key, audit row and telemetry under that tool's name.

A direct ``tools/call`` of any tool keeps working. At or below the
threshold nothing changes: every tool is listed; the meta-tools answer
whenever ``tool_search`` is declared and are listed only above it. The
index is built the first time a search needs it, once per compiled server.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Final

import msgspec

from django_mcp.auth import can_use
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse
from django_mcp.schemas import Schema
from django_mcp.server._bm25 import Bm25Index, words
from django_mcp.server.primitives import Tool, ToolAnnotations

__all__ = [
    "CALL_TOOL",
    "META_TOOLS",
    "SEARCH_TOOLS",
    "CallToolInput",
    "CallToolTool",
    "SearchToolsInput",
    "SearchToolsTool",
    "ToolCatalog",
    "ToolSearch",
]

SEARCH_TOOLS: Final = "search_tools"
"""The name of the meta-tool that searches the catalog."""

CALL_TOOL: Final = "call_tool"
"""The name of the meta-tool that calls a tool found by search."""

META_TOOLS: Final = frozenset({SEARCH_TOOLS, CALL_TOOL})
"""The names a server with tool search keeps for its meta-tools."""

#: What ``search_tools`` answers of each tool's definition, in this order.
_SUMMARY_KEYS: Final = ("name", "title", "description", "inputSchema", "annotations")

#: How many times a tool's name counts against its other words.
_NAME_WEIGHT: Final = 2


@dataclasses.dataclass(frozen=True, slots=True)
class ToolSearch:
    """List a large catalog as ``search_tools`` and ``call_tool`` (``Server.tool_search``).

    ``threshold``: how many tools a caller may use before the list is cut
    down. ``always``: names of tools listed all the same (a caller sees
    those it may use).
    """

    threshold: int = 40
    always: tuple[str, ...] = ()


class SearchToolsInput(Schema):
    """What to look for in the tool catalog."""

    query: Annotated[
        str,
        msgspec.Meta(min_length=1, max_length=1000, description="Words describing the tool you need."),
    ]
    limit: Annotated[int, msgspec.Meta(ge=1, le=50, description="How many tools to return at most.")] = 10


class CallToolInput(Schema):
    """Which tool to call and its arguments."""

    name: Annotated[str, msgspec.Meta(min_length=1, description="The tool's name, as search_tools gave it.")]
    arguments: Annotated[
        dict[str, Any], msgspec.Meta(description="The tool's arguments, as its input schema says.")
    ] = {}


class SearchToolsTool(Tool[SearchToolsInput]):
    """Find tools by what they do.

    Returns the definitions of the best matching tools (name, title,
    description, input schema), best first. Call one with call_tool.
    """

    name = SEARCH_TOOLS
    title = "Search tools"
    annotations = ToolAnnotations(read_only=True, open_world=False)

    async def handle(self, payload: SearchToolsInput, request: McpRequest) -> McpResponse:
        """Return the caller's tools matching the query, best first."""
        catalog: ToolCatalog = request.server.tool_search
        found = await catalog.search(payload.query, payload.limit, request)
        return McpResponse.structured({"tools": found})


class CallToolTool(Tool[CallToolInput]):
    """Call a tool found with search_tools, by name, with its arguments."""

    name = CALL_TOOL
    title = "Call a tool"

    def handle(self, payload: CallToolInput) -> McpResponse:
        """Refuse what the request path did not take apart: a call of ``call_tool`` itself."""
        # Any other valid call was served as the named tool's tools/call
        # before reaching a handler (dispatcher.tools.unwrap_call_tool).
        return McpResponse.error("call_tool cannot call itself")


class ToolCatalog:
    """A server's tools as tool search sees them: compiled, with a lazy index.

    ``entries`` are the compiled tools in declaration order; ``meta`` the
    two compiled meta-tools; ``always`` the compiled tools always listed.
    """

    __slots__ = ("_index", "_lock", "_summaries", "always", "entries", "meta", "threshold")

    def __init__(
        self, *, threshold: int, always: Iterable[Any], entries: Iterable[Any], meta: Mapping[str, Any]
    ) -> None:
        self.threshold = threshold
        self.always = tuple(always)
        self.entries = tuple(entries)
        self.meta = meta
        self._lock = threading.Lock()
        self._index: Bm25Index | None = None
        self._summaries: tuple[dict[str, Any], ...] = ()

    def index(self) -> Bm25Index:
        """Return the BM25 index of the tools, building it on first use."""
        index = self._index
        if index is None:
            with self._lock:
                index = self._index
                if index is None:
                    self._summaries = tuple(_summary(entry.definition) for entry in self.entries)
                    index = self._index = Bm25Index([_document(entry.definition) for entry in self.entries])
        return index

    async def search(self, query: str, limit: int, request: McpRequest) -> list[dict[str, Any]]:
        """Return the summaries of at most ``limit`` usable tools matching ``query``, best first."""
        found: list[dict[str, Any]] = []
        for position in self.index().rank(words(query)):
            if await can_use(self.entries[position], request):
                found.append(self._summaries[position])
                if len(found) >= limit:
                    break
        return found


def _document(definition: Any) -> list[str]:
    """Return the words a tool is found by: name (weighted), title, description, arguments."""
    found = words(definition.name) * _NAME_WEIGHT
    for text in (definition.title, definition.description):
        if isinstance(text, str):
            found.extend(words(text))
    properties = definition.input_schema.get("properties")
    if isinstance(properties, Mapping):
        for argument in properties:
            if isinstance(argument, str):
                found.extend(words(argument))
    return found


def _summary(definition: Any) -> dict[str, Any]:
    """Return what ``search_tools`` answers for a tool: its definition's essentials."""
    full = msgspec.to_builtins(definition)
    return {key: full[key] for key in _SUMMARY_KEYS if key in full}
