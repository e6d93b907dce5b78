"""Exceptions raised by django_mcp.

Hierarchy::

    McpError                       a JSON-RPC error answered to the client
    ├── ParseError                 -32700 body is not JSON
    ├── InvalidRequest             -32600 not a JSON-RPC request object
    ├── MethodNotFound             -32601 unknown or unadvertised method
    ├── InvalidParams              -32602 bad params, unknown name, bad cursor
    │   ├── ResourceNotFound       -32602 (2026-07-28) / -32002 (2025-11-25)
    │   ├── ToolNotFound           -32602 a tools/call of an unknown or hidden tool
    │   └── MissingMeta            -32602 a 2026-07-28 request without its _meta (HTTP 400)
    ├── InternalError              -32603 unexpected failure (no detail sent)
    │   ├── ServerBusy             -32603 no request slot in time (HTTP 503, Retry-After)
    │   │   ├── TooManyStreams     MCP_MAX_STREAMS streams are open
    │   │   ├── NotificationsUnavailable  the event backend cannot deliver now
    │   │   └── AnswerNotDelivered a client's answer cannot reach its worker
    │   └── SessionBusy            a 2025-11-25 session's lock not taken in time
    ├── HeaderMismatch             -32020 HTTP header missing or != body
    ├── MissingClientCapability    -32021 a needed client capability is absent
    └── UnsupportedProtocolVersion -32022 version not served

    AuthenticationFailed           an authentication backend refused the
    │                              bearer token: HTTP 401 invalid_token
    └── (subclasses may set status 403 / error "insufficient_scope")
    SchemaValidationError          (ValueError) data does not fit a Schema
    TaskCancelled                  (BaseException) stops a tool running as a
                                   task whose client cancelled it
    ImproperlyConfigured           (Django's) a component or setting is wrong
    └── SkillError                 skills a server serves are missing or
                                   broken; one ``SkillProblem`` per finding
    AlreadyRegistered / NotRegistered   registry misuse

Only the dispatcher turns an ``McpError`` into a JSON-RPC error object.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol import jsonrpc

__all__ = [
    "AlreadyRegistered",
    "AnswerNotDelivered",
    "AuthenticationFailed",
    "HeaderMismatch",
    "ImproperlyConfigured",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "MethodNotFound",
    "MissingClientCapability",
    "MissingMeta",
    "NotRegistered",
    "NotificationsUnavailable",
    "ParseError",
    "ResourceNotFound",
    "SchemaValidationError",
    "ServerBusy",
    "SessionBusy",
    "SkillError",
    "SkillProblem",
    "TaskCancelled",
    "ToolNotFound",
    "TooManyStreams",
    "UnsupportedProtocolVersion",
]


class McpError(Exception):
    """A protocol error answered to the client as a JSON-RPC error object."""

    code: ClassVar[int] = jsonrpc.INTERNAL_ERROR
    default_message: ClassVar[str] = "Internal error"
    #: HTTP status the transport uses when this error ends a request.
    http_status: ClassVar[int] = 200

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        # Never translated: MCP clients, and the models behind them, read and
        # match these messages, so every JSON-RPC error message (and a tool
        # failure's "Tool execution failed") is English whatever the
        # project's LANGUAGE_CODE; only people-facing text (the admin, the
        # system checks, the commands) is marked for translation.
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"


class ParseError(McpError):
    """The message is not valid JSON."""

    code = jsonrpc.PARSE_ERROR
    default_message = "Parse error"
    http_status = 400


class InvalidRequest(McpError):
    """The message is not a valid JSON-RPC request."""

    code = jsonrpc.INVALID_REQUEST
    default_message = "Invalid request"
    http_status = 400


class MethodNotFound(McpError):
    """The method does not exist or its capability is not advertised."""

    code = jsonrpc.METHOD_NOT_FOUND
    default_message = "Method not found"
    http_status = 404


class InvalidParams(McpError):
    """The params are malformed or name something that does not exist."""

    code = jsonrpc.INVALID_PARAMS
    default_message = "Invalid params"


class ResourceNotFound(InvalidParams):
    """No resource matches the requested URI (``data`` carries the URI)."""

    default_message = "Resource not found"


class ToolNotFound(InvalidParams):
    """``tools/call`` names no tool the caller may use (unknown, or hidden from it).

    Both answer alike (MCP 2026-07-28 server/tools: -32602 "Unknown tool");
    the class lets observers tell a refused call from one that was admitted
    (the audit trail records no name and no arguments for it).
    """

    default_message = "Unknown tool"


class InternalError(McpError):
    """An unexpected failure; details stay in the server's logs."""

    code = jsonrpc.INTERNAL_ERROR
    default_message = "Internal error"


