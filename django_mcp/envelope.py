"""JSON-RPC messages in and out: parse, validate ``_meta``, encode.

``parse_message`` decodes one message and classifies it (request,
notification, response), raising ``ParseError`` (-32700) for bad JSON and
``InvalidRequest`` (-32600) for a bad envelope: batches, a ``jsonrpc`` other
than "2.0", ids that are not strings or integers (MCP forbids null; a bool
is not an integer). ``read_meta``/``modern_context`` check the per-request
``_meta`` of a 2026-07-28 request (SERVER-CHECKLIST §3: protocolVersion and
clientCapabilities are required, -32602 and HTTP 400 otherwise;
``check_version`` answers -32022 with ``supported``/``requested``).
Encoders are built once and write compact single-line JSON, as STDIO
framing and SSE ``data:`` lines need.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal

import msgspec

from django_mcp.context import LOG_LEVELS
from django_mcp.exceptions import (
    InvalidParams,
    InvalidRequest,
    McpError,
    ParseError,
    UnsupportedProtocolVersion,
)
from django_mcp.protocol import jsonrpc
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.versions import LEGACY_VERSIONS, SUPPORTED_VERSIONS

__all__ = [
    "META_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_SERVER_INFO",
    "META_VERSION",
    "CLIENT_REQUEST_TIMEOUT",
    "CallContext",
    "ClientRequest",
    "Emit",
    "Envelope",
    "Era",
    "MissingMeta",
    "Reply",
    "RequestMeta",
    "check_version",
    "encode_error",
    "encode_notification",
    "encode_request",
    "encode_response",
    "encoded_size",
    "error_reply",
    "is_valid_id",
    "legacy_context",
    "modern_context",
    "parse_message",
    "read_meta",
]

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

Era = Literal["modern", "legacy"]
Emit = Callable[[str, dict[str, Any]], None]
ClientRequest = Callable[[str, dict[str, Any]], Awaitable[Any]]


class MissingMeta(InvalidParams):
    """A modern request lacks a required ``_meta`` key (HTTP 400)."""

    http_status = 400


# --------------------------------------------------------------- envelope


@dataclasses.dataclass(frozen=True, slots=True)
class Envelope:
    """One decoded JSON-RPC message."""

    kind: Literal["request", "notification", "response"]
    id: jsonrpc.RequestId | None = None
    method: str = ""
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    has_params: bool = False
    result: Any = None
    error: Any = None


_message_decoder = msgspec.json.Decoder(jsonrpc.IncomingMessage)
_params_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()

CLIENT_REQUEST_TIMEOUT: Final = 300.0  # seconds
"""How long a 2025-11-25 server-to-client request waits for its answer."""


def is_valid_id(value: Any) -> bool:
    """Return True for an id MCP allows: a string or an integer, never null.

    A bool is an int in Python, so the exact type is checked.
    """
    return isinstance(value, str) or type(value) is int


def parse_message(body: bytes | str) -> Envelope:
    """Decode one JSON-RPC message or raise ``ParseError``/``InvalidRequest``.

    An error raised after the id could be read carries it in ``data``-free
    form through ``exc.request_id`` so the reply can echo it.
    """
    try:
        message = _message_decoder.decode(body)
    except msgspec.ValidationError:
        # Valid JSON but not an object (e.g. a batch array): not a request.
        raise InvalidRequest(
            "Invalid request: expected one JSON-RPC object (batches are not supported)"
        ) from None
    except msgspec.DecodeError:
        raise ParseError("Parse error: body is not valid JSON") from None
    request_id = message.id if is_valid_id(message.id) else None

    def invalid(reason: str) -> InvalidRequest:
        error = InvalidRequest(f"Invalid request: {reason}")
        error.request_id = request_id  # type: ignore[attr-defined]
        return error

    if message.jsonrpc != jsonrpc.JSONRPC_VERSION:
        raise invalid('jsonrpc must be "2.0"')
    if message.id is not UNSET and not is_valid_id(message.id):
        raise invalid("id must be a string or an integer")
    if message.method is UNSET:
        if message.id is UNSET or (message.result is UNSET and message.error is UNSET):
            raise invalid("missing method")
        return Envelope(
            kind="response",
            id=message.id,
            result=None if message.result is UNSET else message.result,
            error=None if message.error is UNSET else message.error,
        )
    if not isinstance(message.method, str) or not message.method:
        raise invalid("method must be a non-empty string")
    params: Any = {}
    if message.params is not UNSET:
        try:
            params = _params_decoder.decode(message.params)
        except msgspec.DecodeError:  # pragma: no cover - the envelope already parsed
            raise ParseError() from None
        if not isinstance(params, dict):
            error = InvalidParams("params must be an object")
            error.request_id = request_id  # type: ignore[attr-defined]
            raise error
    kind: Literal["request", "notification"] = "notification" if message.id is UNSET else "request"
    return Envelope(
        kind=kind,
        id=request_id,
        method=message.method,
        params=params,
        has_params=message.params is not UNSET,
    )


# ---------------------------------------------------------------- context


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
    http_request: Any = None
    user: Any = None
    #: Legacy only: send a server-to-client request and await its result.
    client_request: ClientRequest | None = None
    #: Legacy only: the session (log level, resource subscriptions).
    session: Any = None


@dataclasses.dataclass(frozen=True, slots=True)
class RequestMeta:
    """The per-request ``_meta`` keys of a 2026-07-28 request."""

    protocol_version: str
    client_capabilities: Mapping[str, Any]
    client_info: Mapping[str, Any] | None
    log_level: str | None
    progress_token: Any
    raw: Mapping[str, Any]

    def context(self, *, http_request: Any = None, user: Any = None) -> CallContext:
        """Return the 2026-07-28 ``CallContext`` these keys describe."""
        return CallContext(
            era="modern",
            protocol_version=self.protocol_version,
            client_capabilities=self.client_capabilities,
            client_info=self.client_info,
            log_level=self.log_level,
            progress_token=self.progress_token,
            meta=self.raw,
            http_request=http_request,
            user=user,
        )


def read_meta(envelope: Envelope) -> RequestMeta:
    """Return the request's ``_meta`` or raise ``MissingMeta`` (-32602)."""
    meta = envelope.params.get("_meta")
    if not isinstance(meta, dict):
        raise MissingMeta("Invalid params: params._meta is required")
    version = meta.get(META_VERSION)
    if not isinstance(version, str):
        raise MissingMeta(f"Invalid params: _meta[{META_VERSION!r}] is required")
    capabilities = meta.get(META_CAPABILITIES)
    if not isinstance(capabilities, dict):
        raise MissingMeta(f"Invalid params: _meta[{META_CAPABILITIES!r}] is required")
    client_info = meta.get(META_CLIENT_INFO)
    level = meta.get(META_LOG_LEVEL)
    if level is not None and level not in LOG_LEVELS:
        raise InvalidParams(f"Invalid params: unknown log level {level!r}")
    token = meta.get("progressToken")
    if token is not None and not is_valid_id(token):
        raise InvalidParams("Invalid params: progressToken must be a string or an integer")
    return RequestMeta(
        protocol_version=version,
        client_capabilities=capabilities,
        client_info=client_info if isinstance(client_info, dict) else None,
        log_level=level,
        progress_token=token,
        raw=meta,
    )


