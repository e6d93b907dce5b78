"""``McpRequest``: what a handler can know about the request it serves.

A handler asks for it by annotating a parameter ``McpRequest``. It carries
the JSON-RPC method and params, the per-request ``_meta`` (protocol version,
client capabilities, client info), the Django request and user when served
over HTTP, the resource URI and its decoded template variables, prompt
arguments, and the answers of a multi round-trip request
(``input_responses`` and the verified ``request_state``), and ``task`` when
the call runs as a task (status messages, cancellation).

``log()`` sends ``notifications/message`` to the client, but only when the
request asked for a log level (2026-07-28) or the legacy session set one,
and only at or above that level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from django_mcp._callers import client_address
from django_mcp.exceptions import MissingClientCapability
from django_mcp.protocol.ui import declares_apps

if TYPE_CHECKING:
    from django_mcp._types import HttpSource

__all__ = ["LOG_LEVELS", "LogLevel", "McpRequest"]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""A log message level, from the least to the most severe (RFC 5424 syslog names)."""

LOG_LEVELS: Final[tuple[str, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""RFC 5424 severities, ascending, as MCP logging names them."""


class McpRequest:
    """The context of one MCP request, injected into handlers on demand."""

    __slots__ = (
        "_address",
        "_emit",
        "_http",
        "arguments",
        "client_capabilities",
        "client_info",
        "input_responses",
        "log_level",
        "meta",
        "method",
        "params",
        "progress_token",
        "protocol_version",
        "request_id",
        "request_state",
        "server",
        "task",
        "uri",
        "uri_variables",
        "user",
    )

    def __init__(
        self,
        *,
        method: str,
        params: Mapping[str, Any],
        meta: Mapping[str, Any],
        protocol_version: str,
        client_capabilities: Mapping[str, Any],
        client_info: Mapping[str, Any] | None = None,
        request_id: Any = None,
        http: HttpSource | None = None,
        http_request: Any = None,
        user: Any = None,
        log_level: str | None = None,
        progress_token: Any = None,
        server: Any = None,
        emit: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.method = method
        self.params = params
        self.meta = meta
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities
        self.client_info = client_info
        self.request_id = request_id
        # ``http`` builds Django's request only when something asks for it;
        # ``http_request`` is one already built.
        self._http = http if http is not None or http_request is None else _Built(http_request)
        self._address: Any = _UNKNOWN
        self.user = user
        self.log_level = log_level
        self.progress_token = progress_token
        self.server = server
        self.uri: str | None = None
        self.uri_variables: Mapping[str, Any] = {}
        self.arguments: Mapping[str, str] = {}
        self.input_responses: Mapping[str, Any] = {}
        self.request_state: Any = None
        #: The task this call runs as (``django_mcp.tasks.store.TaskHandle``),
        #: None when the call is answered directly.
        self.task: Any = None
        self._emit = emit

    @classmethod
    def of(
        cls, server: Any, envelope: Any, ctx: Any, emit: Callable[[str, dict[str, Any]], None] | None = None
    ) -> McpRequest:
        """Return the request user code sees for a JSON-RPC ``envelope`` in a call context.

        The one place the request path builds one: ``envelope`` is the
        decoded message (``dispatcher.codec.Envelope``), ``ctx`` what the
        transport knows of the caller (``dispatcher.context.CallContext``),
        ``server`` the compiled server.
        """
        return cls(
            method=envelope.method,
            params=envelope.params,
            meta=ctx.meta,
            protocol_version=ctx.protocol_version,
            client_capabilities=ctx.client_capabilities,
            client_info=ctx.client_info,
            request_id=envelope.id,
            http=ctx.http,
            user=ctx.user,
            log_level=ctx.log_level,
            progress_token=ctx.progress_token,
            server=server,
            emit=emit,
        )

    @property
    def http_request(self) -> Any:
        """Return the Django ``HttpRequest`` (None outside HTTP), built on first access."""
        return self._http.django_request() if self._http is not None else None

    @property
    def request(self) -> Any:
        """Return the Django ``HttpRequest`` (None outside HTTP)."""
        return self.http_request

    @property
    def client_address(self) -> str | None:
        """Return the caller's network address when the transport knows one.

        ``MCP_CLIENT_IP``'s function when set, else the peer's address;
        None over STDIO and in the test client.
        """
        if self._address is _UNKNOWN:
            self._address = client_address(self._http)
        return self._address  # type: ignore[no-any-return]

    def has_capability(self, name: str, sub: str | None = None) -> bool:
        """Return True when the client declared capability ``name`` (``sub``)."""
        declared = self.client_capabilities.get(name)
        if not isinstance(declared, Mapping):
            return False
        if sub is None:
            return True
        if name == "elicitation" and sub == "form" and not declared:
            # An empty elicitation object means form mode (2026-07-28).
            return True
        return isinstance(declared.get(sub), Mapping)

    @property
    def supports_apps(self) -> bool:
        """Return True when the client renders MCP Apps (``io.modelcontextprotocol/ui``).

        Read from this request's client capabilities (2026-07-28) or the
        session's (2025-11-25). A tool returns meaningful text ``content``
        either way; this only tells whether an App will show the result.
        """
        return declares_apps(self.client_capabilities)

    def require_capability(self, name: str, sub: str | None = None) -> None:
        """Raise ``MissingClientCapability`` (-32021) unless declared."""
        if not self.has_capability(name, sub):
            needed: dict[str, Any] = {name: {sub: {}} if sub else {}}
            raise MissingClientCapability(
                f"This request needs the client capability {name}{'.' + sub if sub else ''}",
                data={"requiredCapabilities": needed},
            )

    def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client if it asked for this level."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if self.log_level is None or self._emit is None:
            return
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self._emit("notifications/message", params)

    def __repr__(self) -> str:
        return f"McpRequest(method={self.method!r}, id={self.request_id!r})"


_UNKNOWN: Final = object()


class _Built:
    """The ``HttpSource`` of a Django request already built."""

    __slots__ = ("request",)

    def __init__(self, request: Any) -> None:
        self.request = request

    @property
    def client(self) -> str | None:
        address = getattr(self.request, "META", {}).get("REMOTE_ADDR")
        return str(address) if address else None

    def django_request(self) -> Any:
        return self.request
