"""The PostgreSQL event backend carries change events between processes.

Two backend instances stand for two worker processes: what one announces,
the other's listeners receive. The first tests use the local PostgreSQL
server (skipped with a reason where none answers, or psycopg is missing),
through a ``DATABASES`` alias of their own, ``events``. Fault tests run a
private server (``private_postgres``: skipped without the server
programs), which they restart; every wait is bounded. Several real worker
processes are in ``tests/live/test_workers.py``.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.checks import run_checks
from django.db import connections, transaction

import django_mcp
from django_mcp.events import Event, EventsLost, EventsUnavailable, server_key
from django_mcp.events import postgres as pg_events
from django_mcp.events.postgres import MAX_PAYLOAD, PostgresEventBackend
from django_mcp.protocol import jsonrpc
from tests.events.backend_contract import a_subscribe_routes_later_updates_to_the_sessions_stream

WAIT = 5.0  # seconds: upper bound of every wait below
ALIAS = "events"
LOCAL = {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": "postgres",
    "USER": os.environ.get("MCP_TEST_PG_USER", "postgres"),
    "HOST": os.environ.get("MCP_TEST_PG_HOST", "127.0.0.1"),
    "PORT": os.environ.get("MCP_TEST_PG_PORT", "5432"),
}


def _local_up() -> str | None:
    """Return why the local PostgreSQL cannot serve these tests, or None."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (the test extra)"
    try:
        with psycopg.connect(
            dbname="postgres", user=LOCAL["USER"], host=LOCAL["HOST"], port=LOCAL["PORT"], connect_timeout=2
        ):
            return None
    except psycopg.OperationalError as exc:
        return f"no PostgreSQL answers at {LOCAL['HOST']}:{LOCAL['PORT']}: {exc}"


_LOCAL_PROBLEM = _local_up()
local_postgres = pytest.mark.skipif(_LOCAL_PROBLEM is not None, reason=str(_LOCAL_PROBLEM))


@contextlib.contextmanager
def _alias(name: str, settings_dict: dict[str, Any]) -> Iterator[None]:
    """Add ``name`` to the ``DATABASES`` aliases Django knows, for the block only."""
    configured = connections.configure_settings({**connections.settings, name: dict(settings_dict)})
    connections.settings[name] = configured[name]
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError):
            del connections[name]
        del connections.settings[name]
        # The publishing thread keeps a connection to the alias's database.
        with pg_events._publishers_lock:
            for key in [key for key in pg_events._publishers if key[0] == name]:
                pg_events._publishers.pop(key).close()


class EventsBackend(PostgresEventBackend):
    """The backend on the ``events`` alias."""

    alias = ALIAS


#: A ``DATABASES`` alias that is not PostgreSQL, whatever database the suite runs on.
SQLITE_ALIAS = "sqlite_events"


class SqliteBackend(PostgresEventBackend):
    """The backend misconfigured: on the SQLite alias ``SQLITE_ALIAS``."""

    alias = SQLITE_ALIAS


@pytest.fixture
def sqlite_alias() -> Iterator[None]:
    """Add the in-memory SQLite alias ``SQLITE_ALIAS`` for the test."""
    with _alias(SQLITE_ALIAS, {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}):
        yield


@pytest.fixture
def backends() -> Iterator[tuple[PostgresEventBackend, PostgresEventBackend]]:
    """Return two backends (two "workers") on the local PostgreSQL."""
    with _alias(ALIAS, LOCAL):
        yield EventsBackend(), EventsBackend()


def _flushed(backend: PostgresEventBackend) -> None:
    assert pg_events._publisher(backend.alias, backend.channel).flush(WAIT)


@local_postgres
async def test_event_published_by_one_worker_reaches_listeners_of_another(backends: Any) -> None:
    publisher, listener = backends
    event = Event("app.mcp.Server", "resource_updated", "demo://x")
    async with listener.listen() as events:
        publisher.publish(event)
        received = await asyncio.wait_for(anext(events), WAIT)
    assert received == event


@local_postgres
async def test_a_task_event_reaches_another_worker_with_its_task_id(backends: Any) -> None:
    publisher, listener = backends
    async with listener.listen() as events:
        publisher.publish(Event("", "task", task_id="t-1"))
        received = await asyncio.wait_for(anext(events), WAIT)
    assert received == Event("", "task", task_id="t-1")


class AnnouncedServer(django_mcp.Server):
    name = "announced"


