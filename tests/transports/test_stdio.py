"""Tests of the STDIO transport, driven in-process with in-memory streams.

``serve_stdio`` reads an ``asyncio.StreamReader`` fed by the test and
writes through a collecting coroutine; every wait is bounded. Whole
JSON-RPC objects are compared, error messages never are (``ANY``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, ClassVar
from unittest.mock import ANY

import msgspec
import pytest

import django_mcp
from django_mcp import McpRequest, McpResponse, Resource, Server, Tool
from django_mcp.dispatcher import subscriptions
from django_mcp.events import Event, EventBackend, Interest
from django_mcp.inputs import elicit, input_required
from django_mcp.protocol import jsonrpc
from django_mcp.transports.stdio import serve_stdio
from tests.wire import (
    META_CAPABILITIES,
    META_LOG_LEVEL,
    META_SERVER_INFO,
    META_VERSION,
    MODERN,
    modern_meta,
    modern_request,
    tool_request,
)

TIMEOUT = 5.0  # seconds, for every wait
LEGACY = "2025-11-25"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


# ---------------------------------------------------------------- server


class Gate:
    """Lets a test hold a tool inside its handler and watch it end."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()
        self.cancelled = asyncio.Event()


class EchoTool(Tool):
    """Repeat the text."""

    name = "echo"
    input: ClassVar[Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }

    async def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text(payload["text"])


class WaitTool(Tool):
    """Wait until the test opens the gate."""

    name = "wait"
    gate: ClassVar[Gate]

    async def handle(self) -> McpResponse:
        gate = type(self).gate
        gate.entered.set()
        try:
            await gate.opened.wait()
        except asyncio.CancelledError:
            gate.cancelled.set()
            raise
        return McpResponse.text("opened")


class CountTool(Tool):
    """Count to two, reporting progress."""

    name = "count"

    async def handle(self) -> AsyncIterator[McpResponse]:
        yield McpResponse.progress(1, 2, "one")
        yield McpResponse.progress(2, 2, "two")
        yield McpResponse.text("counted")


class ChattyTool(Tool):
    """Log at two levels from a worker thread."""

    name = "chatty"

    def handle(self, request: McpRequest) -> McpResponse:
        request.log("debug", "detail")
        request.log("warning", "careful")
        return McpResponse.text("said")


class AskNameTool(Tool):
    """Greet the user by the name they give."""

    name = "ask-name"

    async def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("user_name")
        if answer is None:
            return input_required({"user_name": elicit("What is your name?", NAME_FORM)})
        return McpResponse.text(f"Hello, {answer['content']['name']}!")


class NoteResource(Resource):
    """A note."""

    name = "note"
    uri = "note://one"

    async def handle(self) -> McpResponse:
        return McpResponse.text("a note")


class StdioServer(Server):
    name = "stdio-test"
    version = "1.0.0"
    tools = (EchoTool, WaitTool, CountTool, ChattyTool, AskNameTool)
    resources = (NoteResource,)


SERVER_INFO = {"name": "stdio-test", "version": "1.0.0"}
CAPABILITIES = {
    "tools": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
    "logging": {},
}


# --------------------------------------------------------------- helpers


def legacy(method: str, params: dict[str, Any] | None = None, *, request_id: Any = 1) -> dict[str, Any]:
    """Return a request without ``_meta`` (2025-11-25 style)."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def text_result(request_id: Any, text: str) -> dict[str, Any]:
    """Return the 2026-07-28 response of a tool answering ``text``."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "_meta": {META_SERVER_INFO: SERVER_INFO},
        },
    }


def error(code: int, request_id: Any = None) -> dict[str, Any]:
    """Return a JSON-RPC error object (any message)."""
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        body["id"] = request_id
    body["error"] = {"code": code, "message": ANY}
    return body


def cancelled(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


INITIALIZE = legacy(
    "initialize",
    {
        "protocolVersion": LEGACY,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "old", "version": "1"},
    },
    request_id=0,
)


