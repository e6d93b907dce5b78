"""The playground as an MCP Apps host: a tool's App beside its result.

A tool whose definition carries ``_meta.ui.resourceUri`` (SEP-1865,
"Resource Discovery") shows, once the playground called it, its App in a
sandboxed iframe (``sandbox="allow-scripts"``: an opaque origin, no access
to the admin's cookies or DOM). The page is read server-side with
``resources/read`` as the signed-in user (``read_app``) and served by the
admin with a Content Security Policy built from the content's
``_meta.ui.csp`` (``content_security_policy``: the specification's
construction, its restrictive default when nothing is declared, without
``'self'``, which here would be the admin's origin).

The browser side (``static/django_mcp/admin/app_host.js``) answers the
App's ``ui/initialize``, sends the tool input and result once the App says
``ui/notifications/initialized``, and posts the App's ``tools/call`` and
``resources/read`` to the admin, which relays them here (``relay``): as the
signed-in user, through ``McpTestClient`` and so the dispatcher's own
permission, visibility and validation checks, on the App's server only. A
tool whose ``_meta.ui.visibility`` leaves out ``"app"`` is refused (the
host MUST, SEP-1865 "Visibility"); any other method is -32601. Each relayed
request is recorded in the admin history like a playground call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from django.utils.translation import gettext

from django_mcp._admin.catalog import CatalogEntry, ServerCatalog
from django_mcp._admin.outcome import Outcome
from django_mcp._admin.playground_history import record
from django_mcp.protocol.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from django_mcp.protocol.ui import EXTENSION, META_KEY, MIME_TYPE, SETTINGS
from django_mcp.testing import McpResult, McpTestClient

__all__ = [
    "APP_PROTOCOL_VERSION",
    "CLIENT_CAPABILITIES",
    "RELAYED",
    "AppPage",
    "app_uri",
    "content_security_policy",
    "read_app",
    "record_relay",
    "relay",
]

APP_PROTOCOL_VERSION: Final = "2026-01-26"
"""The MCP Apps revision the host speaks with the App."""

CLIENT_CAPABILITIES: Final[Mapping[str, Any]] = {"extensions": {EXTENSION: dict(SETTINGS)}}
"""What relayed requests declare: a client rendering Apps."""

_NONE: Final = "'none'"

RELAYED: Final = ("tools/call", "resources/read")
"""The MCP methods an App may send through the host (SEP-1865 "Standard MCP Messages")."""


@dataclasses.dataclass(frozen=True, slots=True)
class AppPage:
    """An App's HTML document as read, or why it could not be."""

    uri: str
    html: str = ""
    #: The content's ``_meta.ui`` (``csp``, ``permissions``, ``prefersBorder``...).
    ui: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: Why there is no page ("" when there is one).
    problem: str = ""


def app_uri(entry: CatalogEntry) -> str | None:
    """Return the ``ui://`` URI of the App a tool links, or None."""
    if entry.kind != "tool":
        return None
    meta = entry.wire.get("_meta")
    ui = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    uri = ui.get("resourceUri") if isinstance(ui, Mapping) else None
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


async def read_app(server: ServerCatalog, user: Any, uri: str) -> AppPage:
    """Read the App at ``uri`` as ``user`` (``resources/read``)."""
    assert server.server is not None
    client = McpTestClient(server.server, user, client_capabilities=CLIENT_CAPABILITIES)
    result = await client.read_resource(uri)
    if result.error is not None:
        return AppPage(
            uri,
            problem=gettext("resources/read answered JSON-RPC error {code}.").format(
                code=result.error.get("code")
            ),
        )
    for item in result.result.get("contents") or ():
        if not isinstance(item, Mapping) or item.get("uri") != uri or item.get("mimeType") != MIME_TYPE:
            continue
        text = item.get("text")
        if not isinstance(text, str):
            return AppPage(uri, problem=gettext("The App's content is not text."))
        meta = item.get("_meta")
        ui = meta.get(META_KEY) if isinstance(meta, Mapping) else None
        return AppPage(uri, html=text, ui=ui if isinstance(ui, Mapping) else {})
    return AppPage(
        uri,
        problem=gettext("resources/read returned no {mime_type} content for {uri}.").format(
            mime_type=MIME_TYPE, uri=uri
        ),
    )