def _announce_in_short_lived_loops(count: int) -> None:
    """Announce from coroutines of event loops that end right after (a task, a command)."""

    async def announce() -> None:
        django_mcp.tools_changed(AnnouncedServer)

    for index in range(count):
        if index % 2:
            asyncio.run(announce())
        else:
            async_to_sync(announce)()
        django_mcp.tools_changed(AnnouncedServer)  # and from sync code


@local_postgres
async def test_announcing_from_sync_code_and_short_lived_loops_delivers_every_event(
    backends: Any, settings: Any
) -> None:
    settings.MCP_EVENT_BACKEND = f"{__name__}.EventsBackend"
    listener = backends[1]
    async with listener.listen() as events:
        await asyncio.to_thread(_announce_in_short_lived_loops, 5)
        received = [await asyncio.wait_for(anext(events), WAIT) for _ in range(10)]

    assert received == [Event(server_key(AnnouncedServer), "tools")] * 10


@local_postgres
async def test_an_event_too_large_for_notify_ends_the_streams_of_every_worker(backends: Any) -> None:
    publisher, listener = backends
    async with listener.listen() as events:
        publisher.publish(Event("s", "resource_updated", "demo://" + "x" * MAX_PAYLOAD))
        with pytest.raises(EventsLost, match="too large"):
            await asyncio.wait_for(anext(events), WAIT)


@local_postgres
async def test_two_deployments_sharing_one_database_never_hear_each_other(settings: Any) -> None:
    with _alias(ALIAS, LOCAL):
        settings.MCP_EVENT_NAMESPACE = "one"
        ours = EventsBackend()
        settings.MCP_EVENT_NAMESPACE = "two"
        theirs = EventsBackend()
        async with ours.listen() as events:
            theirs.publish(Event("theirs", "tools"))
            ours.publish(Event("ours", "tools"))
            assert await asyncio.wait_for(anext(events), WAIT) == Event("ours", "tools")


def test_a_long_namespace_gets_a_channel_postgresql_does_not_truncate(settings: Any) -> None:
    settings.MCP_EVENT_NAMESPACE = "n" * 80
    first = PostgresEventBackend().channel
    settings.MCP_EVENT_NAMESPACE = "n" * 79 + "m"
    second = PostgresEventBackend().channel

    assert len(first.encode()) <= 63
    assert first != second
    settings.MCP_EVENT_NAMESPACE = "short"
    assert PostgresEventBackend().channel == "django_mcp:short"


# ------------------------------------------------------- transactions


class _Sent:
    """Stands for the publishing thread: records what would be sent."""

    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def send(self, payload: bytes) -> None:
        self.payloads.append(payload)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> _Sent:
    recorder = _Sent()
    monkeypatch.setattr(pg_events, "_publisher", lambda alias, channel: recorder)
    return recorder


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_an_event_is_sent_when_it_commits(sent: _Sent) -> None:
    backend = PostgresEventBackend()  # alias "default": the transaction's database
    with transaction.atomic():
        backend.publish(Event("s", "tools"))
        assert sent.payloads == []

    assert sent.payloads == [b'["s","tools",null]']


@pytest.mark.django_db(transaction=True)
def test_an_event_announced_in_a_rolled_back_transaction_is_never_sent(sent: _Sent) -> None:
    backend = PostgresEventBackend()
    with contextlib.suppress(RuntimeError), transaction.atomic():
        backend.publish(Event("s", "tools"))
        raise RuntimeError("rolled back")

    assert sent.payloads == []


async def test_outside_a_transaction_async_code_sends_at_once(sent: _Sent) -> None:
    PostgresEventBackend().publish(Event("", "task", task_id="t"))  # no SynchronousOnlyOperation

    assert sent.payloads == [b'["","task","t"]']


# ------------------------------------------------------------- checks


def _event_errors() -> list[str]:
    return [
        m.id for m in run_checks() if m.id in {"django_mcp.E008", "django_mcp.E010"} or "E04" in str(m.id)
    ]


def test_a_postgresql_alias_passes_the_checks(settings: Any) -> None:
    settings.MCP_EVENT_BACKEND = f"{__name__}.EventsBackend"
    with _alias(ALIAS, LOCAL):
        assert _event_errors() == []


def test_the_backend_path_imports_so_it_is_not_e008(settings: Any) -> None:
    settings.MCP_EVENT_BACKEND = "django_mcp.events.postgres.PostgresEventBackend"
    assert "django_mcp.E008" not in _event_errors()