class Peer:
    """The client side of ``serve_stdio``: feed lines, read whole messages."""

    def __init__(self, server: type[Server], *, grace: float) -> None:
        self.reader = asyncio.StreamReader()
        self.lines: list[bytes] = []
        self._received: asyncio.Queue[bytes] = asyncio.Queue()
        self.task = asyncio.create_task(
            serve_stdio(server, reader=self.reader, write=self._write, grace=grace)
        )

    async def _write(self, line: bytes) -> None:
        self.lines.append(line)
        await self._received.put(line)

    def send(self, *messages: dict[str, Any] | bytes) -> None:
        """Write messages to the server's input, one line each."""
        for message in messages:
            line = message if isinstance(message, bytes) else json.dumps(message).encode()
            self.reader.feed_data(line + b"\n")

    async def recv(self) -> dict[str, Any]:
        """Return the next message the server wrote."""
        line = await asyncio.wait_for(self._received.get(), TIMEOUT)
        assert line.endswith(b"\n") and b"\n" not in line[:-1]
        message: dict[str, Any] = json.loads(line)
        return message

    async def ask(self, message: dict[str, Any] | bytes) -> dict[str, Any]:
        """Send one message and return the next one written."""
        self.send(message)
        return await self.recv()

    async def close(self) -> None:
        """End the input and wait for the server to return."""
        if not self.reader.at_eof():
            self.reader.feed_eof()
        await asyncio.wait_for(self.task, TIMEOUT)

    def sent_ids(self) -> list[Any]:
        """Return the ids of every message written so far."""
        return [json.loads(line).get("id") for line in self.lines]


@pytest.fixture
def gate() -> Iterator[Gate]:
    WaitTool.gate = Gate()
    yield WaitTool.gate
    del WaitTool.gate


@pytest.fixture
async def connect() -> AsyncIterator[Callable[..., Peer]]:
    peers: list[Peer] = []

    def start(server: type[Server] = StdioServer, *, grace: float = 1.0) -> Peer:
        peer = Peer(server, grace=grace)
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        if not peer.task.done():
            peer.reader.feed_eof()
            await asyncio.wait_for(peer.task, TIMEOUT)


# ------------------------------------------------------------- 2026-07-28


async def test_discover_names_both_eras_and_the_capabilities(connect: Callable[..., Peer]) -> None:
    peer = connect()

    answer = await peer.ask(modern_request("server/discover"))

    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "supportedVersions": [MODERN, "2025-11-25", "2025-06-18", "2025-03-26"],
            "capabilities": CAPABILITIES,
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {META_SERVER_INFO: SERVER_INFO},
        },
    }


async def test_tools_call_answers_with_one_compact_line(connect: Callable[..., Peer]) -> None:
    peer = connect()

    answer = await peer.ask(tool_request("echo", {"text": "hi"}, request_id="a"))

    assert answer == text_result("a", "hi")
    assert peer.lines == [msgspec.json.encode(answer) + b"\n"]


async def test_a_fast_request_overtakes_a_slow_one(connect: Callable[..., Peer], gate: Gate) -> None:
    peer = connect()
    peer.send(tool_request("wait", request_id=1))
    await asyncio.wait_for(gate.entered.wait(), TIMEOUT)

    fast = await peer.ask(tool_request("echo", {"text": "fast"}, request_id=2))
    gate.opened.set()
    slow = await peer.recv()

    assert (fast, slow) == (text_result(2, "fast"), text_result(1, "opened"))


async def test_progress_notifications_precede_the_response(connect: Callable[..., Peer]) -> None:
    peer = connect()
    peer.send(tool_request("count", request_id=3, meta=modern_meta(progressToken="tok")))

    messages = [await peer.recv() for _ in range(3)]

    assert messages == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": 1, "total": 2, "message": "one"},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "tok", "progress": 2, "total": 2, "message": "two"},
        },
        text_result(3, "counted"),
    ]


async def test_progress_needs_a_progress_token(connect: Callable[..., Peer]) -> None:
    peer = connect()

    assert await peer.ask(tool_request("count", request_id=3)) == text_result(3, "counted")


async def test_log_messages_from_a_thread_precede_the_response(connect: Callable[..., Peer]) -> None:
    peer = connect()
    peer.send(tool_request("chatty", request_id=4, meta=modern_meta(**{META_LOG_LEVEL: "info"})))

    messages = [await peer.recv(), await peer.recv()]

    assert messages == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "warning", "data": "careful"},
        },
        text_result(4, "said"),
    ]


async def test_log_messages_need_a_log_level(connect: Callable[..., Peer]) -> None:
    peer = connect()

    assert await peer.ask(tool_request("chatty", request_id=4)) == text_result(4, "said")