def content_security_policy(ui: Mapping[str, Any]) -> str:
    """Return the CSP of an App page from its ``_meta.ui.csp`` (SEP-1865 "Security Implications").

    Only origins as CSP source expressions write them are used: anything
    else (a quote, a semicolon, a keyword) is dropped, so a server cannot
    add directives or ``'unsafe-eval'`` through its declaration.
    """
    csp = ui.get("csp") if isinstance(ui.get("csp"), Mapping) else {}
    assert isinstance(csp, Mapping)

    def origins(key: str) -> list[str]:
        values = csp.get(key)
        if not isinstance(values, list):
            return []
        return [v for v in values if isinstance(v, str) and _is_origin(v)]

    resources = " ".join(origins("resourceDomains"))
    connect = " ".join(origins("connectDomains"))
    frames = " ".join(origins("frameDomains"))
    bases = " ".join(origins("baseUriDomains"))
    # The specification's construction, with one restriction (hosts MAY
    # restrict further): no 'self'. Served by the admin, 'self' would be the
    # admin's own origin, which no real host's sandbox shares; the page
    # should not count on it here either.
    directives = [
        "default-src 'none'",
        f"script-src 'unsafe-inline' {resources}",
        f"style-src 'unsafe-inline' {resources}",
        f"img-src data: {resources}",
        f"font-src {resources or _NONE}",
        f"media-src data: {resources}",
        f"connect-src {connect or _NONE}",
        f"frame-src {frames or _NONE}",
        "object-src 'none'",
        f"base-uri {bases or _NONE}",
        "form-action 'none'",
        # Sandboxed even when opened outside the iframe: the page never runs
        # in the admin's origin, with its cookies.
        "sandbox allow-scripts",
    ]
    return "; ".join(" ".join(d.split()) for d in directives)


def _is_origin(value: str) -> bool:
    scheme, sep, host = value.partition("://")
    if not sep or not scheme.isalpha() or not host:
        return False
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789.-:*")
    return set(host.lower()) <= allowed and "*" not in host[1:]


async def relay(
    server: ServerCatalog, entry: CatalogEntry, user: Any, message: Any
) -> tuple[dict[str, Any], Outcome | None]:
    """Send an App's request on as ``user``; return ``(answer, outcome)``.

    ``message`` is ``{"method": ..., "params": {...}}`` as the App sent it;
    the answer is ``{"result": ...}`` or ``{"error": {...}}``, what the host
    passes back to the App. ``outcome`` is None when nothing was sent.
    """
    assert server.server is not None
    if not isinstance(message, Mapping) or message.get("method") not in RELAYED:
        return _error(METHOD_NOT_FOUND, "An App may send tools/call and resources/read only."), None
    method = message["method"]
    params = message.get("params")
    if not isinstance(params, Mapping):
        return _error(INVALID_PARAMS, "params must be an object."), None
    client = McpTestClient(server.server, user, client_capabilities=CLIENT_CAPABILITIES)
    result: McpResult
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, Mapping):
            return _error(INVALID_PARAMS, "tools/call needs a tool name and an arguments object."), None
        if not _callable_by_apps(server, name):
            return _error(INVALID_PARAMS, f"The tool {name!r} is not callable by Apps (visibility)."), None
        result = await client.call_tool(name, arguments)
        sent = {"method": method, "params": {"name": name, "arguments": dict(arguments)}}
    else:
        uri = params.get("uri")
        if not isinstance(uri, str):
            return _error(INVALID_PARAMS, "resources/read needs a uri."), None
        result = await client.read_resource(uri)
        sent = {"method": method, "params": {"uri": uri}}
    outcome = Outcome(sent, result.response, result.notifications)
    answer = {"error": outcome.error} if outcome.error is not None else {"result": outcome.result}
    return answer, outcome


def record_relay(user: Any, entry: CatalogEntry, outcome: Outcome) -> None:
    """Add the relayed request to the admin history of the tool showing the App."""
    record(user, entry, f"{outcome.request['method']} (from its App)", outcome)


def _callable_by_apps(server: ServerCatalog, name: str) -> bool:
    """Return False for a tool whose ``_meta.ui.visibility`` leaves out ``"app"``."""
    assert server.server is not None
    compiled = server.server.compiled()
    tool = compiled.tools.get(name)
    if tool is None:
        return True  # unknown (or hidden from this user): the dispatcher answers
    definition = tool.definition
    meta = getattr(definition, "meta", None)
    ui = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    return not isinstance(visibility, list) or "app" in visibility


def _error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}