def check_version(version: str) -> None:
    """Raise ``UnsupportedProtocolVersion`` unless ``version`` is modern and served."""
    if version not in _MODERN:
        raise UnsupportedProtocolVersion(
            data={"supported": list(_MODERN), "requested": version},
        )


_MODERN = tuple(v for v in SUPPORTED_VERSIONS if v not in LEGACY_VERSIONS)


def legacy_context(
    envelope: Envelope,
    session: Any,
    *,
    http_request: Any = None,
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
        http_request=http_request,
        user=user,
        client_request=client_request,
        session=session,
    )


def modern_context(envelope: Envelope, *, http_request: Any = None, user: Any = None) -> CallContext:
    """Validate a 2026-07-28 request's ``_meta`` and return its context."""
    meta = read_meta(envelope)
    check_version(meta.protocol_version)
    return meta.context(http_request=http_request, user=user)


# --------------------------------------------------------------- encoding


def encode_error(request_id: Any, error: McpError) -> bytes:
    """Return a JSON-RPC error response (no ``id`` member when unknown)."""
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if is_valid_id(request_id):
        body["id"] = request_id
    body["error"] = jsonrpc.ErrorObject(
        code=error.code, message=error.message, data=UNSET if error.data is None else error.data
    )
    return _encoder.encode(body)


def encode_notification(method: str, params: Mapping[str, Any] | None = None) -> bytes:
    """Return an encoded JSON-RPC notification."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    return _encoder.encode(body)


@dataclasses.dataclass(frozen=True, slots=True)
class Reply:
    """An encoded response and the HTTP status a transport should use."""

    body: bytes
    status: int = 200
    error: McpError | None = None


def error_reply(request_id: Any, error: McpError) -> Reply:
    """Return the ``Reply`` for a JSON-RPC error."""
    return Reply(encode_error(request_id, error), error.http_status, error)


class _Response(msgspec.Struct, frozen=True):
    jsonrpc: str
    id: Any
    result: Any


def encode_request(request_id: Any, method: str, params: Mapping[str, Any]) -> bytes:
    """Return an encoded server-to-client JSON-RPC request (2025-11-25 only)."""
    return _encoder.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def encode_response(request_id: Any, result: Any) -> bytes:
    """Return an encoded JSON-RPC success response carrying ``result``."""
    return _encoder.encode(_Response(jsonrpc="2.0", id=request_id, result=result))


def encoded_size(value: Any) -> int:
    """Return the number of bytes ``value`` takes as JSON."""
    return len(_encoder.encode(value))