async def test_cancelled_request_is_stopped_and_never_answered(
    connect: Callable[..., Peer], gate: Gate
) -> None:
    peer = connect()
    peer.send(tool_request("wait", request_id=7))
    await asyncio.wait_for(gate.entered.wait(), TIMEOUT)

    peer.send(cancelled(7))
    await asyncio.wait_for(gate.cancelled.wait(), TIMEOUT)
    after = await peer.ask(tool_request("echo", {"text": "next"}, request_id=8))
    await peer.close()

    assert after == text_result(8, "next")
    assert peer.sent_ids() == [8]


async def test_cancelling_an_unknown_request_is_ignored(connect: Callable[..., Peer]) -> None:
    peer = connect()
    peer.send(cancelled(99), cancelled({"not": "an id"}))

    assert await peer.ask(tool_request("echo", {"text": "still here"})) == text_result(1, "still here")


async def test_end_of_input_cancels_requests_and_returns(connect: Callable[..., Peer], gate: Gate) -> None:
    peer = connect(grace=0)
    peer.send(tool_request("wait", request_id=1))
    await asyncio.wait_for(gate.entered.wait(), TIMEOUT)

    await peer.close()

    assert gate.cancelled.is_set()
    assert peer.lines == []


async def test_end_of_input_lets_a_quick_request_finish(connect: Callable[..., Peer]) -> None:
    peer = connect()
    peer.send(tool_request("echo", {"text": "last"}))

    await peer.close()

    assert [json.loads(line) for line in peer.lines] == [text_result(1, "last")]


async def test_a_closed_output_does_not_stop_the_loop() -> None:
    reader = asyncio.StreamReader()
    attempts: list[bytes] = []

    async def broken(line: bytes) -> None:
        attempts.append(line)
        raise BrokenPipeError

    reader.feed_data(json.dumps(modern_request("server/discover")).encode() + b"\n")
    reader.feed_data(json.dumps(modern_request("server/discover", request_id=2)).encode() + b"\n")
    reader.feed_eof()

    await asyncio.wait_for(serve_stdio(StdioServer, reader=reader, write=broken), TIMEOUT)

    assert len(attempts) == 1


# ------------------------------------------------------------ bad input


async def test_invalid_json_is_a_parse_error_without_id(connect: Callable[..., Peer]) -> None:
    peer = connect()

    answer = await peer.ask(b'{"jsonrpc": "2.0", "id": 1, "method": ')

    assert answer == error(jsonrpc.PARSE_ERROR)


