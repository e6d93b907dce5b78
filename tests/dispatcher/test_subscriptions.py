"""Change notifications: acknowledgement, filtering and delivery.

``subscriptions/listen`` streams and 2025-11-25 session streams deliver a
resource update only when their caller may read the updated URI, and a
2025-11-25 ``resources/subscribe`` refuses a URI its caller may not read
exactly like an unknown one. A stream the server ends (events lost, a
buffer overrun, shutdown) ends cleanly: a listen stream with its result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from unittest.mock import ANY

import pytest

import django_mcp
from django_mcp import McpRequest, McpResponse, Resource, Server, Tool
from django_mcp.dispatcher import Dispatcher, subscriptions
from django_mcp.dispatcher.closing import CLOSING
from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import legacy_context, modern_context
from django_mcp.dispatcher.sessions import LocalSession
from django_mcp.events import Event, EventBackend, EventsLost, Interest
from django_mcp.exceptions import InternalError, NotificationsUnavailable
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.meta import META_SUBSCRIPTION_ID
from tests.fake_backends import RETRY_AFTER, DownBackend
from tests.wire import modern_request


class OpenResource(Resource):
    uri = "demo://open"

    def handle(self) -> McpResponse:
        return McpResponse.text("open")


class SecretResource(Resource):
    uri = "demo://secret"

    def authorize(self, request: McpRequest) -> bool:
        return False

    def handle(self) -> McpResponse:
        return McpResponse.text("secret")


class ItemResource(Resource):
    uri_template = "demo://items/{id}"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable
        return McpResponse.text(id)


class NoopTool(Tool):
    """Do nothing."""

    def handle(self) -> McpResponse:
        return McpResponse.text("ok")


class BoxResource(Resource):
    uri = "vault://box"

    def handle(self) -> McpResponse:
        return McpResponse.text("box")


class BoxSecretResource(Resource):
    uri = "vault://box/secret"
    permissions = ("demo.open_box",)

    def handle(self) -> McpResponse:
        return McpResponse.text("secret")


class BoxOpenResource(Resource):
    uri = "vault://box/open"

    def handle(self) -> McpResponse:
        return McpResponse.text("open")


class WatchedServer(Server):
    name = "watched"
    tools = (NoopTool,)
    resources = (OpenResource, SecretResource, ItemResource, BoxResource, BoxSecretResource, BoxOpenResource)


def _listen(notifications: dict[str, Any], request_id: Any = "sub-1") -> Any:
    body = modern_request("subscriptions/listen", {"notifications": notifications}, request_id=request_id)
    envelope = parse_message(json.dumps(body))
    return Dispatcher(WatchedServer.compiled()).listen(envelope, modern_context(envelope))


async def test_acknowledgement_keeps_only_uris_the_caller_may_read() -> None:
    stream = _listen(
        {
            "toolsListChanged": True,
            "promptsListChanged": True,  # the server has no prompts: dropped
            "resourceSubscriptions": ["demo://open", "demo://secret", "demo://items/7", "demo://nowhere"],
        }
    )
    ack = json.loads(await asyncio.wait_for(anext(stream), timeout=2))
    await stream.aclose()
    assert ack == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "notifications": {
                "toolsListChanged": True,
                "resourceSubscriptions": ["demo://open", "demo://items/7"],
            },
            "_meta": {META_SUBSCRIPTION_ID: "sub-1"},
        },
    }


async def test_updates_are_delivered_only_for_watched_uris_with_the_subscription_id() -> None:
    stream = _listen({"resourceSubscriptions": ["demo://items/7"]}, request_id=9)
    await asyncio.wait_for(anext(stream), timeout=2)  # the acknowledgement
    django_mcp.resource_updated(WatchedServer, "demo://open")  # not watched
    django_mcp.tools_changed(WatchedServer)  # not asked for
    django_mcp.resource_updated(WatchedServer, "demo://items/7")
    message = json.loads(await asyncio.wait_for(anext(stream), timeout=2))
    await stream.aclose()
    assert message == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "demo://items/7", "_meta": {META_SUBSCRIPTION_ID: 9}},
    }


# --------------------------------------- sub-resources the caller may not read


class _BoxOpener:
    is_authenticated = True
    is_active = True
    pk = 3

    async def ahas_perms(self, permissions: Any) -> bool:
        return True


async def _next(stream: Any) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(anext(stream), timeout=2))  # type: ignore[no-any-return]


def _listen_as(user: Any, notifications: dict[str, Any]) -> Any:
    body = modern_request("subscriptions/listen", {"notifications": notifications}, request_id="sub-2")
    envelope = parse_message(json.dumps(body))
    return Dispatcher(WatchedServer.compiled()).listen(envelope, modern_context(envelope, user=user))


@pytest.mark.parametrize(
    ("user", "first"), [(None, "vault://box/open"), (_BoxOpener(), "vault://box/secret")]
)
async def test_sub_resource_updates_reach_only_callers_who_may_read_them(user: Any, first: str) -> None:
    stream = _listen_as(user, {"resourceSubscriptions": ["vault://box"]})
    ack = await _next(stream)
    django_mcp.resource_updated(WatchedServer, "vault://box/secret")
    django_mcp.resource_updated(WatchedServer, "vault://box/open")
    message = await _next(stream)
    await stream.aclose()

    assert ack["params"]["notifications"] == {"resourceSubscriptions": ["vault://box"]}
    assert message["params"] == {"uri": first, "_meta": {META_SUBSCRIPTION_ID: "sub-2"}}


async def test_readability_is_decided_once_per_uri_for_the_life_of_a_stream() -> None:
    asked: list[str] = []

    async def readable(uri: str) -> bool:
        asked.append(uri)
        return uri != "vault://box/secret"

    honoured = {"resourceSubscriptions": ["vault://box"]}
    stream = subscriptions.listen(WatchedServer.compiled(), 1, honoured, readable)
    await _next(stream)
    for uri in ("vault://box/secret", "vault://box/open", "vault://box/secret", "vault://box/open"):
        django_mcp.resource_updated(WatchedServer, uri)
    delivered = [(await _next(stream))["params"]["uri"] for _ in range(2)]
    await stream.aclose()

    assert delivered == ["vault://box/open", "vault://box/open"]
    assert asked == ["vault://box", "vault://box/secret", "vault://box/open"]


def _legacy(method: str, params: dict[str, Any], session: LocalSession) -> tuple[Any, Any]:
    envelope = parse_message(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
    return envelope, legacy_context(envelope, session)


@pytest.mark.parametrize("uri", ["vault://box/secret", "demo://secret", "vault://nowhere"])
async def test_legacy_subscribe_refuses_unreadable_uris_like_unknown_ones(uri: str) -> None:
    session = LocalSession(version="2025-11-25", capabilities={})
    dispatcher = Dispatcher(WatchedServer.compiled())

    reply = await dispatcher.respond(*_legacy("resources/subscribe", {"uri": uri}, session))

    assert json.loads(reply.body) == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": jsonrpc.LEGACY_RESOURCE_NOT_FOUND, "message": ANY, "data": {"uri": uri}},
    }
    assert session.subscriptions == []


async def test_legacy_subscribe_accepts_a_readable_uri() -> None:
    session = LocalSession(version="2025-11-25", capabilities={})
    dispatcher = Dispatcher(WatchedServer.compiled())

    reply = await dispatcher.respond(*_legacy("resources/subscribe", {"uri": "vault://box"}, session))

    assert json.loads(reply.body) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert session.subscriptions == ["vault://box"]


@pytest.mark.parametrize(
    ("user", "first"), [(None, "vault://box/open"), (_BoxOpener(), "vault://box/secret")]
)
async def test_legacy_session_stream_delivers_only_updates_its_caller_may_read(user: Any, first: str) -> None:
    session = LocalSession(version="2025-11-25", capabilities={}, subscriptions=["vault://box"])

    async def current() -> LocalSession:
        return session

    stream = Dispatcher(WatchedServer.compiled()).session_notifications(current, user=user)
    assert await asyncio.wait_for(anext(stream), timeout=2) == b""
    django_mcp.resource_updated(WatchedServer, "vault://box/secret")
    django_mcp.resource_updated(WatchedServer, "vault://box/open")
    message = await _next(stream)
    await stream.aclose()

    assert message == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": first},
    }


async def test_a_legacy_stream_follows_its_sessions_later_subscribe_and_unsubscribe() -> None:
    session = LocalSession(version="2025-11-25", capabilities={})
    reads = 0

    async def current() -> LocalSession:
        nonlocal reads
        reads += 1
        return session

    stream = Dispatcher(WatchedServer.compiled()).session_notifications(current)
    assert await asyncio.wait_for(anext(stream), timeout=2) == b""
    await session.subscribe("demo://items/1")
    await LocalSession(version="2025-11-25", capabilities={}).subscribe("demo://open")  # another session's
    django_mcp.resource_updated(WatchedServer, "demo://open")
    django_mcp.resource_updated(WatchedServer, "demo://items/1")
    first = await _next(stream)
    await session.unsubscribe("demo://items/1")
    for _ in range(20):
        django_mcp.resource_updated(WatchedServer, "demo://items/1")
    django_mcp.tools_changed(WatchedServer)
    second = await _next(stream)
    await stream.aclose()

    assert first["params"] == {"uri": "demo://items/1"}
    assert second["method"] == "notifications/tools/list_changed"
    assert reads == 3  # to listen, once listening, for the first readability check: never per event


# ------------------------------------------------ streams the server ends


async def _rest(stream: Any) -> list[dict[str, Any]]:
    """Return the remaining messages of a stream that must end (bounded)."""

    async def drain() -> list[dict[str, Any]]:
        return [json.loads(item) async for item in stream if item]

    return await asyncio.wait_for(drain(), timeout=2)


def _listen_result(request_id: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: request_id}},
    }


async def test_listen_stream_past_its_buffer_ends_with_its_result(settings: Any) -> None:
    settings.MCP_STREAM_BUFFER = 3
    stream = _listen({"toolsListChanged": True}, request_id="sub-9")
    await _next(stream)  # the acknowledgement; nobody reads on

    for _ in range(10):
        django_mcp.tools_changed(WatchedServer)

    assert await _rest(stream) == [_listen_result("sub-9")]


async def test_server_shutdown_ends_listen_streams_with_their_result() -> None:
    stream = _listen({"toolsListChanged": True}, request_id=4)
    await _next(stream)
    try:
        CLOSING.begin()
        messages = await _rest(stream)
    finally:
        CLOSING.reset()

    assert messages == [_listen_result(4)]


async def test_server_shutdown_ends_legacy_session_streams() -> None:
    session = LocalSession(version="2025-11-25", capabilities={})

    async def current() -> LocalSession:
        return session

    stream = Dispatcher(WatchedServer.compiled()).session_notifications(current)
    assert await asyncio.wait_for(anext(stream), timeout=2) == b""
    try:
        CLOSING.begin()
        assert await _rest(stream) == []
    finally:
        CLOSING.reset()


class LostBackend(EventBackend):
    """An event backend whose listeners lose their events after one."""

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[AsyncIterator[Event]]:
        async def events() -> AsyncIterator[Event]:
            yield Event(WatchedServer.compiled().key, "tools")
            raise EventsLost("the broker went away")

        yield events()


async def test_listen_stream_whose_events_are_lost_ends_with_its_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subscriptions, "get_backend", LostBackend)
    stream = _listen({"toolsListChanged": True}, request_id="sub-3")
    await _next(stream)

    assert await _rest(stream) == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {META_SUBSCRIPTION_ID: "sub-3"}},
        },
        _listen_result("sub-3"),
    ]


async def test_listen_while_events_cannot_be_delivered_is_refused_before_its_first_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subscriptions, "get_backend", DownBackend)
    stream = _listen({"toolsListChanged": True})

    with pytest.raises(NotificationsUnavailable) as refused:
        await anext(stream)

    assert (refused.value.code, refused.value.http_status, refused.value.retry_after) == (
        jsonrpc.INTERNAL_ERROR,
        503,
        RETRY_AFTER,
    )


# ------------------------------------------- task status (tasks extension)

TASKS_DECLARED = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


class LongTool(Tool):
    name = "long"
    task = "optional"

    def handle(self, request: McpRequest) -> McpResponse:
        assert request.task is not None
        request.task.status_message = "halfway"
        return McpResponse.text("long done")


class TaskServer(Server):
    name = "task-server"
    tools = (LongTool,)


@pytest.fixture
def stored_tasks(settings: Any) -> None:
    """Store task runs without running them (the test runs them)."""
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"},
        "stored": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"},
    }
    settings.MCP_TASK_BACKEND = "stored"


async def _create_task(user: Any = None) -> str:
    from tests.wire import call, modern_meta

    reply = await call(
        TaskServer,
        "tools/call",
        {"name": "long", "arguments": {}},
        meta=modern_meta(TASKS_DECLARED),
        user=user,
    )
    return str(reply["result"]["taskId"])


def _listen_tasks(task_ids: list[str], *, declared: bool = True, user: Any = None) -> Any:
    from tests.wire import modern_meta

    body = modern_request(
        "subscriptions/listen",
        {"notifications": {"taskIds": task_ids}},
        request_id="sub-t",
        meta=modern_meta(TASKS_DECLARED if declared else {}),
    )
    envelope = parse_message(json.dumps(body))
    return Dispatcher(TaskServer.compiled()).listen(envelope, modern_context(envelope, user=user))


async def _until_status(stream: Any, status: str) -> list[dict[str, Any]]:
    seen = []
    while not seen or seen[-1]["params"]["status"] != status:
        message = await _next(stream)
        assert message["method"] == "notifications/tasks", message
        seen.append(message)
    return seen


@pytest.mark.django_db(transaction=True)
async def test_a_listen_stream_naming_a_task_follows_it_until_it_ends(stored_tasks: None) -> None:
    from django_mcp.tasks import run as background

    task_id = await _create_task()
    stream = _listen_tasks([task_id, "not-a-task-of-yours"])
    ack = await _next(stream)
    first = await _next(stream)

    await background.run(task_id)
    seen = await _until_status(stream, "completed")
    await stream.aclose()

    assert ack["params"] == {
        "notifications": {"taskIds": [task_id]},
        "_meta": {META_SUBSCRIPTION_ID: "sub-t"},
    }
    assert first["method"] == "notifications/tasks"
    assert first["params"] == {
        "taskId": task_id,
        "status": "working",
        "statusMessage": "queued",
        "createdAt": ANY,
        "lastUpdatedAt": ANY,
        "ttlMs": ANY,
        "pollIntervalMs": 1000,
        "_meta": {META_SUBSCRIPTION_ID: "sub-t"},
    }
    assert [m["params"].get("statusMessage") for m in seen][-1] == "halfway"
    assert seen[-1]["params"]["result"]["content"] == [{"type": "text", "text": "long done"}]


@pytest.mark.django_db(transaction=True)
async def test_a_task_that_cannot_be_read_now_does_not_end_the_listen_stream(
    stored_tasks: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from django_mcp.tasks import run as background
    from django_mcp.tasks import watch

    task_id = await _create_task()
    original = watch.checked
    failing = [True]

    async def checked_once_failing(record: Any) -> Any:
        if failing.pop() if failing else False:
            raise InternalError("the task could not be requeued")
        return await original(record)

    monkeypatch.setattr(watch, "checked", checked_once_failing)
    stream = _listen_tasks([task_id])
    ack = await _next(stream)  # its current status could not be read: none is sent

    await background.run(task_id)
    seen = await _until_status(stream, "completed")
    await stream.aclose()

    assert ack["params"]["notifications"] == {"taskIds": [task_id]}
    assert seen[-1]["params"]["taskId"] == task_id
    assert "Could not read task" in caplog.text


@pytest.mark.django_db(transaction=True)
async def test_a_listen_stream_never_names_another_callers_task(stored_tasks: None) -> None:
    task_id = await _create_task(user=_BoxOpener())

    stream = _listen_tasks([task_id])
    ack = await _next(stream)
    await stream.aclose()

    assert ack["params"]["notifications"] == {"taskIds": []}


@pytest.mark.django_db(transaction=True)
async def test_task_ids_without_the_extension_declared_are_missing_capability(stored_tasks: None) -> None:
    from django_mcp.exceptions import MissingClientCapability

    with pytest.raises(MissingClientCapability) as refused:
        _listen_tasks(["anything"], declared=False)

    assert refused.value.code == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }


@pytest.mark.django_db(transaction=True)
async def test_a_listen_stream_ends_a_watched_task_whose_worker_died(
    stored_tasks: None, settings: Any
) -> None:
    import datetime

    from django.utils import timezone

    from django_mcp.models import McpTask

    settings.MCP_TASK_LEASE_TIMEOUT = 0.3
    task_id = await _create_task()
    past = timezone.now() - datetime.timedelta(seconds=1)
    await McpTask.objects.filter(pk=task_id).aupdate(running=True, runs=1, lease_expires_at=past)
    stream = _listen_tasks([task_id])
    await _next(stream)  # the acknowledgement

    seen = await _until_status(stream, "failed")
    await stream.aclose()

    assert seen[-1]["params"]["error"] == {
        "code": jsonrpc.INTERNAL_ERROR,
        "message": "The worker running this task stopped",
    }
