"""One finished request as every observer sees it: ``CallRecord``.

Built once per observed request by ``_hooks.observing`` from the
envelope, the ``CallContext`` and the ``Reply`` (whose ``result`` is the
finished result before encoding), then handed to the telemetry, the call
log, the signal and the audit trail. Nothing here touches the network or
the database.

A URI is recorded without what may carry a credential
(``redact_uri``): its query string, its fragment and the user information
of its authority. This is the one rule for the call log, the signal, the
audit trail and the span attribute ``mcp.resource.uri``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from django_mcp.protocol.results import CallToolResult, InputRequiredResult
from django_mcp.protocol.tasks import CreateTaskResult

__all__ = [
    "COMPONENT_KEYS",
    "URI_REDACTED",
    "CallRecord",
    "component_of",
    "outcome_of",
    "redact_uri",
    "transport_of",
]

COMPONENT_KEYS: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "resources/subscribe": "uri",
    "resources/unsubscribe": "uri",
    "skills/get": "uri",
    "resources/directory/read": "uri",
}
"""The ``params`` member naming the component each method concerns.

Task ids (``tasks/*``) are not among them: a task id is its owner's
capability, kept out of logs and audit rows.
"""


URI_REDACTED: Final = "[redacted]"
"""What a recorded URI shows in place of its query, fragment or user information."""


def redact_uri(uri: str) -> str:
    """Return ``uri`` without the parts that may carry a credential.

    Everything from the first ``?`` or ``#`` becomes ``?[redacted]`` (or
    ``#[redacted]``), whatever the keys (``sec://x?token=abc&page=2`` is
    recorded as ``sec://x?[redacted]``), and user information before an
    authority's ``@`` becomes ``[redacted]@``. A URI without them is
    returned as it is.
    """
    cut = min((index for index in (uri.find("?"), uri.find("#")) if index >= 0), default=-1)
    if cut >= 0:
        uri = uri[: cut + 1] + URI_REDACTED
    scheme, separator, rest = uri.partition("://")
    if separator:
        authority, slash, path = rest.partition("/")
        if "@" in authority:
            uri = f"{scheme}://{URI_REDACTED}@{authority.rpartition('@')[2]}{slash}{path}"
    return uri


def component_of(method: str, params: Mapping[str, Any]) -> str:
    """Return the component a request concerns (tool or prompt name, redacted URI), else ""."""
    key = COMPONENT_KEYS.get(method)
    value = params.get(key) if key is not None else None
    if not isinstance(value, str):
        return ""
    return redact_uri(value) if key == "uri" else value


def outcome_of(result: Any, error: Any) -> str:
    """Return how a request ended (one of ``django_mcp.signals.OUTCOMES``)."""
    if error is not None:
        return "error"
    if isinstance(result, CallToolResult):
        return "tool_error" if result.isError is True else "ok"
    if isinstance(result, InputRequiredResult):
        return "input_required"
    if isinstance(result, CreateTaskResult):
        return "task"
    return "ok"


def transport_of(http: Any) -> str:
    """Return "http", "in-process" (the test client, the playground) or "stdio" (no HTTP request)."""
    if http is None:
        return "stdio"
    return "in-process" if getattr(http, "in_process", False) else "http"


@dataclasses.dataclass(slots=True)
class CallRecord:
    """One request the dispatcher has answered (or that was cancelled)."""

    server: type[Any] | None
    #: The server's key (its dotted path).
    server_key: str
    method: str
    component: str
    request_id: Any
    protocol_version: str
    #: "http", "in-process" or "stdio".
    transport: str
    user: Any
    #: One of ``django_mcp.signals.OUTCOMES``.
    outcome: str
    #: The JSON-RPC code of an ``"error"`` outcome, else None.
    error_code: int | None
    #: Seconds from the dispatcher receiving the request to its answer.
    duration: float
    #: The request's params (arguments are never logged or put in spans).
    params: Mapping[str, Any]
    #: The HTTP request (None over STDIO), for the client's address.
    http: Any = None
    #: The caller's address (``MCP_CLIENT_IP``, else the peer's), over HTTP
    #: while the telemetry or the audit needs it; else None.
    client_address: str | None = None
    #: A ``tools/call`` refused because the caller may use no tool of that
    #: name (unknown or hidden: ``ToolNotFound``).
    unseen: bool = False

    @property
    def user_id(self) -> Any:
        """Return the primary key of an authenticated caller, else None."""
        user = self.user
        if user is not None and getattr(user, "is_authenticated", False):
            return user.pk
        return None
