"""Test MCP servers in-process: ``McpTestClient`` and its result assertions.

``McpTestClient(MyServer, user)`` sends 2026-07-28 requests through the
server's own HTTP endpoint, in-process, without a socket: each request is a
conforming POST (the JSON-RPC message encoded, the ``MCP-Protocol-Version``,
``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*`` headers mirrored from it),
the endpoint answers as it answers any client (limits, identity,
``login_required``, headers, the dispatcher), and the reply is decoded from
its bytes: JSON, or the event stream progress and log notifications come
on, which are collected on the result. Only the network checks (``Host``,
``Origin``) are left out: the call never left the process.

Each high-level method returns a small wrapper (``ToolResult``,
``ListResult``, ...) exposing the decoded JSON-RPC response and chainable
assertions that raise ``AssertionError`` with the payload in the message::

    result = await client.call_tool("add", {"a": 1, "b": 2})
    result.assert_ok().assert_structured({"sum": 3})

The client declares every client capability (elicitation form and URL,
sampling, roots) unless ``client_capabilities`` says otherwise. The user
is the one given (``AnonymousUser`` when None): authentication backends and
the session cookie are not consulted, and 2025-11-25 sessions are not
spoken.

The result classes live in ``_test_results``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import msgspec

from django_mcp import __version__
from django_mcp._serving import serving
from django_mcp._test_results import (
    CompletionResult,
    ListResult,
    McpResult,
    PromptResult,
    ResourceResult,
    ToolResult,
)
from django_mcp.protocol.meta import META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION
from django_mcp.registry import registry
from django_mcp.server.server import Server
from django_mcp.transports._body import ReadyBody
from django_mcp.transports._exchange import HttpExchange
from django_mcp.transports._headers import McpHeaders, conforming_headers

__all__ = [
    "CompletionResult",
    "ListResult",
    "McpResult",
    "McpTestClient",
    "PromptResult",
    "ResourceResult",
    "ToolResult",
]

ALL_CAPABILITIES: Final[Mapping[str, Any]] = {
    "elicitation": {"form": {}, "url": {}},
    "sampling": {},
    "roots": {},
}
"""The client capabilities declared when none are given."""

CLIENT_INFO: Final[Mapping[str, Any]] = {"name": "django-mcp-test-client", "version": __version__}
"""The ``clientInfo`` the test client sends."""

# Far more pages than any test needs; a cursor loop ends the listing with an error.
_MAX_PAGES: Final = 1000


class McpTestClient:
    """Call a server's methods in-process, as a 2026-07-28 client would.

    ``server_or_path`` is a ``Server`` subclass or the path it is registered
    at with ``django_mcp.web()``. ``user`` is the Django user the handlers
    see (``AnonymousUser`` when None); permissions and ``authorize()`` hooks
    apply to it exactly as over HTTP.
    """

    def __init__(
        self,
        server_or_path: type[Server] | str,
        user: Any = None,
        *,
        protocol_version: str = "2026-07-28",
        client_capabilities: Mapping[str, Any] | None = None,
    ) -> None:
        self.server = _resolve(server_or_path)
        self.user = user
        self.protocol_version = protocol_version
        self.client_capabilities: Mapping[str, Any] = (
            ALL_CAPABILITIES if client_capabilities is None else client_capabilities
        )
        self._last_id = 0

    def __repr__(self) -> str:
        return f"McpTestClient(server={self.server.__qualname__}, user={self.user!r})"

    # ---------------------------------------------------------- low level

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send one request and return the whole decoded JSON-RPC response.

        ``params`` may hold a ``_meta`` object; its keys are added to (and
        override) the ``_meta`` the client sends.
        """
        response, _notifications = await self._exchange(method, params)
        return response

    async def _exchange(
        self, method: str, params: Mapping[str, Any] | None, meta: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        self._last_id += 1
        request_id = self._last_id
        body_params = dict(params or {})
        sent_meta: dict[str, Any] = {
            META_VERSION: self.protocol_version,
            META_CAPABILITIES: dict(self.client_capabilities),
            META_CLIENT_INFO: dict(CLIENT_INFO),
            **(meta or {}),
        }
        extra = body_params.pop("_meta", None)
        if isinstance(extra, Mapping):
            sent_meta.update(extra)
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {**body_params, "_meta": sent_meta},
        }
        raw = msgspec.json.encode(message)
        version = sent_meta.get(META_VERSION)
        tool = body_params.get("name") if method == "tools/call" else None
        endpoint = serving.endpoint(self.server)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **conforming_headers(
                method,
                body_params,
                version=version if isinstance(version, str) else "",
                param_headers=endpoint.dispatcher.compiled.tool_headers.get(tool)
                if isinstance(tool, str)
                else None,
            ),
        }
        exchange = HttpExchange(
            method="POST",
            path="/mcp",
            headers=McpHeaders(headers.items()),
            body=ReadyBody(raw),
            can_stream=True,
            in_process=True,
            session_user=self._user if self.user is not None else None,
        )
        reply = await endpoint.serve(exchange)
        if reply.stream is None:
            return msgspec.json.decode(reply.body), []
        messages = [message async for message in _events(reply.stream)]
        if reply.closed is not None:
            reply.closed()
        *notifications, response = messages
        return response, notifications

    async def _user(self) -> Any:
        return self.user

    # ------------------------------------------------------------- lists

    async def _list(self, method: str, key: str) -> ListResult:
        responses: list[dict[str, Any]] = []
        notifications: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        seen: set[str] = set()
        for _page in range(_MAX_PAGES):
            response, emitted = await self._exchange(method, params)
            responses.append(response)
            notifications += emitted
            cursor = (response.get("result") or {}).get("nextCursor")
            if not isinstance(cursor, str):
                break
            if cursor in seen:
                raise AssertionError(f"{method} returned the cursor {cursor!r} twice")
            seen.add(cursor)
            params = {"cursor": cursor}
        else:
            raise AssertionError(f"{method} did not end after {_MAX_PAGES} pages")
        return ListResult(responses, notifications, key=key)

    async def list_tools(self) -> ListResult:
        """Return every tool visible to the user, following ``nextCursor``."""
        return await self._list("tools/list", "tools")

    async def list_resources(self) -> ListResult:
        """Return every fixed resource visible to the user (all pages)."""
        return await self._list("resources/list", "resources")

    async def list_resource_templates(self) -> ListResult:
        """Return every resource template visible to the user (all pages)."""
        return await self._list("resources/templates/list", "resourceTemplates")

    async def list_prompts(self) -> ListResult:
        """Return every prompt visible to the user (all pages)."""
        return await self._list("prompts/list", "prompts")

    async def discover(self) -> McpResult:
        """Return the ``server/discover`` result."""
        return McpResult(*await self._exchange("server/discover", {}))

    # ----------------------------------------------------------- actions

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> ToolResult:
        """Call tool ``name``; progress and logs need a token and a level."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        return ToolResult(
            *await self._exchange(
                "tools/call",
                _with_inputs(params, input_responses, request_state),
                _meta(progress_token, log_level),
            )
        )

    async def read_resource(
        self,
        uri: str,
        *,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> ResourceResult:
        """Read the resource at ``uri`` (fixed or matched by a template)."""
        return ResourceResult(
            *await self._exchange(
                "resources/read",
                _with_inputs({"uri": uri}, input_responses, request_state),
                _meta(progress_token, log_level),
            )
        )

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> PromptResult:
        """Get prompt ``name`` rendered with ``arguments``."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        return PromptResult(
            *await self._exchange(
                "prompts/get",
                _with_inputs(params, input_responses, request_state),
                _meta(progress_token, log_level),
            )
        )

    async def complete(
        self,
        ref: str | Mapping[str, Any],
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> CompletionResult:
        """Ask for completions of ``argument`` starting with ``value``.

        ``ref`` is a prompt name, a resource template (any string with a
        ``:``, e.g. ``"test://template/{id}/data"``) or a full ``ref`` object.
        ``context`` holds the values of the other arguments already chosen.
        """
        if isinstance(ref, str):
            ref_object: dict[str, Any] = (
                {"type": "ref/resource", "uri": ref} if ":" in ref else {"type": "ref/prompt", "name": ref}
            )
        else:
            ref_object = dict(ref)
        params: dict[str, Any] = {"ref": ref_object, "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = {"arguments": dict(context)}
        return CompletionResult(*await self._exchange("completion/complete", params))


async def _events(stream: AsyncIterator[bytes]) -> AsyncIterator[dict[str, Any]]:
    """Yield the JSON-RPC messages of an SSE stream, as a client reads them."""
    async for event in stream:
        for line in event.split(b"\n"):
            if line.startswith(b"data:"):
                yield msgspec.json.decode(line[len(b"data:") :].strip())


def _resolve(server_or_path: Any) -> type[Server]:
    if isinstance(server_or_path, type) and issubclass(server_or_path, Server):
        return server_or_path
    if isinstance(server_or_path, str):
        return registry.get("web", server_or_path.strip("/"))
    raise TypeError(f"McpTestClient needs a Server subclass or a registered web path, got {server_or_path!r}")


def _meta(progress_token: Any, log_level: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if progress_token is not None:
        meta["progressToken"] = progress_token
    if log_level is not None:
        meta[META_LOG_LEVEL] = log_level
    return meta


def _with_inputs(
    params: dict[str, Any], input_responses: Mapping[str, Any] | None, request_state: str | None
) -> dict[str, Any]:
    if input_responses is not None:
        params["inputResponses"] = dict(input_responses)
    if request_state is not None:
        params["requestState"] = request_state
    return params
