"""What a result and an error look like in each protocol revision.

2026-07-28 (MCP 2026-07-28 basic/index, server/utilities/caching): every
result carries ``resultType``; discover and list results carry ``ttlMs`` and
``cacheScope`` (the server's cache hint, private whenever lists depend on the
caller; reads set their own in ``resources.py``); with ``MCP_SERVER_INFO``
on, ``_meta["io.modelcontextprotocol/serverInfo"]`` names the server.

2025-11-25: none of those members exist. An empty result is ``{}``;
non-object ``structuredContent`` is dropped (that revision requires an
object; the JSON text block still carries the value). A missing resource is
-32002 (not -32602), and -32021 (missing client capability) did not exist,
so it becomes -32602.

``ToolReplies`` encodes the usual 2026-07-28 ``tools/call`` answer without
finishing it first: the bytes that are the same in every such answer (the
JSON-RPC members around the id, ``resultType`` and the server-info
``_meta``) are encoded once per dispatcher and settings.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from django_mcp.conf import McpSettings
from django_mcp.dispatcher.codec import Reply, encode_message, encoded_size, error_reply, oversized
from django_mcp.dispatcher.context import Call
from django_mcp.exceptions import InvalidParams, McpError, MissingClientCapability, ResourceNotFound
from django_mcp.protocol import jsonrpc
from django_mcp.protocol._base import UNSET, UnsetType
from django_mcp.protocol.meta import META_SERVER_INFO
from django_mcp.protocol.results import CallToolResult, EmptyResult, InputRequiredResult
from django_mcp.server.compiler import CompiledServer

__all__ = ["ToolReplies", "finish", "legacy_error"]

#: How a ``CallToolResult`` without ``_meta`` starts, encoded: the server's
#: own bytes replace it.
_PLAIN_HEAD: Final = b'{"resultType":"complete",'


def finish(call: Call, result: Any) -> Any:
    """Return ``result`` decorated (2026-07-28) or shaped (2025-11-25) for the caller."""
    if call.ctx.era == "legacy":
        return _legacy_result(result)
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


def _legacy_result(result: Any) -> Any:
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


class ToolReplies:
    """Encode a 2026-07-28 ``tools/call`` answer around bytes encoded once.

    The answer is the same bytes ``finish()`` and one encoding of the
    JSON-RPC response would make; its size is checked against
    ``MCP_MAX_RESPONSE_SIZE`` as it is made.
    """

    __slots__ = ("_head", "_limit", "_usable")

    def __init__(self, compiled: CompiledServer, settings: McpSettings) -> None:
        meta = b""
        # False when the server-info _meta alone is over
        # MCP_MAX_METADATA_SIZE: the general path refuses each answer.
        self._usable = True
        if settings.server_info:
            info = {META_SERVER_INFO: compiled.info}
            meta = b'"_meta":' + encode_message(info) + b","
            limit = settings.limits.max_metadata_size
            # A limit of the wrong type is the system check's to report
            # (django_mcp.E001), not a reason to fail on a settings change:
            # the general path then serves, as it did before these bytes.
            self._usable = type(limit) is int and encoded_size(info) <= limit
        self._head = b',"result":' + _PLAIN_HEAD + meta
        self._limit = settings.limits.max_response_size

    def reply(self, request_id: Any, method: str, result: CallToolResult) -> Reply | None:
        """Return the encoded answer to request ``request_id`` carrying ``result``.

        None for a result these bytes do not encode (one carrying ``_meta``
        or another ``resultType``), or when the server-info ``_meta`` alone
        is over ``MCP_MAX_METADATA_SIZE``: ``finish()`` and the general
        encoding serve those.
        """
        if not self._usable or result.meta is not UNSET or result.result_type != "complete":
            return None
        body = b"".join(
            (
                b'{"jsonrpc":"2.0","id":',
                encode_message(request_id),
                self._head,
                encode_message(result)[len(_PLAIN_HEAD) :],
                b"}",
            )
        )
        if len(body) > self._limit:
            refusal = oversized(len(body), self._limit, what="Response", label=f"Response to {method}")
            if refusal is not None:
                return error_reply(request_id, refusal)
        return Reply(body, result=result)
