"""The floor: answer the benchmark's requests with msgspec and nothing else.

No header checks, no validation beyond decoding, no sessions: the least a
Python server can do to give the same answers as the MCP servers. The three
floor servers (``floor_asgi``, ``floor_django_async``,
``floor_django_sync``) wrap ``answer()`` in a bare ASGI app and in bare Django
views, so each floor is the cost of its stack plus this function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from _bench import FILLER_DESCRIPTION, filler_names

__all__ = ["answer"]

_ITEM_PREFIX = "bench://items/"
_TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class _Message(msgspec.Struct):
    method: str
    id: int | str | None = None
    params: dict[str, Any] = {}


_decode = msgspec.json.Decoder(_Message).decode
_encode = msgspec.json.Encoder().encode


def _catalog(*, orm: bool) -> list[dict[str, Any]]:
    fixed = [
        {"name": "echo", "description": "Return the text unchanged.", "inputSchema": _TEXT_SCHEMA},
        {
            "name": "sum_product",
            "description": "Return the sum and the product of two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "integer"}, "product": {"type": "integer"}},
                "required": ["sum", "product"],
            },
        },
    ]
    if orm:
        fixed.append(
            {
                "name": "orm_lookup",
                "description": "Return the name of one item, read through the ORM.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"item_id": {"type": "integer"}},
                    "required": ["item_id"],
                },
            }
        )
    fillers = [
        {"name": name, "description": FILLER_DESCRIPTION, "inputSchema": _TEXT_SCHEMA}
        for name in filler_names(fixed=len(fixed))
    ]
    return fixed + fillers


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


class Floor:
    """Answer JSON-RPC bodies; ``lookup`` reads an item (None: no ORM tool)."""

    def __init__(self, lookup: Callable[[int], str] | None = None) -> None:
        self.tools = _catalog(orm=lookup is not None)
        self.names = frozenset(tool["name"] for tool in self.tools)
        self.lookup = lookup

    def parse(self, body: bytes) -> _Message:
        """Decode one JSON-RPC message."""
        return _decode(body)

    def answer(self, message: _Message, orm_result: str | None = None) -> bytes | None:
        """Return the encoded response, or None for a notification."""
        if message.id is None:
            return None
        params = message.params
        result: dict[str, Any]
        if message.method == "tools/call" and params.get("name") in self.names:
            arguments = params.get("arguments") or {}
            name = params["name"]
            if name == "sum_product":
                a, b = arguments["a"], arguments["b"]
                structured = {"sum": a + b, "product": a * b}
                result = _text(_encode(structured).decode())
                result["structuredContent"] = structured
            elif name == "orm_lookup":
                result = _text(orm_result or "")
            else:
                result = _text(arguments["text"])
        elif message.method == "resources/read" and params.get("uri", "").startswith(_ITEM_PREFIX):
            uri = params["uri"]
            text = f"item {uri[len(_ITEM_PREFIX) :]}"
            result = {"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}
        elif message.method == "prompts/get" and params.get("name") == "greet":
            text = f"Say hello to {(params.get('arguments') or {})['name']}."
            result = {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
        elif message.method == "tools/list":
            result = {"tools": self.tools}
        elif message.method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "floor", "version": "1"},
            }
        else:
            error = {"code": -32601, "message": "Method not found"}
            return _encode({"jsonrpc": "2.0", "id": message.id, "error": error})
        return _encode({"jsonrpc": "2.0", "id": message.id, "result": result})

    def needs_orm(self, message: _Message) -> int | None:
        """Return the item id when the message calls ``orm_lookup``."""
        if self.lookup is None or message.method != "tools/call":
            return None
        if message.params.get("name") != "orm_lookup":
            return None
        return int((message.params.get("arguments") or {})["item_id"])


def answer(floor: Floor, body: bytes) -> bytes | None:
    """Answer ``body`` synchronously (ORM included): the sync floor's whole job."""
    message = floor.parse(body)
    item_id = floor.needs_orm(message)
    orm_result = floor.lookup(item_id) if item_id is not None and floor.lookup else None
    return floor.answer(message, orm_result)