@pytest.mark.usefixtures("sqlite_alias")
def test_an_alias_that_is_not_postgresql_is_e042(settings: Any) -> None:
    settings.MCP_EVENT_BACKEND = f"{__name__}.SqliteBackend"
    # django_mcp's checks only: Django's own would open the SQLite alias.
    [error] = [m for m in run_checks(tags=["django_mcp"]) if m.id == "django_mcp.E042"]
    assert (
        error.msg == f"PostgresEventBackend's database alias '{SQLITE_ALIAS}' is not a PostgreSQL database."
    )


def test_an_alias_missing_from_databases_is_e042() -> None:
    assert [m.id for m in EventsBackend().check()] == ["django_mcp.E042"]


def test_a_missing_psycopg_is_e041(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_psycopg(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "psycopg" or name.startswith("psycopg."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    backend = EventsBackend()
    monkeypatch.setattr(builtins, "__import__", no_psycopg)
    assert [m.id for m in backend.check()] == ["django_mcp.E041"]


@pytest.mark.usefixtures("sqlite_alias")
async def test_listening_through_an_alias_that_is_not_postgresql_is_refused_not_raised() -> None:
    with pytest.raises(EventsUnavailable, match="not PostgreSQL") as refused:
        async with SqliteBackend().listen():
            pass  # pragma: no cover - never entered
    assert refused.value.retry_after >= 1


@pytest.mark.usefixtures("sqlite_alias")
async def test_subscriptions_listen_through_a_misconfigured_backend_is_503_not_500(
    async_client: Any, settings: Any
) -> None:
    from tests.transports.conftest import Wire

    settings.MCP_EVENT_BACKEND = f"{__name__}.SqliteBackend"
    wire = Wire(async_client)
    listen = wire.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id=3)

    response = await wire.post(listen)

    assert (response.status_code, response["Content-Type"]) == (503, "application/json")
    assert int(response["Retry-After"]) >= 1
    assert json.loads(response.content)["error"]["code"] == jsonrpc.INTERNAL_ERROR


# --------------------------------------------------- private PostgreSQL


@pytest.fixture
def restartable(private_postgres: Any) -> Iterator[tuple[PostgresEventBackend, PostgresEventBackend]]:
    """Return two backends (two "workers") on the private PostgreSQL."""
    with _alias(ALIAS, private_postgres.settings):
        yield EventsBackend(), EventsBackend()


async def _next_event(backend: PostgresEventBackend, publisher: PostgresEventBackend) -> Event:
    """Listen (retrying while refused, for at most ``WAIT``), announce, return what arrives."""
    async with asyncio.timeout(WAIT):
        while True:
            try:
                async with backend.listen() as events:
                    publisher.publish(Event("s", "tools"))
                    return await anext(events)
            except EventsUnavailable:
                await asyncio.sleep(0.1)


@pytest.mark.timeout(60)
async def test_a_database_restart_ends_listeners_then_delivery_resumes(
    restartable: Any, private_postgres: Any
) -> None:
    publisher, listener = restartable
    async with listener.listen() as events:
        publisher.publish(Event("s", "tools"))
        assert await asyncio.wait_for(anext(events), WAIT) == Event("s", "tools")

        await asyncio.to_thread(private_postgres.stop)

        # Events sent while it is down cannot reach it: its stream ends.
        with pytest.raises(EventsLost, match="PostgreSQL was lost"):
            await asyncio.wait_for(anext(events), WAIT)

    with pytest.raises(EventsUnavailable) as refused:  # down: refused with a retry hint
        async with listener.listen():
            pass  # pragma: no cover - never entered
    assert refused.value.retry_after >= 1

    await asyncio.to_thread(private_postgres.start)  # on the same port

    assert await _next_event(listener, publisher) == Event("s", "tools")
    await asyncio.to_thread(_flushed, publisher)


@pytest.mark.timeout(60)
async def test_a_terminated_listen_connection_ends_listeners_then_listening_works_again(
    restartable: Any, private_postgres: Any
) -> None:
    import psycopg

    publisher, listener = restartable
    async with listener.listen() as events:
        with psycopg.connect(**pg_events._connection_params(ALIAS), autocommit=True) as admin:
            admin.execute(  # every other client of the private server: the LISTEN one among them
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
            )
        with pytest.raises(EventsLost):
            await asyncio.wait_for(anext(events), WAIT)

    assert await _next_event(listener, publisher) == Event("s", "tools")


@local_postgres
async def test_a_subscribe_in_one_worker_routes_later_updates_to_the_sessions_stream_in_another(
    backends: Any,
) -> None:
    publisher, listener = backends
    await a_subscribe_routes_later_updates_to_the_sessions_stream(publisher, listener, wait=WAIT)
