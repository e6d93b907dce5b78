"""Who is calling and how: the per-request context of both protocol eras.

A 2026-07-28 request is stateless: its ``params._meta`` must carry
``io.modelcontextprotocol/protocolVersion`` and
``io.modelcontextprotocol/clientCapabilities`` (-32602, HTTP 400 otherwise;
MCP 2026-07-28 basic/index "Request metadata"), and a version this server
does not speak is -32022 with ``supported``/``requested``. A 2025-11-25
request takes version, capabilities and log level from its session; only a
``progressToken`` comes with the request.

``era_of`` decides which era serves a message, for every transport.
``CallContext`` is what a transport knows about the caller (built here
only: ``modern_context``, ``legacy_context``, ``stored_context``); ``Call``
is what each method handler receives: the compiled server, the settings,
the message, the context and the ``McpRequest`` handed to user code
(built by ``McpRequest.of`` only).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from django_mcp._types import HttpSource
from django_mcp.dispatcher.codec import Envelope, is_valid_id
from django_mcp.exceptions import HeaderMismatch, InvalidParams, MissingMeta, UnsupportedProtocolVersion
from django_mcp.protocol.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION
from django_mcp.protocol.versions import MODERN_VERSIONS, is_legacy
from django_mcp.request import LOG_LEVELS, McpRequest
from django_mcp.server.compiler import CompiledServer, CompiledTool

if TYPE_CHECKING:
    from django_mcp.conf import McpSettings

__all__ = [
    "Call",
    "CallContext",
    "ClientRequest",
    "Emit",
    "Era",
    "check_version",
    "era_of",
    "is_modern",
    "legacy_context",
    "modern_context",
    "stored_context",
]

Era = Literal["modern", "legacy"]
#: Send one notification (method, params) on the request's own stream.
Emit = Callable[[str, dict[str, Any]], None]
#: Send a 2025-11-25 server-to-client request and await the client's result.
ClientRequest = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclasses.dataclass(slots=True)
class CallContext:
    """What the transport knows about the caller of one request."""

    era: Era
    protocol_version: str
    client_capabilities: Mapping[str, Any]
    client_info: Mapping[str, Any] | None = None
    log_level: str | None = None
    progress_token: Any = None
    meta: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: The HTTP request the message arrived in (None over STDIO, in tests).
    http: HttpSource | None = None
    user: Any = None
    #: Legacy only: send a server-to-client request and await its result.
    client_request: ClientRequest | None = None
    #: Legacy only: the session (log level, resource subscriptions).
    session: Any = None
    #: The transport's own check of a ``tools/call`` of a tool the caller may
    #: use (HTTP: the ``Mcp-Param-*`` headers); raises an ``McpError``.
    check_call: Callable[[CompiledTool, dict[str, Any]], None] | None = None


@dataclasses.dataclass(slots=True)
class Call:
    """One request being served: what each method handler receives.

    ``request``, the ``McpRequest`` user code sees, is built when first
    asked for: a call whose handler takes none never builds one.
    """

    compiled: CompiledServer
    settings: McpSettings
    envelope: Envelope
    #: The request's params (``envelope.params``).
    params: dict[str, Any]
    ctx: CallContext
    emit: Emit | None
    #: The ``McpRequest``, once built (``request``).
    built: McpRequest | None = None

    @property
    def request(self) -> McpRequest:
        """Return the ``McpRequest`` of this call, building it on first use."""
        request = self.built
        if request is None:
            request = self.built = McpRequest.of(self.compiled, self.envelope, self.ctx, self.emit)
        return request


def era_of(
    envelope: Envelope, *, in_session: bool, version_header: str | None = None
) -> Literal["modern", "legacy", "initialize"] | None:
    """Return which protocol era serves a message: one rule for HTTP and STDIO.

    * a ``_meta`` naming a protocol version: ``"modern"`` (a stale session
      id beside it is ignored, MCP 2026-07-28 basic/transports);
    * in a 2025-11-25 session: ``"legacy"`` (an ``initialize`` there is
      refused by the session);
    * ``initialize`` otherwise: ``"initialize"``, the 2025-11-25 handshake;
    * an ``MCP-Protocol-Version`` header (HTTP): ``"modern"`` unless it names
      a 2025-11-25-era revision; a ``_meta`` without a version: ``"modern"``
      (both then fail ``modern_context`` with the precise error);
    * else None: neither era can serve it (HTTP answers 400, STDIO takes it
      as a 2026-07-28 request without its ``_meta``).
    """
    meta = envelope.params.get("_meta")
    if isinstance(meta, dict) and META_VERSION in meta:
        return "modern"
    if in_session:
        return "legacy"
    if envelope.method == "initialize":
        return "initialize"
    if version_header is not None:
        return None if is_legacy(version_header) else "modern"
    return "modern" if isinstance(meta, dict) else None


def is_modern(envelope: Envelope) -> bool:
    """Return True when a message names its protocol version in ``_meta``."""
    meta = envelope.params.get("_meta")
    return isinstance(meta, dict) and META_VERSION in meta


def modern_context(
    envelope: Envelope,
    *,
    http: HttpSource | None = None,
    user: Any = None,
    version_header: str | None = None,
    header_required: bool = False,
) -> CallContext:
    """Validate a 2026-07-28 request's ``_meta`` and return its context.

    Over HTTP, ``version_header`` is the ``MCP-Protocol-Version`` header,
    which must be sent (``header_required``) and equal the body's version
    (-32020, MCP 2026-07-28 basic/transports/streamable-http).

    Raises:
        MissingMeta: a required ``_meta`` key is absent (-32602, HTTP 400).
        InvalidParams: a malformed log level or progress token.
        HeaderMismatch: the version header is missing or disagrees.
        UnsupportedProtocolVersion: the version is not served (-32022).
    """
    meta = envelope.params.get("_meta")
    if header_required and version_header is None and isinstance(meta, dict):
        raise HeaderMismatch("Header mismatch: MCP-Protocol-Version header is required")
    if not isinstance(meta, dict):
        raise MissingMeta("Invalid params: params._meta is required")
    version = meta.get(META_VERSION)
    if not isinstance(version, str):
        raise MissingMeta(f"Invalid params: _meta[{META_VERSION!r}] is required")
    capabilities = meta.get(META_CAPABILITIES)
    if not isinstance(capabilities, dict):
        raise MissingMeta(f"Invalid params: _meta[{META_CAPABILITIES!r}] is required")
    level = meta.get(META_LOG_LEVEL)
    if level is not None and level not in LOG_LEVELS:
        raise InvalidParams(f"Invalid params: unknown log level {level!r}")
    token = meta.get("progressToken")
    if token is not None and not is_valid_id(token):
        raise InvalidParams("Invalid params: progressToken must be a string or an integer")
    if version_header is not None and version_header != version:
        raise HeaderMismatch(
            f"Header mismatch: MCP-Protocol-Version header value {version_header!r} does not "
            f"match body value {version!r}"
        )
    check_version(version)
    client_info = meta.get(META_CLIENT_INFO)
    return CallContext(
        era="modern",
        protocol_version=version,
        client_capabilities=capabilities,
        client_info=client_info if isinstance(client_info, dict) else None,
        log_level=level,
        progress_token=token,
        meta=meta,
        http=http,
        user=user,
    )


def check_version(version: str) -> None:
    """Raise ``UnsupportedProtocolVersion`` unless ``version`` is modern and served."""
    if version not in MODERN_VERSIONS:
        raise UnsupportedProtocolVersion(data={"supported": list(MODERN_VERSIONS), "requested": version})


def legacy_context(
    envelope: Envelope,
    session: Any,
    *,
    http: HttpSource | None = None,
    user: Any = None,
    client_request: ClientRequest | None = None,
) -> CallContext:
    """Return the context of a request inside a 2025-11-25 session.

    ``session`` holds what ``initialize`` negotiated (``version``,
    ``capabilities``, ``client_info``) and the level ``logging/setLevel``
    chose; the request itself may only add a ``progressToken``.
    """
    meta = envelope.params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    token = meta.get("progressToken")
    return CallContext(
        era="legacy",
        protocol_version=session.version,
        client_capabilities=session.capabilities,
        client_info=session.client_info,
        log_level=session.log_level,
        progress_token=token if is_valid_id(token) else None,
        meta=meta,
        http=http,
        user=user,
        client_request=client_request,
        session=session,
    )


def stored_context(
    *, protocol_version: str, client_capabilities: Mapping[str, Any], client_info: Any, user: Any
) -> CallContext:
    """Return the context of a call rebuilt from storage (a task's run): no transport, no stream."""
    return CallContext(
        era="modern",
        protocol_version=protocol_version,
        client_capabilities=client_capabilities,
        client_info=client_info if isinstance(client_info, Mapping) else None,
        user=user,
    )
