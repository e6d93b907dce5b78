"""The sync driver (``_bridge.SyncDriver``) and the view it lets be async in a loop, sync outside.

Under Django's WSGI handler (here: the sync test ``Client``) the view is a
sync view: a request that never waits is answered in the calling thread
with no event loop thread; one that waits has its sync work run in the
calling thread, as ``async_to_sync`` would, so it shares that thread's
database connection.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from asgiref.sync import iscoroutinefunction
from django.contrib.auth import get_user_model
from django.test import AsyncClient, Client
from django.urls import path

from django_mcp import McpResponse, Server, Tool
from django_mcp.schemas import Schema
from django_mcp.transports import _bridge
from django_mcp.transports.http import McpView
from tests.wire import modern_headers, tool_request

pytestmark = pytest.mark.timeout(10)

seen_threads: list[int] = []


class TextInput(Schema):
    """One text argument."""

    text: str


class EchoTool(Tool[TextInput]):
    """Answer at once (never waits)."""

    name = "echo"

    async def handle(self, payload: TextInput) -> McpResponse:
        return McpResponse.text(payload.text)


class WaitingTool(Tool[TextInput]):
    """Wait on the event loop before answering."""

    name = "waiting"

    async def handle(self, payload: TextInput) -> McpResponse:
        await asyncio.sleep(0.01)
        return McpResponse.text(payload.text)


class SyncTool(Tool[TextInput]):
    """A sync tool: note the thread it runs in."""

    name = "sync"

    def handle(self, payload: TextInput) -> McpResponse:
        seen_threads.append(threading.get_ident())
        return McpResponse.text(payload.text)


class FailingTool(Tool):
    """Raise after waiting: the failure must reach the view's own handling."""

    name = "failing"

    async def handle(self) -> McpResponse:
        await asyncio.sleep(0)
        raise RuntimeError("secret detail")


class CountUsersTool(Tool):
    """Count the users named ``dual-view`` through the ORM (a sync tool)."""

    name = "count_users"

    def handle(self) -> McpResponse:
        return McpResponse.text(str(get_user_model().objects.filter(username="dual-view").count()))


class DualServer(Server):
    """The components of this module."""

    name = "dual"
    tools = [EchoTool, WaitingTool, SyncTool, FailingTool, CountUsersTool]


urlpatterns = [path("mcp", DualServer.as_view())]


@pytest.fixture(autouse=True)
def _urls(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    seen_threads.clear()


def _call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> tuple[int, Any]:
    body = tool_request(name, arguments if arguments is not None else {"text": "hi"})
    response = client.post(
        "/mcp", data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )
    return response.status_code, json.loads(response.content)


def test_the_view_is_a_coroutine_function_only_inside_an_event_loop() -> None:
    view = DualServer.as_view()

    async def inside() -> bool:
        return iscoroutinefunction(view)

    assert isinstance(view, McpView)
    assert iscoroutinefunction(view) is False
    assert asyncio.run(inside()) is True
    assert view.csrf_exempt is True  # type: ignore[attr-defined]
    assert view.endpoint.dispatcher.compiled.server is DualServer


def test_a_request_that_never_waits_starts_no_thread(monkeypatch: Any) -> None:
    def no_thread(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a thread was started")

    monkeypatch.setattr(_bridge.threading, "Thread", no_thread)

    status, body = _call(Client(), "echo")

    assert status == 200
    assert body["result"]["content"] == [{"type": "text", "text": "hi"}]


def test_a_request_that_waits_is_carried_on_in_a_loop_thread() -> None:
    status, body = _call(Client(), "waiting", {"text": "later"})

    assert status == 200
    assert body["result"]["content"] == [{"type": "text", "text": "later"}]


def test_sync_work_runs_in_the_calling_thread() -> None:
    status, body = _call(Client(), "sync")

    assert status == 200, body
    assert seen_threads == [threading.get_ident()]


def test_a_failure_after_waiting_is_the_views_json_error() -> None:
    status, body = _call(Client(), "failing")

    assert status == 200
    assert body["result"]["isError"] is True
    assert "secret detail" not in json.dumps(body)


@pytest.mark.django_db
def test_the_orm_in_a_sync_tool_sees_the_callers_transaction() -> None:
    get_user_model().objects.create_user("dual-view")  # inside the test's transaction

    status, body = _call(Client(), "count_users", {})

    assert status == 200, body
    assert body["result"]["content"] == [{"type": "text", "text": "1"}]


async def test_under_an_event_loop_the_view_is_awaited_as_before() -> None:
    body = tool_request("waiting", {"text": "async"})
    response = await AsyncClient().post(
        "/mcp", data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )

    assert response.status_code == 200
    assert json.loads(response.content)["result"]["content"] == [{"type": "text", "text": "async"}]


def test_async_to_sync_still_works_in_the_thread_afterwards() -> None:
    from asgiref.sync import async_to_sync

    _call(Client(), "sync")  # sync work ran in this thread

    async def answer() -> int:
        return 42

    # Before the fix asgiref scheduled this onto the request's idle loop: a hang.
    assert async_to_sync(answer)() == 42


# ------------------------------------------------------- the driver itself


def _driven(main: Any) -> tuple[Any, _bridge.SyncDriver]:
    driver = _bridge.SyncDriver()
    try:
        return driver.run(main), driver
    finally:
        driver.close()


def test_a_request_answered_in_its_first_step_makes_no_caller_thread() -> None:
    async def main() -> str:
        return "at once"

    answer, driver = _driven(main)

    assert answer == "at once"
    assert driver.caller is None  # nor asgiref's notes read, nor a loop thread started
    assert driver._runner is None


def test_a_third_partys_sync_to_async_runs_in_the_calling_thread() -> None:
    from asgiref.sync import sync_to_async

    async def main() -> int:
        return await sync_to_async(threading.get_ident)()  # thread-sensitive, as Django's async ORM

    ident, driver = _driven(main)

    assert ident == threading.get_ident()
    assert driver.caller is not None


def test_inside_async_to_sync_the_request_s_work_still_runs_in_its_own_thread() -> None:
    from asgiref.sync import async_to_sync, sync_to_async

    def served() -> tuple[int, int]:
        # A WSGI app called from sync code under async_to_sync: that caller's
        # executor, inherited here, would take the work and deadlock.
        async def main() -> int:
            return await sync_to_async(threading.get_ident)()

        return _driven(main)[0], threading.get_ident()

    async def outer() -> tuple[int, int]:
        return await sync_to_async(served)()

    ran_in, serving = async_to_sync(outer)()

    assert ran_in == serving


def test_work_of_a_task_that_outlived_its_request_is_refused() -> None:
    driver = _bridge.SyncDriver()
    driver.close()

    with pytest.raises(RuntimeError, match="has ended"):
        driver.submit(threading.get_ident)