class MissingMeta(InvalidParams):
    """A 2026-07-28 request lacks a required ``_meta`` key (HTTP 400)."""

    http_status = 400


class ServerBusy(InternalError):
    """No request slot freed up within ``MCP_QUEUE_TIMEOUT`` seconds (HTTP 503)."""

    default_message = "Server busy: too many concurrent requests, retry later"
    http_status = 503
    #: Seconds the client should wait before retrying (``Retry-After``).
    retry_after: float = 1


class TooManyStreams(ServerBusy):
    """``MCP_MAX_STREAMS`` streams are already open in this process."""

    default_message = "Server busy: too many open streams, retry later"


class NotificationsUnavailable(ServerBusy):
    """The event backend cannot deliver change notifications now (e.g. Redis is down)."""

    default_message = "Change notifications are unavailable right now: retry later"

    def __init__(self, message: str | None = None, *, retry_after: float = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AnswerNotDelivered(ServerBusy):
    """A client's answer or cancellation could not be handed to the worker concerned."""

    default_message = "The message could not be handed to the worker serving its request: retry later"


class SessionBusy(InternalError):
    """A 2025-11-25 session's lock could not be taken in time (too many concurrent changes)."""

    default_message = "Session busy: too many concurrent changes, retry later"


class HeaderMismatch(McpError):
    """An MCP HTTP header is missing, malformed or disagrees with the body."""

    code = jsonrpc.HEADER_MISMATCH
    default_message = "Header mismatch"
    http_status = 400


class MissingClientCapability(McpError):
    """Serving the request needs a capability the client did not declare."""

    code = jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    default_message = "Missing required client capability"
    http_status = 400


class UnsupportedProtocolVersion(McpError):
    """The requested protocol version is not served by this endpoint."""

    code = jsonrpc.UNSUPPORTED_PROTOCOL_VERSION
    default_message = "Unsupported protocol version"
    http_status = 400


class SchemaValidationError(ValueError):
    """Data does not fit a Schema; ``errors`` holds ``(path, message)`` pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in errors))

    def __repr__(self) -> str:
        return f"SchemaValidationError(errors={self.errors!r})"


class TaskCancelled(BaseException):
    """The client cancelled the task this tool runs as (``tasks/cancel``).

    ``request.task.check_cancelled()`` raises it; the task then ends
    ``cancelled``. Like ``asyncio.CancelledError`` it derives from
    ``BaseException``, so a handler's ``except Exception`` does not swallow it.
    """

    def __repr__(self) -> str:
        return "TaskCancelled()"


class AuthenticationFailed(Exception):
    """An authentication backend refused the request's credentials.

    Raise it from ``authenticate(request)`` of an ``MCP_AUTHENTICATION_BACKENDS``
    backend for a bearer token that is unknown, expired, revoked or meant for
    another resource. The transport answers ``status`` (401) with
    ``WWW-Authenticate: Bearer error="<error>", ...`` (RFC 6750 section 3.1;
    MCP 2026-07-28 authorization, "Error Handling"), whatever the server's
    ``login_required``. ``scope`` lists the scopes the request needs.
    """

    status: ClassVar[int] = 401
    error: ClassVar[str] = "invalid_token"
    default_message: ClassVar[str] = "The access token is invalid."

    def __init__(self, message: str | None = None, *, scope: str | None = None) -> None:
        self.message = message or self.default_message
        self.scope = scope
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, scope={self.scope!r})"


class SkillProblem(NamedTuple):
    """One finding about a skill: the system check id it is reported under."""

    check_id: str
    message: str
    hint: str


class SkillError(ImproperlyConfigured):
    """Skills a server serves cannot be served; ``problems`` says why, each.

    ``manage.py check`` reports each problem under its own id
    (``django_mcp.E029``, ``E030``, ``E031``) rather than as one ``E015``.
    """

    def __init__(self, label: str, problems: list[SkillProblem]) -> None:
        self.label = label
        self.problems = tuple(problems)
        super().__init__(f"{label}: " + "; ".join(problem.message for problem in problems))

    def __repr__(self) -> str:
        return f"SkillError(label={self.label!r}, problems={self.problems!r})"


class AlreadyRegistered(Exception):
    """A server path or name is registered twice."""


class NotRegistered(Exception):
    """No server is registered under that name."""
