"""The transport-neutral endpoint (django_mcp/transports/_endpoint.py): plain values in, plain values out.

Each test builds an ``HttpExchange`` by hand, as an adapter would, and reads
the ``HttpReply``: the gates and their order, the era routing, identity, the
browser page, the header rules. The wire through real adapters is
``test_http.py`` (four ways to serve).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from unittest.mock import ANY

import pytest
from django.contrib.auth.models import AnonymousUser

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp._serving import Serving
from django_mcp.protocol import jsonrpc
from django_mcp.registry import Registry
from django_mcp.transports._body import ChunkedBody, ReadyBody
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._headers import McpHeaders
from tests.wire import modern_headers, tool_request


class WhoTool(Tool):
    """Say who calls."""

    name = "who"

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(str(request.user))


class WhoServer(Server):
    name = "who"
    tools = (WhoTool,)


class LoginServer(Server):
    name = "login"
    tools = (WhoTool,)
    login_required = True


def endpoint(server: type[Server] = WhoServer) -> Any:
    return Serving(Registry()).endpoint(server)


def exchange(
    body: Any = None,
    *,
    headers: dict[str, str] | None = None,
    drop: Iterable[str] = (),
    method: str = "POST",
    raw: bytes | None = None,
    **options: Any,
) -> HttpExchange:
    message = body if body is not None else tool_request("who", {})
    sent = {"Host": "testserver", "Content-Type": "application/json", **modern_headers(message)}
    sent = {name: value for name, value in sent.items() if name not in set(drop)}
    sent.update(headers or {})
    data = raw if raw is not None else json.dumps(message).encode()
    return HttpExchange(
        method=method,
        path="/mcp",
        headers=McpHeaders(sent.items()),
        body=options.pop("source", ReadyBody(data)),
        **options,
    )


def decoded(reply: HttpReply) -> Any:
    return json.loads(reply.body)


async def test_a_conforming_call_is_answered_with_json() -> None:
    reply = await endpoint().serve(exchange())

    assert (reply.status, reply.header("Content-Type")) == (200, "application/json")
    assert decoded(reply)["result"]["content"] == [{"type": "text", "text": "AnonymousUser"}]


async def test_a_declared_body_over_the_limit_is_refused_before_any_other_gate(settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 10

    async def never() -> Any:
        raise AssertionError("the body was read")
        yield b""  # pragma: no cover - an async generator

    source = ChunkedBody(never(), declared=1000)
    headers = {"Host": "evil.example.com", "Content-Length": "1000", "Content-Type": "text/plain"}
    reply = await endpoint().serve(exchange(headers=headers, source=source))

    assert (reply.status, reply.refused_early) == (413, True)
    assert decoded(reply)["error"]["code"] == jsonrpc.INVALID_REQUEST


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example.com"}, 403),
        ({"Origin": "https://evil.example.com"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Accept": "text/html"}, 406),
    ],
)
async def test_early_refusals_are_json_rpc_errors(headers: dict[str, str], status: int) -> None:
    reply = await endpoint().serve(exchange(headers=headers))

    assert (reply.status, reply.header("Content-Type")) == (status, "application/json")
    assert decoded(reply) == {"jsonrpc": "2.0", "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY}}


async def test_an_in_process_call_skips_the_network_checks() -> None:
    reply = await endpoint().serve(exchange(headers={"Host": "evil.example.com"}, in_process=True))

    assert reply.status == 200


async def test_an_era_header_sent_twice_is_a_header_mismatch_naming_the_request() -> None:
    message = tool_request("who", {})
    pairs = [*modern_headers(message).items(), ("Host", "testserver"), ("Content-Type", "application/json")]
    pairs.append(("MCP-Protocol-Version", "2026-07-28"))
    reply = await endpoint().serve(
        HttpExchange(method="POST", path="/mcp", headers=McpHeaders(pairs), body=json.dumps(message).encode())
    )

    assert reply.status == 400
    assert decoded(reply)["id"] == 1
    assert decoded(reply)["error"]["code"] == jsonrpc.HEADER_MISMATCH


async def test_the_session_user_is_the_caller() -> None:
    class Caller:
        is_authenticated = True

        def __str__(self) -> str:
            return "ada"

    async def session_user() -> Any:
        return Caller()

    reply = await endpoint().serve(exchange(session_user=session_user))

    assert decoded(reply)["result"]["content"] == [{"type": "text", "text": "ada"}]


async def test_without_a_session_the_caller_is_anonymous() -> None:
    ex = exchange()

    reply = await endpoint().serve(ex)

    assert reply.status == 200
    assert isinstance(ex.user, AnonymousUser)


async def test_an_anonymous_caller_of_a_login_required_server_is_challenged() -> None:
    reply = await endpoint(LoginServer).serve(exchange())

    assert reply.status == 401
    assert reply.header("WWW-Authenticate") == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
    )


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_a_sessionless_get_or_delete_is_405_with_a_page_and_allow_post(method: str) -> None:
    reply = await endpoint().serve(exchange(method=method))

    assert (reply.status, reply.header("Allow")) == (405, "POST")
    assert reply.header("Content-Type") == "text/plain; charset=utf-8"
    assert b"MCP endpoint of the server 'who'" in reply.body


@pytest.mark.parametrize(("long_streams", "allow"), [(True, "POST, GET, DELETE"), (False, "POST, DELETE")])
async def test_another_method_in_a_session_names_the_methods_that_work(long_streams: Any, allow: str) -> None:
    ex = exchange(method="PUT", headers={"Mcp-Session-Id": "s"}, long_streams=long_streams)

    reply = await endpoint().serve(ex)

    assert (reply.status, reply.header("Allow"), reply.body) == (405, allow, b"")


async def test_a_message_neither_era_can_serve_is_400() -> None:
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}

    reply = await endpoint().serve(exchange(message, drop=("MCP-Protocol-Version",)))

    assert reply.status == 400
    assert decoded(reply)["error"]["code"] == jsonrpc.INVALID_REQUEST


async def test_an_unexpected_failure_is_a_json_500_without_details(monkeypatch: Any) -> None:
    from django_mcp.transports import _endpoint

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(_endpoint, "parse_message", explode)
    reply = await endpoint().serve(exchange())

    assert (reply.status, reply.header("Content-Type")) == (500, "application/json")
    assert b"secret" not in reply.body
    assert decoded(reply)["error"]["code"] == jsonrpc.INTERNAL_ERROR
