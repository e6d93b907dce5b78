"""Deciding what observes requests, and what a request pays when nothing does.

django_mcp/observability/__init__.py and _state.py: each dispatcher builds
its request chain once from ``OBSERVATION``, with the observing link only
while ``OBSERVATION.active``, and again after it changes. With nothing observing
(no provider, audit off, the call log's logger off, no signal receiver) a
request makes no Python call into the observability code: counted with
``sys.setprofile`` on one warmed-up request, never timed.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import django_mcp
from django_mcp import observability
from django_mcp.observability._state import OBSERVATION
from django_mcp.signals import mcp_request_finished
from django_mcp.testing import McpTestClient
from tests.echo_server import EchoServer
from tests.observability.conftest import Otel

PACKAGE = Path(django_mcp.__file__).parent
#: Code that exists only to observe requests.
OBSERVING_CODE = (str(PACKAGE / "observability"), str(PACKAGE / "signals.py"))


def count_calls(run: Any) -> tuple[int, list[str]]:
    """Return how many Python calls ``run()`` makes, and those into observing code."""
    calls = 0
    observing: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1
            if frame.f_code.co_filename.startswith(OBSERVING_CODE):
                observing.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls, observing


@pytest.fixture
def nothing_observes() -> Iterator[None]:
    observability.instrument()  # no provider in this process
    assert not mcp_request_finished.receivers
    assert not logging.getLogger("django_mcp.calls").isEnabledFor(logging.INFO)
    yield


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop of this thread: the profiled request runs where the profile is set."""
    running = asyncio.new_event_loop()
    try:
        yield running
    finally:
        running.close()


def echo_once(client: McpTestClient, loop: asyncio.AbstractEventLoop) -> Any:
    def run() -> None:
        loop.run_until_complete(client.call_tool("echo", {"text": "hi"})).assert_ok()

    return run


@pytest.mark.usefixtures("nothing_observes")
def test_with_nothing_observing_a_request_makes_no_call_into_the_observing_code(
    loop: asyncio.AbstractEventLoop,
) -> None:
    client = McpTestClient(EchoServer)
    run = echo_once(client, loop)
    run()  # warm up: the first request after a dispatcher is built decides
    assert not OBSERVATION.active

    _calls, observing = count_calls(run)

    assert observing == []


def test_observing_costs_calls_that_nothing_observing_does_not(
    otel: Otel, loop: asyncio.AbstractEventLoop
) -> None:
    client = McpTestClient(EchoServer)
    run = echo_once(client, loop)
    run()
    observed, observing = count_calls(run)
    assert observing != []
    assert len(otel.spans()) == 2

    observability.instrument()  # back to no provider
    run()
    plain, none = count_calls(run)

    assert none == []
    assert plain < observed


def test_connecting_a_receiver_has_the_next_request_decide_again(
    nothing_observes: None, loop: asyncio.AbstractEventLoop
) -> None:
    client = McpTestClient(EchoServer)
    run = echo_once(client, loop)
    run()
    assert not OBSERVATION.active
    seen: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        seen.append(kwargs)

    mcp_request_finished.connect(receiver)
    try:
        assert OBSERVATION.active and OBSERVATION.stale
        run()
        assert OBSERVATION.active and not OBSERVATION.stale
        assert [item["component"] for item in seen] == ["echo"]
    finally:
        mcp_request_finished.disconnect(receiver)
    run()
    assert not OBSERVATION.active


def test_a_changed_setting_has_the_next_request_decide_again(
    nothing_observes: None, settings: Any, loop: asyncio.AbstractEventLoop
) -> None:
    run = echo_once(McpTestClient(EchoServer), loop)
    run()
    assert not OBSERVATION.active

    settings.MCP_AUDIT = "writes"

    assert OBSERVATION.stale
    observability.refresh()
    assert OBSERVATION.active and OBSERVATION.audit == "writes"


def test_refresh_sees_a_logger_enabled_at_run_time(
    nothing_observes: None, loop: asyncio.AbstractEventLoop
) -> None:
    calls_logger = logging.getLogger("django_mcp.calls")
    run = echo_once(McpTestClient(EchoServer), loop)
    run()
    assert not OBSERVATION.active
    calls_logger.setLevel(logging.INFO)
    try:
        observability.refresh()
        assert OBSERVATION.active and OBSERVATION.calls
    finally:
        calls_logger.setLevel(logging.NOTSET)
        observability.refresh()
    assert not OBSERVATION.active


def test_the_request_chain_is_built_once_until_what_observes_changes(
    nothing_observes: None, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django_mcp.dispatcher import Dispatcher

    built: list[Dispatcher] = []
    load_chain = Dispatcher.load_chain

    def counted(self: Dispatcher) -> Any:
        built.append(self)
        return load_chain(self)

    monkeypatch.setattr(Dispatcher, "load_chain", counted)
    run = echo_once(McpTestClient(EchoServer), loop)
    run()
    built.clear()

    run()
    run()
    assert built == []

    def receiver(sender: Any, **kwargs: Any) -> None:
        pass

    mcp_request_finished.connect(receiver)
    try:
        run()
        run()
        assert len(built) == 1
    finally:
        mcp_request_finished.disconnect(receiver)


def test_an_observed_request_enters_the_dispatcher_once(
    otel: Otel, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django_mcp.dispatcher import Dispatcher

    entries: list[str] = []
    respond = Dispatcher.respond

    def counted(self: Dispatcher, envelope: Any, ctx: Any, emit: Any = None) -> Any:
        entries.append(envelope.method)
        return respond(self, envelope, ctx, emit)

    monkeypatch.setattr(Dispatcher, "respond", counted)
    run = echo_once(McpTestClient(EchoServer), loop)
    run()
    entries.clear()

    run()

    assert entries == ["tools/call"]
    assert len(otel.spans()) == 2
