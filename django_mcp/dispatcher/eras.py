"""Era finishing: what a result and an error look like in each protocol revision.

2026-07-28 (MCP 2026-07-28 basic/index, server/utilities/caching): every
result carries ``resultType``; discover and list results carry ``ttlMs`` and
``cacheScope`` (the server's ``cache`` hint, private whenever lists depend
on the caller; reads set their own in ``resources.py``); with
``MCP_SERVER_INFO`` on, ``_meta["io.modelcontextprotocol/serverInfo"]``
names the server.

2025-11-25: none of those members exist. An empty result is ``{}``;
non-object ``structuredContent`` is dropped (that revision requires an
object; the JSON text block still carries the value). A missing resource is
-32002 (not -32602), and -32021 (missing client capability) did not exist,
so it becomes -32602.
"""

from __future__ import annotations

from typing import Any

import msgspec

from django_mcp.dispatcher.context import META_SERVER_INFO, Call
from django_mcp.exceptions import InvalidParams, McpError, MissingClientCapability, ResourceNotFound
from django_mcp.protocol import jsonrpc
from django_mcp.protocol._base import UNSET, UnsetType
from django_mcp.protocol.results import CallToolResult, EmptyResult, InputRequiredResult

__all__ = ["finish", "legacy_error"]


def finish(call: Call, result: Any) -> Any:
    """Return ``result`` decorated (2026-07-28) or shaped (2025-11-25) for the caller."""
    if call.ctx.era == "legacy":
        return _legacy(result)
    changes: dict[str, Any] = {}
    if getattr(result, "ttl_ms", None) is UNSET and not isinstance(result, InputRequiredResult):
        compiled = call.compiled
        changes["ttl_ms"] = compiled.cache.ttl_ms
        changes["cache_scope"] = "private" if compiled.caller_dependent else compiled.cache.scope
    if call.settings.server_info and hasattr(result, "meta"):
        meta = {} if result.meta is UNSET else dict(result.meta)
        meta[META_SERVER_INFO] = call.compiled.info
        changes["meta"] = meta
    return msgspec.structs.replace(result, **changes) if changes else result


def _legacy(result: Any) -> Any:
    if isinstance(result, EmptyResult):
        return {}
    changes: dict[str, Any] = {"result_type": UNSET}
    if hasattr(result, "ttl_ms"):
        changes["ttl_ms"] = UNSET
        changes["cache_scope"] = UNSET
    if isinstance(result, CallToolResult) and not isinstance(result.structuredContent, dict | UnsetType):
        changes["structuredContent"] = UNSET
    return msgspec.structs.replace(result, **changes)


def legacy_error(error: McpError) -> McpError:
    """Return ``error`` as a 2025-11-25 session must see it."""
    if isinstance(error, ResourceNotFound):
        legacy = McpError(error.message, data=error.data)
        legacy.code = jsonrpc.LEGACY_RESOURCE_NOT_FOUND  # type: ignore[misc]
        return legacy
    if isinstance(error, MissingClientCapability):
        return InvalidParams(error.message, data=error.data)
    return error
