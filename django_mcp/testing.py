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
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Final, Self

import msgspec

from django_mcp import __version__
from django_mcp._serving import serving
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
# Payloads longer than this are shortened in assertion messages.
_DUMP_LIMIT: Final = 8000


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


# ----------------------------------------------------------------- results


class McpResult:
    """One decoded JSON-RPC response and the notifications sent before it."""

    def __init__(self, response: dict[str, Any], notifications: list[dict[str, Any]]) -> None:
        self.response = response
        self.notifications = notifications

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.response!r})"

    # ------------------------------------------------------------ access

    @property
    def result(self) -> dict[str, Any]:
        """Return the ``result`` object (empty for an error response)."""
        result = self.response.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def error(self) -> dict[str, Any] | None:
        """Return the JSON-RPC ``error`` object, or None."""
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def progress(self) -> list[dict[str, Any]]:
        """Return the params of every ``notifications/progress`` received."""
        return [
            n.get("params", {}) for n in self.notifications if n.get("method") == "notifications/progress"
        ]

    @property
    def logs(self) -> list[dict[str, Any]]:
        """Return the params of every ``notifications/message`` received."""
        return [n.get("params", {}) for n in self.notifications if n.get("method") == "notifications/message"]

    @property
    def input_requests(self) -> dict[str, Any]:
        """Return the ``inputRequests`` of an ``input_required`` result."""
        requests = self.result.get("inputRequests")
        return requests if isinstance(requests, dict) else {}

    @property
    def request_state(self) -> str | None:
        """Return the ``requestState`` to send back with the answers."""
        state = self.result.get("requestState")
        return state if isinstance(state, str) else None

    # -------------------------------------------------------- assertions

    def _responses(self) -> list[dict[str, Any]]:
        return [self.response]

    def _fail(self, message: str) -> AssertionError:
        payload = json.dumps(
            self.response if len(self._responses()) == 1 else self._responses(),
            indent=2,
            ensure_ascii=False,
            default=repr,
        )
        if len(payload) > _DUMP_LIMIT:
            payload = payload[:_DUMP_LIMIT] + f"\n... ({len(payload) - _DUMP_LIMIT} more characters)"
        if self.notifications:
            payload += "\nNotifications: " + json.dumps(self.notifications, ensure_ascii=False, default=repr)
        return AssertionError(f"{message}\nResponse: {payload}")

    def assert_ok(self) -> Self:
        """Assert the response is a result, not a JSON-RPC error."""
        for response in self._responses():
            if "error" in response or "result" not in response:
                raise self._fail("Expected a successful response, got a JSON-RPC error.")
        return self

    def assert_error(self, code: int | None = None) -> Self:
        """Assert the response is a JSON-RPC error (with ``code`` if given)."""
        error = self.error
        if error is None:
            raise self._fail(
                f"Expected a JSON-RPC error{f' {code}' if code is not None else ''}, got a result."
            )
        if code is not None and error.get("code") != code:
            raise self._fail(f"Expected JSON-RPC error code {code}, got {error.get('code')}.")
        return self

    def assert_sees(self, *texts: str) -> Self:
        """Assert every text occurs in the response's strings (``_meta`` aside)."""
        strings = list(self._strings())
        for text in texts:
            if not any(text in s for s in strings):
                raise self._fail(f"Expected to see {text!r} in the response, but it is not there.")
        return self

    def assert_doesnt_see(self, *texts: str) -> Self:
        """Assert no text occurs in the response's strings (``_meta`` aside)."""
        strings = list(self._strings())
        for text in texts:
            if any(text in s for s in strings):
                raise self._fail(f"Expected not to see {text!r} in the response, but it is there.")
        return self

    def assert_has_progress(self, count: int | None = None) -> Self:
        """Assert progress was reported (exactly ``count`` times if given)."""
        found = len(self.progress)
        if (count is None and not found) or (count is not None and found != count):
            expected = "progress notifications" if count is None else f"{count} progress notification(s)"
            raise self._fail(
                f"Expected {expected}, got {found}. Progress is only sent when the call "
                "carries progress_token=..."
            )
        return self

    def assert_logged(self, level: str | None = None) -> Self:
        """Assert a log message was sent (at ``level`` if given)."""
        levels = [log.get("level") for log in self.logs]
        if not levels or (level is not None and level not in levels):
            wanted = "a log message" if level is None else f"a {level!r} log message"
            raise self._fail(
                f"Expected {wanted}, got levels {levels}. Logs are only sent when the call "
                "carries log_level=... and at or above that level."
            )
        return self

    def assert_input_required(self, keys: Iterable[str] | None = None) -> Self:
        """Assert the result asks the client for input (with these ``keys``)."""
        if self.result.get("resultType") != "input_required":
            raise self._fail("Expected an input_required result.")
        if keys is not None and sorted(self.input_requests) != sorted(keys):
            raise self._fail(f"Expected input requests {sorted(keys)}, got {sorted(self.input_requests)}.")
        return self

    def _strings(self) -> Iterator[str]:
        for response in self._responses():
            yield from _strings(response.get("result"))
            yield from _strings(response.get("error"))


