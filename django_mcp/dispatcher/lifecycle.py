"""Lifecycle: ``server/discover``, ``ping``, ``initialize`` and ``logging/setLevel``.

``server/discover`` (2026-07-28) lists the supported revisions, the
capabilities (the extensions served, ``extensions.advertised``) and the
instructions; it needs no handshake before it. The
2025-11-25 lifecycle starts with ``initialize``: the server answers the
requested revision when it serves it (else its newest legacy one), the
capabilities without 2026-07-28 extensions, its info and instructions, and
the transport keeps the negotiated state as the session. ``ping`` and
``logging/setLevel`` exist only in that revision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.extensions import advertised
from django_mcp.dispatcher.sessions import stored_size
from django_mcp.exceptions import InvalidParams, MethodNotFound
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import DiscoverResult, EmptyResult
from django_mcp.protocol.versions import SUPPORTED_VERSIONS, negotiate_legacy
from django_mcp.request import LOG_LEVELS
from django_mcp.server.compiler import CompiledServer

__all__ = ["Handshake", "discover", "initialize", "ping", "set_level"]


async def discover(call: Call) -> DiscoverResult:
    """Describe this server (``server/discover``)."""
    compiled = call.compiled
    return DiscoverResult(
        supported_versions=SUPPORTED_VERSIONS,
        capabilities=advertised(compiled, call.settings),
        instructions=compiled.server.instructions or UNSET,
    )


async def ping(call: Call) -> EmptyResult:
    """Answer a 2025-11-25 ``ping``."""
    return EmptyResult()


async def set_level(call: Call) -> EmptyResult:
    """Remember the session's minimum log level (2025-11-25 ``logging/setLevel``)."""
    if call.ctx.session is None:
        raise MethodNotFound("Method not found: logging/setLevel needs a session")
    level = call.params.get("level")
    if level not in LOG_LEVELS:
        raise InvalidParams(f"Invalid params: unknown log level {level!r}")
    await call.ctx.session.set_log_level(level)
    return EmptyResult()


class Handshake:
    """What a 2025-11-25 ``initialize`` negotiated, and the result to answer."""

    __slots__ = ("capabilities", "client_info", "result", "version")

    def __init__(self, compiled: CompiledServer, params: Mapping[str, Any]) -> None:
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict):
            raise InvalidParams("Invalid params: initialize needs a capabilities object")
        client_info = params.get("clientInfo")
        self.version = negotiate_legacy(params.get("protocolVersion"))
        self.capabilities: dict[str, Any] = capabilities
        self.client_info: dict[str, Any] | None = client_info if isinstance(client_info, dict) else None
        self.result: dict[str, Any] = {
            "protocolVersion": self.version,
            "capabilities": compiled.legacy_capabilities,
            "serverInfo": compiled.info,
        }
        if compiled.server.instructions:
            self.result["instructions"] = compiled.server.instructions

    def __repr__(self) -> str:
        return f"Handshake(version={self.version!r})"


def initialize(
    compiled: CompiledServer, params: Mapping[str, Any], *, max_size: int | None = None
) -> Handshake:
    """Negotiate a 2025-11-25 session; raise ``InvalidParams`` for a bad request.

    ``max_size`` bounds the bytes of the capabilities and client info the
    session would store (``MCP_MAX_SESSION_SIZE``; None: unbounded).
    """
    handshake = Handshake(compiled, params)
    if max_size is not None and stored_size(handshake.capabilities, handshake.client_info) > max_size:
        raise InvalidParams(
            f"Invalid params: capabilities and clientInfo exceed MCP_MAX_SESSION_SIZE ({max_size} bytes)"
        )
    return handshake