@pytest.mark.parametrize(
    ("line", "request_id"),
    [
        (b"[]", None),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', None),
        (b'{"jsonrpc": "1.0", "id": 5, "method": "tools/list"}', 5),
        (b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', None),
        (b'{"jsonrpc": "2.0", "id": 6}', 6),
    ],
)
async def test_invalid_request_is_answered_and_the_loop_goes_on(
    connect: Callable[..., Peer], line: bytes, request_id: Any
) -> None:
    peer = connect()

    answer = await peer.ask(line)
    after = await peer.ask(tool_request("echo", {"text": "ok"}, request_id=9))

    assert (answer, after) == (error(jsonrpc.INVALID_REQUEST, request_id), text_result(9, "ok"))


# Past the interpreter's recursion limit the decoder gives up before the id
# can be read, so the error carries none.
@pytest.mark.parametrize(("depth", "request_id"), [(65, 4), (5000, None)])
async def test_deeply_nested_line_is_answered_and_the_loop_goes_on(
    connect: Callable[..., Peer], depth: int, request_id: Any
) -> None:
    peer = connect()
    deep = (
        b'{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"x": '
        + b"[" * depth
        + b"]" * depth
        + b"}}"
    )

    answer = await peer.ask(deep)
    after = await peer.ask(tool_request("echo", {"text": "ok"}, request_id=9))

    assert (answer, after) == (error(jsonrpc.INVALID_REQUEST, request_id), text_result(9, "ok"))


async def test_oversized_line_is_an_invalid_request(connect: Callable[..., Peer], settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 400
    peer = connect()

    answer = await peer.ask(tool_request("echo", {"text": "x" * 1000}))
    after = await peer.ask(tool_request("echo", {"text": "small"}, request_id=2))

    assert (answer, after) == (error(jsonrpc.INVALID_REQUEST), text_result(2, "small"))


async def test_oversized_line_is_dropped_as_it_arrives(connect: Callable[..., Peer], settings: Any) -> None:
    settings.MCP_MAX_REQUEST_SIZE = 400
    peer = connect()

    peer.reader.feed_data(
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"x": "' + b"x" * 400
    )
    answer = await peer.recv()
    peer.reader.feed_data(b"y" * 400)
    peer.reader.feed_data(
        b'"}}\n' + json.dumps(tool_request("echo", {"text": "small"}, request_id=2)).encode() + b"\n"
    )
    after = await peer.recv()

    assert (answer, after) == (error(jsonrpc.INVALID_REQUEST), text_result(2, "small"))


async def test_crlf_line_endings_are_accepted(connect: Callable[..., Peer]) -> None:
    peer = connect()

    line = json.dumps(tool_request("echo", {"text": "hi"})).encode() + b"\r"

    assert await peer.ask(line) == text_result(1, "hi")


async def test_blank_lines_are_ignored(connect: Callable[..., Peer]) -> None:
    peer = connect()
    peer.send(b"", b"   \r")

    assert await peer.ask(tool_request("echo", {"text": "hi"})) == text_result(1, "hi")


async def test_request_without_meta_or_session_is_invalid_params(connect: Callable[..., Peer]) -> None:
    peer = connect()

    assert await peer.ask(legacy("tools/list", request_id=3)) == error(jsonrpc.INVALID_PARAMS, 3)


async def test_unsupported_modern_version_is_refused(connect: Callable[..., Peer]) -> None:
    peer = connect()
    body = modern_request("tools/list")
    body["params"]["_meta"][META_VERSION] = "2099-01-01"

    answer = await peer.ask(body)

    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
            "message": ANY,
            "data": {"supported": [MODERN], "requested": "2099-01-01"},
        },
    }


async def test_an_id_in_flight_cannot_be_reused(connect: Callable[..., Peer], gate: Gate) -> None:
    peer = connect()
    peer.send(tool_request("wait", request_id=1))
    await asyncio.wait_for(gate.entered.wait(), TIMEOUT)

    answer = await peer.ask(tool_request("echo", {"text": "dup"}, request_id=1))
    gate.opened.set()

    assert (answer, await peer.recv()) == (error(jsonrpc.INVALID_REQUEST, 1), text_result(1, "opened"))


async def test_a_response_from_a_modern_client_is_an_invalid_request(connect: Callable[..., Peer]) -> None:
    peer = connect()

    answer = await peer.ask({"jsonrpc": "2.0", "id": "x", "result": {}})

    assert answer == error(jsonrpc.INVALID_REQUEST, "x")


# --------------------------------------------------------- subscriptions


async def test_listen_acknowledges_then_delivers_list_changes(connect: Callable[..., Peer]) -> None:
    peer = connect()

    ack = await peer.ask(
        modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="s")
    )
    django_mcp.tools_changed(StdioServer)
    changed = await peer.recv()

    assert ack == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": {SUBSCRIPTION_ID: "s"}},
    }
    assert changed == {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": {SUBSCRIPTION_ID: "s"}},
    }


async def test_cancelled_listen_stops_without_a_result(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(
        modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="s")
    )

    peer.send(cancelled("s"))
    after = await peer.ask(modern_request("server/discover", request_id="d"))
    django_mcp.tools_changed(StdioServer)
    await peer.close()

    assert after["id"] == "d"
    assert peer.sent_ids() == [None, "d"]


async def test_listen_with_a_bad_filter_is_invalid_params(connect: Callable[..., Peer]) -> None:
    peer = connect()

    answer = await peer.ask(modern_request("subscriptions/listen", {"notifications": "all"}, request_id="s"))

    assert answer == error(jsonrpc.INVALID_PARAMS, "s")


async def test_end_of_input_ends_open_subscriptions_at_once(connect: Callable[..., Peer]) -> None:
    peer = connect(grace=60)
    await peer.ask(
        modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="s")
    )

    await peer.close()

    assert peer.sent_ids() == [None]


