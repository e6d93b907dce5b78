"""JSON-RPC messages in and out: parse one message, encode every answer.

``parse_message`` decodes one message and classifies it (request,
notification, response), raising ``ParseError`` (-32700) for bad JSON and
``InvalidRequest`` (-32600) for a bad envelope: batches, a ``jsonrpc`` other
than "2.0", ids that are not strings or integers (MCP 2026-07-28
basic/index: ids are never null; a bool is not an integer). Encoders are
built once and write compact single-line JSON, as STDIO framing and SSE
``data:`` lines need.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeGuard

import msgspec

from django_mcp.conf import DEFAULT_LIMITS
from django_mcp.exceptions import InternalError, InvalidParams, InvalidRequest, McpError, ParseError
from django_mcp.protocol import jsonrpc
from django_mcp.protocol._base import UNSET

__all__ = [
    "CLIENT_REQUEST_TIMEOUT",
    "Envelope",
    "Reply",
    "Response",
    "encode_error",
    "encode_message",
    "encode_notification",
    "encode_request",
    "encode_response",
    "encoded_size",
    "error_reply",
    "is_valid_id",
    "oversized",
    "parse_message",
]

CLIENT_REQUEST_TIMEOUT: Final = 300.0  # seconds
"""How long a 2025-11-25 server-to-client request waits for its answer."""

MAX_JSON_DEPTH: Final = DEFAULT_LIMITS.max_json_depth
"""How deeply a message may nest arrays and objects (``MCP_MAX_JSON_DEPTH``'s default).

Far above what real requests use, far below the interpreter's recursion
limit, which deeper values would reach in later steps (validation,
encoding) as a ``RecursionError``.
"""


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


@dataclasses.dataclass(frozen=True, slots=True)
class Reply:
    """An encoded response and the HTTP status a transport should use."""

    body: bytes
    status: int = 200
    error: McpError | None = None
    #: The finished result before encoding (a success), for observers
    #: (``django_mcp.observability``): its ``isError``, a task, input asked.
    result: Any = dataclasses.field(default=None, compare=False, repr=False)


_message_decoder = msgspec.json.Decoder(jsonrpc.IncomingMessage)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


def is_valid_id(value: Any) -> TypeGuard[str | int]:
    """Return True for an id MCP allows: a string or an integer, never null.

    A bool is an int in Python, so the exact type is checked.
    """
    return isinstance(value, str) or type(value) is int


def parse_message(body: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> Envelope:
    """Decode one JSON-RPC message or raise ``ParseError``/``InvalidRequest``.

    A message nesting arrays and objects deeper than ``max_depth`` levels
    (the message object itself is level 1), repeating a key inside one
    object, or holding a number no JSON parser can represent (``1e400``) is
    an ``InvalidRequest``. An error raised after the id could be read
    carries it as ``exc.request_id`` so the reply can echo it.
    """
    # One decode serves the envelope, its params and the repeated-key check.
    try:
        message = _any_decoder.decode(body)
    except msgspec.ValidationError:  # the only one: a number past float range
        raise _out_of_range(body) from None
    except msgspec.DecodeError:
        raise ParseError("Parse error: body is not valid JSON") from None
    except RecursionError:
        raise _too_deep(_readable_id(body), max_depth) from None
    if type(message) is not dict:
        # Valid JSON but not an object (e.g. a batch array): not a request.
        raise InvalidRequest(_NOT_ONE_OBJECT)
    get = message.get
    raw_id = get("id", UNSET)
    request_id = raw_id if is_valid_id(raw_id) else None

    def invalid(reason: str) -> InvalidRequest:
        error = InvalidRequest(f"Invalid request: {reason}")
        error.request_id = request_id  # type: ignore[attr-defined]
        return error

    if get("jsonrpc") != jsonrpc.JSONRPC_VERSION:
        raise invalid('jsonrpc must be "2.0"')
    if raw_id is not UNSET and request_id is None:
        raise invalid("id must be a string or an integer")
    has_params = "params" in message
    params = message["params"] if has_params else {}
    result, error = get("result", UNSET), get("error", UNSET)
    # Cheap first: fewer brackets than the limit cannot nest deeper than it.
    if isinstance(body, bytes):
        opened = body.count(b"[") + body.count(b"{")
    else:
        opened = body.count("[") + body.count("{")
    if opened > max_depth and _nests_deeper(
        (params, None if result is UNSET else result, None if error is UNSET else error), max_depth
    ):
        raise _too_deep(request_id, max_depth)
    duplicate = _duplicate_key(body, message)
    if duplicate is not None:
        # RFC 8259 leaves repeated names undefined; a proxy keeping the first
        # value and this server the last would disagree about the request.
        raise invalid(f"the key {duplicate!r} appears twice in one object")
    method = get("method", UNSET)
    if method is UNSET:
        if raw_id is UNSET or (result is UNSET and error is UNSET):
            raise invalid("missing method")
        return Envelope(
            kind="response",
            id=raw_id,
            result=None if result is UNSET else result,
            error=None if error is UNSET else error,
        )
    if not isinstance(method, str) or not method:
        raise invalid("method must be a non-empty string")
    if has_params and not isinstance(params, dict):
        invalid_params = InvalidParams("params must be an object")
        invalid_params.request_id = request_id  # type: ignore[attr-defined]
        raise invalid_params
    return Envelope(
        kind="notification" if raw_id is UNSET else "request",
        id=request_id,
        method=method,
        params=params,
        has_params=has_params,
    )


def _echoable(message: jsonrpc.IncomingMessage) -> bool:
    """Return True when a message's fault may be answered with its id: its envelope itself is sound."""
    return message.jsonrpc == jsonrpc.JSONRPC_VERSION and is_valid_id(message.id)


def _readable_id(body: bytes | str) -> Any:
    """Return the id of a message the one decode refused (too deep), None unless its envelope is sound.

    Its envelope, read with the params left undecoded, tells whether the
    fault lies in ``params`` (the id can then be echoed) or in the envelope.
    """
    try:
        message = _message_decoder.decode(body)
    except (msgspec.MsgspecError, RecursionError):
        return None
    return message.id if _echoable(message) else None


def _out_of_range(body: bytes | str) -> McpError:
    """Return the error for a message holding a number past float range."""
    try:
        message = _message_decoder.decode(body)
    except msgspec.ValidationError as exc:
        if str(exc).startswith(_OUT_OF_RANGE):
            return InvalidRequest(_OUT_OF_RANGE_MESSAGE)
        return InvalidRequest(_NOT_ONE_OBJECT)
    except (msgspec.MsgspecError, RecursionError):  # pragma: no cover - the one decode read it
        return ParseError("Parse error: body is not valid JSON")
    if not _echoable(message):
        # The envelope itself is refused, as when the number is elsewhere.
        return InvalidRequest(_OUT_OF_RANGE_MESSAGE)
    error = InvalidParams("Invalid params: a number is out of range for JSON")
    error.request_id = message.id  # type: ignore[attr-defined]
    return error


encode_message: Final[Callable[[Any], bytes]] = _encoder.encode
"""Return one outgoing JSON-RPC message as compact single-line JSON.

Every message the server sends is encoded here, whatever its kind (a
``Response`` struct, an error object, a notification or request dict).
"""


_OUT_OF_RANGE: Final = "Number out of range"
_OUT_OF_RANGE_MESSAGE: Final = "Invalid request: a number is out of range for JSON"
_NOT_ONE_OBJECT: Final = "Invalid request: expected one JSON-RPC object (batches are not supported)"


def _duplicate_key(body: bytes | str, decoded: Any) -> str | None:
    """Return a key repeated inside one JSON object of ``body`` (``decoded``), if any.

    msgspec keeps the last of repeated keys silently. The standard library's
    C parser can hand over every object as its list of pairs instead (a
    hook that is itself C code), which one iterative pass then checks.

    That costs more than the rest of the parse, so a cheaper proof that no
    key repeats comes first. Every ``:`` outside a string follows a key.
    Re-encoding the decoded value writes each key it kept once, and the
    strings it kept with the same colons, unless the body spelt a colon as
    ``\\u003a``. So without ``\\u`` escapes, a body with as many colons as
    its re-encoding repeated no key: a repeated one (and its dropped value)
    would add at least one more.
    """
    try:
        raw = body if isinstance(body, bytes) else body.encode()
    except UnicodeError:  # pragma: no cover - msgspec parsed it already
        raw = b"\\u"
    if b"\\u" not in raw and raw.count(b":") == _encoder.encode(decoded).count(b":"):
        return None
    try:
        root = json.loads(body, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):  # pragma: no cover - msgspec parsed it already
        return None
    stack: list[Any] = [root]
    while stack:
        value = stack.pop()
        if type(value) is _Pairs:
            keys = [key for key, _item in value]
            if len(set(keys)) != len(keys):
                seen: set[str] = set()
                for key in keys:
                    if key in seen:
                        return str(key)
                    seen.add(key)
            stack.extend(item for _key, item in value if isinstance(item, list))
        elif type(value) is list:
            stack.extend(item for item in value if isinstance(item, list))
    return None


class _Pairs(list):  # type: ignore[type-arg]
    """One JSON object as the parser saw it: its ``(key, value)`` pairs, in order."""

    __slots__ = ()


def _too_deep(request_id: Any, max_depth: int) -> InvalidRequest:
    error = InvalidRequest(
        f"Invalid request: JSON nested deeper than {max_depth} levels (MCP_MAX_JSON_DEPTH)"
    )
    error.request_id = request_id  # type: ignore[attr-defined]
    return error


def _nests_deeper(members: tuple[Any, ...], max_depth: int) -> bool:
    """Return True when the message's members nest deeper than ``max_depth``."""
    # Iterative: the point is not to recurse. Members sit at level 2.
    stack: list[tuple[Any, int]] = [(value, 2) for value in members if isinstance(value, dict | list)]
    while stack:
        value, depth = stack.pop()
        if depth > max_depth:
            return True
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


class Response(msgspec.Struct, frozen=True):
    """A JSON-RPC success response, encoded by ``encode_message``."""

    jsonrpc: str
    id: Any
    result: Any


def encode_response(request_id: Any, result: Any) -> bytes:
    """Return an encoded JSON-RPC success response carrying ``result``."""
    return encode_message(Response(jsonrpc="2.0", id=request_id, result=result))


def encode_error(request_id: Any, error: McpError) -> bytes:
    """Return a JSON-RPC error response (no ``id`` member when unknown)."""
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if is_valid_id(request_id):
        body["id"] = request_id
    body["error"] = jsonrpc.ErrorObject(
        code=error.code, message=error.message, data=UNSET if error.data is None else error.data
    )
    return encode_message(body)


def error_reply(request_id: Any, error: McpError) -> Reply:
    """Return the ``Reply`` for a JSON-RPC error."""
    return Reply(encode_error(request_id, error), error.http_status, error)


def encode_notification(method: str, params: Mapping[str, Any] | None = None) -> bytes:
    """Return an encoded JSON-RPC notification."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    return encode_message(body)


def encode_request(request_id: Any, method: str, params: Mapping[str, Any]) -> bytes:
    """Return an encoded server-to-client JSON-RPC request (2025-11-25 only)."""
    return encode_message({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def encoded_size(value: Any) -> int:
    """Return the number of bytes ``value`` takes as JSON."""
    return len(_encoder.encode(value))


def oversized(size: int, limit: int, *, what: str, label: str) -> InternalError | None:
    """Return the -32603 refusing a ``what`` (``"Response"``, ``"Result"``) of ``size`` bytes over ``limit``.

    None within the limit (``MCP_MAX_RESPONSE_SIZE``). A refusal is logged,
    ``label`` naming what was refused; the client sees only the limit's name.
    """
    if size <= limit:
        return None
    # The logger of the package serving every method (docs/configuration.md).
    logging.getLogger("django_mcp.dispatcher").error(
        "%s is %d bytes, above MCP_MAX_RESPONSE_SIZE (%d)", label, size, limit
    )
    return InternalError(f"{what} exceeds MCP_MAX_RESPONSE_SIZE")