def _strings(value: Any) -> Iterator[str]:
    """Yield every string value, skipping ``_meta`` and opaque ``requestState``."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("_meta", "requestState"):
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class ToolResult(McpResult):
    """The response to ``tools/call``."""

    @property
    def content(self) -> list[dict[str, Any]]:
        """Return the content blocks."""
        return list(self.result.get("content") or [])

    @property
    def text(self) -> str:
        """Return the text blocks joined by newlines."""
        return "\n".join(block["text"] for block in self.content if block.get("type") == "text")

    @property
    def structured_content(self) -> Any:
        """Return ``structuredContent`` (None when absent)."""
        return self.result.get("structuredContent")

    @property
    def is_error(self) -> bool:
        """Return True for a tool failure (``isError``)."""
        return self.result.get("isError") is True

    def assert_ok(self) -> Self:
        """Assert a result that is not a tool failure (``isError`` false)."""
        super().assert_ok()
        if self.is_error:
            raise self._fail("Expected the tool to succeed, but the result has isError: true.")
        return self

    def assert_is_error(self) -> Self:
        """Assert the tool failed: a result with ``isError: true``."""
        super().assert_ok()
        if not self.is_error:
            raise self._fail("Expected a tool error (isError: true), but the tool succeeded.")
        return self

    assert_tool_error = assert_is_error

    def assert_structured(self, expected: Any) -> Self:
        """Assert ``structuredContent`` equals ``expected``."""
        if "structuredContent" not in self.result or self.structured_content != expected:
            raise self._fail(f"Expected structuredContent {expected!r}.")
        return self


class ResourceResult(McpResult):
    """The response to ``resources/read``."""

    @property
    def contents(self) -> list[dict[str, Any]]:
        """Return the resource contents."""
        return list(self.result.get("contents") or [])

    @property
    def text(self) -> str:
        """Return the text contents joined by newlines."""
        return "\n".join(item["text"] for item in self.contents if isinstance(item.get("text"), str))


class PromptResult(McpResult):
    """The response to ``prompts/get``."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Return the prompt messages."""
        return list(self.result.get("messages") or [])


class CompletionResult(McpResult):
    """The response to ``completion/complete``."""

    @property
    def values(self) -> list[str]:
        """Return the suggested values."""
        completion = self.result.get("completion")
        return list(completion.get("values") or []) if isinstance(completion, dict) else []


class ListResult(McpResult):
    """Every page of a ``*/list`` method, gathered.

    ``response`` is the last page's response; ``pages`` all of them.
    """

    def __init__(self, pages: list[dict[str, Any]], notifications: list[dict[str, Any]], *, key: str) -> None:
        super().__init__(pages[-1], notifications)
        self.pages = pages
        self.key = key

    def _responses(self) -> list[dict[str, Any]]:
        return self.pages

    @property
    def items(self) -> list[dict[str, Any]]:
        """Return the listed definitions of every page, in order."""
        items: list[dict[str, Any]] = []
        for page in self.pages:
            result = page.get("result")
            if isinstance(result, dict):
                items += result.get(self.key) or []
        return items

    @property
    def names(self) -> list[str]:
        """Return the ``name`` of every listed item, in order."""
        return [item.get("name", "") for item in self.items]

    def assert_names(self, *names: str) -> Self:
        """Assert the listed names are exactly ``names``, in this order."""
        self.assert_ok()
        if self.names != list(names):
            raise self._fail(f"Expected the names {list(names)}, got {self.names}.")
        return self

    def assert_has(self, name: str) -> Self:
        """Assert an item named ``name`` is listed."""
        self.assert_ok()
        if name not in self.names:
            raise self._fail(f"Expected {name!r} to be listed; listed: {self.names}.")
        return self

    def assert_missing(self, name: str) -> Self:
        """Assert no item named ``name`` is listed."""
        self.assert_ok()
        if name in self.names:
            raise self._fail(f"Expected {name!r} not to be listed, but it is.")
        return self

    assert_has_tool = assert_has
    assert_missing_tool = assert_missing