class EndingBackend(EventBackend):
    """An event backend whose streams end at once (e.g. a lost broker)."""

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[AsyncIterator[Event]]:
        async def nothing() -> AsyncIterator[Event]:
            return
            yield

        yield nothing()


async def test_listen_ended_by_the_server_gets_its_result_then_cancelled(
    connect: Callable[..., Peer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "get_backend", EndingBackend)
    peer = connect()
    peer.send(
        modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="s")
    )

    messages = [await peer.recv() for _ in range(3)]

    assert messages[1:] == [
        {"jsonrpc": "2.0", "id": "s", "result": {"resultType": "complete", "_meta": {SUBSCRIPTION_ID: "s"}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s", "reason": ANY}},
    ]


# ------------------------------------------------------------ 2025-11-25


async def test_legacy_session_serves_list_and_ping_beside_modern_requests(
    connect: Callable[..., Peer],
) -> None:
    peer = connect()

    initialized = await peer.ask(INITIALIZE)
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = await peer.ask(legacy("tools/list", request_id=1))
    pong = await peer.ask(legacy("ping", request_id=2))
    discover = await peer.ask(modern_request("server/discover", request_id=3))

    assert initialized == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"protocolVersion": LEGACY, "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO},
    }
    assert tools == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [msgspec.to_builtins(t.definition) for t in StdioServer.compiled().tools.values()]
        },
    }
    assert pong == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert discover["result"]["resultType"] == "complete"


async def test_ping_is_answered_before_initialize(connect: Callable[..., Peer]) -> None:
    peer = connect()

    assert await peer.ask(legacy("ping", request_id=5)) == {"jsonrpc": "2.0", "id": 5, "result": {}}


async def test_second_initialize_is_an_invalid_request(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(INITIALIZE)

    assert await peer.ask(INITIALIZE) == error(jsonrpc.INVALID_REQUEST, 0)


async def test_legacy_input_is_asked_with_a_server_to_client_request(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(INITIALIZE)

    asked = await peer.ask(legacy("tools/call", {"name": "ask-name"}, request_id=3))
    answer = await peer.ask(
        {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
    )

    assert asked == {
        "jsonrpc": "2.0",
        "id": ANY,
        "method": "elicitation/create",
        "params": {"message": "What is your name?", "requestedSchema": NAME_FORM},
    }
    assert isinstance(asked["id"], str)
    assert answer == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": False},
    }


async def test_legacy_client_refusing_input_gets_an_internal_error(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(INITIALIZE)

    asked = await peer.ask(legacy("tools/call", {"name": "ask-name"}, request_id=3))
    answer = await peer.ask({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "no"}})

    assert answer == error(jsonrpc.INTERNAL_ERROR, 3)


async def test_modern_input_is_asked_with_an_input_required_result(connect: Callable[..., Peer]) -> None:
    peer = connect()
    body = tool_request("ask-name", request_id=3)
    body["params"]["_meta"][META_CAPABILITIES] = {"elicitation": {}}

    answer = await peer.ask(body)

    assert answer["result"]["resultType"] == "input_required"
    assert answer["result"]["inputRequests"] == {
        "user_name": {
            "method": "elicitation/create",
            "params": {"message": "What is your name?", "requestedSchema": NAME_FORM},
        }
    }


async def test_legacy_subscription_receives_updates_and_list_changes(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(INITIALIZE)

    subscribed = await peer.ask(legacy("resources/subscribe", {"uri": "note://one"}, request_id=1))
    django_mcp.resource_updated(StdioServer, "note://other")
    django_mcp.resource_updated(StdioServer, "note://one")
    updated = await peer.recv()
    django_mcp.tools_changed(StdioServer)
    changed = await peer.recv()

    assert subscribed == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert updated == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "note://one"},
    }
    assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_legacy_log_level_applies_to_later_requests(connect: Callable[..., Peer]) -> None:
    peer = connect()
    await peer.ask(INITIALIZE)

    set_level = await peer.ask(legacy("logging/setLevel", {"level": "debug"}, request_id=1))
    peer.send(legacy("tools/call", {"name": "chatty"}, request_id=2))
    messages = [await peer.recv() for _ in range(3)]

    assert set_level == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert messages == [
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "detail"}},
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "warning", "data": "careful"},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"content": [{"type": "text", "text": "said"}], "isError": False},
        },
    ]
