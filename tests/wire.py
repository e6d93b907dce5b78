"""Build 2026-07-28 requests and serve them in-process, as a transport would.

Test modules import these helpers as ``from tests.wire import ...`` (tests
run with ``--import-mode=importlib`` and the repository root on
``sys.path``). The builders return plain JSON-RPC objects, for any
transport; ``serve`` and ``call`` send one through a real ``Dispatcher``:
encode, ``parse_message``, ``modern_context``, ``Dispatcher.respond``,
decode. HTTP and STDIO framing stay with their transport tests
(``tests/transports/conftest.py``, ``tests/transports/test_stdio.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from django_mcp import Server
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import encode_error, parse_message
from django_mcp.dispatcher.context import Emit, modern_context
from django_mcp.exceptions import McpError

MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"

CLIENT_INFO = {"name": "wire-tests", "version": "1.0.0"}

# -------------------------------------------------------------- builders


def modern_meta(capabilities: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """Return a complete 2026-07-28 request ``_meta``; ``extra`` keys are added."""
    return {
        META_VERSION: MODERN,
        META_CAPABILITIES: dict(capabilities or {}),
        META_CLIENT_INFO: CLIENT_INFO,
        **extra,
    }


def modern_request(
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    request_id: Any = 1,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return a 2026-07-28 JSON-RPC request; its ``_meta`` is ``meta``, else ``modern_meta()``."""
    body_params = dict(params or {})
    body_params["_meta"] = dict(meta) if meta is not None else modern_meta()
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}


def tool_request(name: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """Return a 2026-07-28 ``tools/call`` request (``kwargs`` as for ``modern_request``)."""
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return modern_request("tools/call", params, **kwargs)


def legacy_initialize(
    capabilities: Mapping[str, Any] | None = None, *, version: str = "2025-11-25"
) -> dict[str, Any]:
    """Return the ``initialize`` request opening a 2025-11-25 session."""
    params = {"protocolVersion": version, "capabilities": dict(capabilities or {}), "clientInfo": CLIENT_INFO}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def modern_headers(body: Mapping[str, Any]) -> dict[str, str]:
    """Return the HTTP headers a conforming client sends with ``body``."""
    params = body.get("params")
    params = params if isinstance(params, Mapping) else {}
    meta = params.get("_meta") or {}
    headers = {"Accept": ACCEPT}
    if isinstance(meta, Mapping) and isinstance(meta.get(META_VERSION), str):
        headers["MCP-Protocol-Version"] = meta[META_VERSION]
    method = body.get("method")
    if not isinstance(method, str):
        return headers
    headers["Mcp-Method"] = method
    name_key = {
        "tools/call": "name",
        "prompts/get": "name",
        "resources/read": "uri",
        "tasks/get": "taskId",
        "tasks/update": "taskId",
        "tasks/cancel": "taskId",
    }.get(method)
    if name_key and isinstance(params.get(name_key), str):
        headers["Mcp-Name"] = params[name_key]
    return headers


# --------------------------------------------------------------- serving


async def serve(
    target: type[Server] | Dispatcher,
    body: Mapping[str, Any],
    *,
    user: Any = None,
    emit: Emit | None = None,
) -> tuple[int, dict[str, Any]]:
    """Serve ``body`` with ``target`` (a server class or a dispatcher).

    Returns the HTTP status a transport would use and the decoded reply. A
    message that does not parse, or whose ``_meta`` is refused, is answered
    with its encoded error, as the HTTP transport does.
    """
    dispatcher = target if isinstance(target, Dispatcher) else Dispatcher(target.compiled())
    try:
        envelope = parse_message(msgspec.json.encode(body))
    except McpError as error:
        return 400, msgspec.json.decode(encode_error(getattr(error, "request_id", None), error))
    try:
        ctx = modern_context(envelope, user=user)
    except McpError as error:
        return error.http_status, msgspec.json.decode(encode_error(envelope.id, error))
    reply = await dispatcher.respond(envelope, ctx, emit)
    return reply.status, msgspec.json.decode(reply.body)


async def call(
    target: type[Server] | Dispatcher,
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    user: Any = None,
    emit: Emit | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Serve a ``modern_request(method, params, **kwargs)``; return the decoded reply."""
    _, reply = await serve(target, modern_request(method, params, **kwargs), user=user, emit=emit)
    return reply
