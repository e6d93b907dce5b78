"""JSON-RPC 2.0 envelopes and the error codes MCP uses.

Codes are pinned to MCP revision 2026-07-28 (basic/index, "Error codes"),
with the 2025-11-25 resource-not-found code kept for legacy sessions.
Batches are not part of MCP: an array body is an invalid request.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from django_mcp.protocol._base import UNSET, UnsetType

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "LEGACY_RESOURCE_NOT_FOUND",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "ErrorObject",
    "IncomingMessage",
    "RequestId",
]

JSONRPC_VERSION: Final = "2.0"
"""The only ``jsonrpc`` value MCP accepts."""

PARSE_ERROR: Final = -32700
"""The body or line is not valid JSON (JSON-RPC 2.0)."""
INVALID_REQUEST: Final = -32600
"""Not a valid JSON-RPC request object (JSON-RPC 2.0)."""
METHOD_NOT_FOUND: Final = -32601
"""Unknown method, or a feature the server did not advertise (HTTP 404)."""
INVALID_PARAMS: Final = -32602
"""Bad params, unknown tool/prompt/resource, bad cursor (2026-07-28)."""
INTERNAL_ERROR: Final = -32603
"""Unexpected server failure (JSON-RPC 2.0)."""
HEADER_MISMATCH: Final = -32020
"""HTTP header missing or different from the body (2026-07-28, HTTP 400)."""
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
"""A needed client capability was not declared (2026-07-28, HTTP 400)."""
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""The requested protocol version is not served (2026-07-28, HTTP 400)."""
LEGACY_RESOURCE_NOT_FOUND: Final = -32002
"""Resource not found in 2025-11-25 sessions only; never on 2026-07-28."""

#: A JSON-RPC id: MCP allows strings and integers, never null.
RequestId = str | int


class ErrorObject(msgspec.Struct, omit_defaults=True, frozen=True):
    """The ``error`` member of a JSON-RPC error response."""

    code: int
    message: str
    data: Any | UnsetType = UNSET


class IncomingMessage(msgspec.Struct, frozen=True):
    """Any JSON-RPC message, decoded loosely so every field can be checked.

    ``params`` stays raw so tool arguments decode straight into their Schema.
    """

    jsonrpc: Any = UNSET
    id: Any = UNSET
    method: Any = UNSET
    params: msgspec.Raw | UnsetType = UNSET
    result: Any = UNSET
    error: Any = UNSET
