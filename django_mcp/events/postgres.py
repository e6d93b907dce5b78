"""PostgreSQL event backend: change notifications across workers, without Redis.

``MCP_EVENT_BACKEND = "django_mcp.events.postgres.PostgresEventBackend"``
carries events over PostgreSQL's ``LISTEN``/``NOTIFY`` on the database of
the ``DATABASES`` alias ``PostgresEventBackend.alias`` (``"default"``;
subclass to choose another), with psycopg 3.2 or newer. Delivery is
at-most-once, like MCP notifications themselves and like the Redis
backend: a worker that is down misses events, and clients re-list when
their stream ends.

**What is sent.** An event is small: a server key, a kind and a task id or
a resource URI (plus a session id for a 2025-11-25 session's subscribe),
sent as the ``NOTIFY`` payload itself (the JSON the Redis
backend sends), so no table is written and nothing needs pruning. A task
event carries only the task's id: listeners re-read the task's row. The
channel is ``django_mcp:<namespace>`` (``get_event_namespace()``; ``NOTIFY``
stays inside one database). A payload PostgreSQL refuses (8000 bytes and
more: a huge resource URI) cannot be carried: a short "events were lost"
notice is sent instead, and every listener that receives it ends its stream
(``EventsLost``), so its client re-lists and re-reads.

**Announcing** (``publish``) never blocks on the database and never raises
for it. Inside a transaction of the calling thread on the backend's alias
(``transaction.atomic``), the event is announced when that transaction
commits, and never if it rolls back, so a listener that re-reads a row sees
the change it announces. Then, as with Redis, it is queued and one thread
per process and alias sends the queue over a connection of its own, in
autocommit; a bounded queue (``PUBLISH_QUEUE``) is flushed for up to
``FLUSH_TIMEOUT`` seconds when the interpreter exits; while the database
does not answer, events are dropped (logged once per outage).

**Listening.** Each process keeps one ``LISTEN`` connection per event loop
(one per worker under an ASGI server) and fans events out to that loop's
listeners. When the connection breaks (a database restart, a terminated
backend, a network failure, no answer to a query after ``PING_INTERVAL``
idle seconds), every listener of the loop raises ``EventsLost`` at once,
as with Redis: events sent while nobody listened cannot be replayed, so
streams end and their clients listen again and re-list. The connection is
restored with jittered exponential backoff (``RECONNECT_MIN`` to
``RECONNECT_MAX`` seconds); until then ``listen()`` raises
``EventsUnavailable`` with the seconds to the next try, as it does while
the alias is not a PostgreSQL database or psycopg 3 is missing (which
``check()`` reports as ``E041`` and ``E042``).

**Forwarding** is not offered (``forwards`` is False): ``NOTIFY`` does not
tell how many processes received a message, which ``forward()`` needs.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import hashlib
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator
from typing import Any, Final

from django.core.checks import CheckMessage, Error
from django.db import connections, transaction
from django.utils.translation import gettext as _

from django_mcp.conf import get_event_namespace
from django_mcp.events import Event, Interest
from django_mcp.events._reconnecting import Reconnecting, close_quietly
from django_mcp.events._wire import decode_event, encode_event
from django_mcp.events.base import EventBackend, EventsUnavailable
from django_mcp.events.memory import MemoryEventBackend

__all__ = [
    "CONNECT_TIMEOUT",
    "FIRST_ATTEMPT_WAIT",
    "FLUSH_TIMEOUT",
    "LISTEN_WAIT",
    "MAX_PAYLOAD",
    "PING_INTERVAL",
    "PUBLISH_QUEUE",
    "RECONNECT_MAX",
    "RECONNECT_MIN",
    "PostgresEventBackend",
]

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT: Final = 2
"""Seconds libpq waits to connect (whole seconds; libpq's least useful value is 2)."""

LISTEN_WAIT: Final = 1.0
"""Seconds the listening connection waits for ``LISTEN`` or a liveness query to be answered."""

FIRST_ATTEMPT_WAIT: Final = 5.0
"""Most seconds a loop's first listener waits for the first attempt to listen.

The attempt gives up on its own after ``CONNECT_TIMEOUT`` plus
``LISTEN_WAIT``; the margin covers importing psycopg in a process that just
started, on a busy machine.
"""

PING_INTERVAL: Final = 10.0
"""Idle seconds after which the listening connection runs a query (no answer: lost)."""

RECONNECT_MIN: Final = 0.1
"""Seconds before the first attempt to restore a lost listening connection."""

RECONNECT_MAX: Final = 2.0
"""Most seconds between two attempts to restore a lost listening connection."""

PUBLISH_QUEUE: Final = 10_000
"""Events queued for sending at most; more are dropped (and logged)."""

FLUSH_TIMEOUT: Final = 2.0
"""Seconds the interpreter's exit waits for queued events to be sent."""

MAX_PAYLOAD: Final = 7999
"""Bytes of the largest ``NOTIFY`` payload PostgreSQL takes (it must be under 8000)."""

# The payload that tells listeners an event could not be carried.
_LOST: Final = b'"lost"'

# After a failed NOTIFY, events are dropped for this long (seconds), so a
# dead database costs one connection timeout per second, not one per event.
_OUTAGE_PAUSE: Final = 1.0

# Keys of Django's connection parameters that are not libpq's: a cursor
# class and adapters for Django's own (sync) connections.
_DJANGO_ONLY: Final = ("cursor_factory", "context")


class PostgresEventBackend(EventBackend):
    """Send events with ``NOTIFY``; deliver ``LISTEN``-ed ones to this process's listeners."""

    #: The ``DATABASES`` alias whose PostgreSQL database carries the events.
    alias: str = "default"

    def __init__(self) -> None:
        #: The ``LISTEN``/``NOTIFY`` channel of change events.
        self.channel = _channel(get_event_namespace())
        self._local = MemoryEventBackend()
        self._lock = threading.Lock()
        self._subscriptions: dict[asyncio.AbstractEventLoop, _Subscription] = {}

    # ------------------------------------------------------------ publish

    def publish(self, event: Event) -> None:
        """Send ``event`` once the caller's transaction commits; never blocks, never raises."""
        payload = encode_event(event)
        if len(payload) > MAX_PAYLOAD:
            logger.warning("An MCP change event is too large for NOTIFY; its listeners' streams end")
            payload = _LOST
        send = functools.partial(_publisher(self.alias, self.channel).send, payload)
        if _in_transaction(self.alias):
            transaction.on_commit(send, using=self.alias)
        else:
            send()

    # ------------------------------------------------------------- listen

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[AsyncIterator[Event]]:
        """Listen to events from every process while the block runs.

        Raises:
            EventsUnavailable: this process has no working ``LISTEN`` connection.
        """
        subscription = await self._subscribed()
        async with self._local.listen(interest) as events:
            subscription.require()  # not lost since: it would have ended this listener
            yield events

    async def _subscribed(self) -> _Subscription:
        """Return this loop's working subscription, starting it if needed."""
        problem = _unusable(self.alias)
        if problem is not None:
            raise EventsUnavailable(problem[1], retry_after=60)
        loop = asyncio.get_running_loop()
        with self._lock:
            subscription = self._subscriptions.get(loop)
            if subscription is None or subscription.task.done():
                subscription = self._subscriptions[loop] = _Subscription(self, loop)
        if not subscription.tried.is_set():
            # The first attempt of this loop: worth waiting for its outcome
            # rather than refusing a listener while it is under way.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(subscription.tried.wait(), FIRST_ATTEMPT_WAIT)
        subscription.require()
        return subscription

    def _forget(self, subscription: _Subscription) -> None:
        with self._lock:
            if self._subscriptions.get(subscription.loop) is subscription:
                del self._subscriptions[subscription.loop]

    # -------------------------------------------------------------- check

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """Report a missing psycopg 3, or an alias that is not a PostgreSQL database."""
        problem = _unusable(self.alias)
        if problem is None:
            return []
        if problem[0] == "psycopg":
            return [
                Error(
                    _("PostgresEventBackend needs psycopg 3.2 or newer."),
                    hint=_("pip install 'psycopg[binary]>=3.2'"),
                    id="django_mcp.E041",
                )
            ]
        return [
            Error(
                _("PostgresEventBackend's database alias {alias!r} is not a PostgreSQL database.").format(
                    alias=self.alias
                ),
                hint=_(
                    "Point it at a DATABASES alias using django.db.backends.postgresql: "
                    "subclass PostgresEventBackend and set its alias."
                ),
                id="django_mcp.E042",
            )
        ]


def _unusable(alias: str) -> tuple[str, str] | None:
    """Return ``(what is wrong, reason)`` when events cannot travel through ``alias``, else None.

    What is wrong is ``"psycopg"`` (missing or too old) or ``"database"``.
    """
    try:
        import psycopg
    except ImportError:
        return "psycopg", "psycopg 3 is not installed"
    major_minor = tuple(int(part) for part in psycopg.__version__.split(".")[:2] if part.isdigit())
    if major_minor < (3, 2):
        return "psycopg", f"psycopg {psycopg.__version__} is older than 3.2"
    if alias not in connections.settings:
        return "database", f"DATABASES has no alias {alias!r}"
    try:
        vendor = connections[alias].vendor
    except Exception as exc:  # ImproperlyConfigured: the engine does not load
        return "database", f"the database {alias!r} cannot be loaded ({type(exc).__name__})"
    if vendor != "postgresql":
        return "database", f"the database {alias!r} is {vendor}, not PostgreSQL"
    return None


def _channel(namespace: str) -> str:
    """Return the channel of ``namespace``: a hash of it when the name would pass 63 bytes."""
    # PostgreSQL truncates longer identifiers, and two long namespaces
    # sharing their first bytes must not share a channel.
    name = f"django_mcp:{namespace}"
    if len(name.encode()) > 63:
        name = f"django_mcp:{hashlib.sha256(namespace.encode()).hexdigest()[:32]}"
    return name


def _in_transaction(alias: str) -> bool:
    """Tell whether the calling thread is inside ``transaction.atomic`` on ``alias``."""
    # Read the flag only: asking for autocommit would open a connection,
    # which async code must not do.
    try:
        return bool(connections[alias].in_atomic_block)
    except Exception:  # an unknown or broken alias: publish at once, the check reports it
        return False


def _connection_params(alias: str) -> dict[str, Any]:
    """Return psycopg's connection keyword arguments for ``alias`` (Django's own, reused)."""
    # A new wrapper, not this thread's ``connections[alias]``: that one keeps
    # the settings of its first use, and nothing here needs its connection.
    params: dict[str, Any] = dict(connections.create_connection(alias).get_connection_params())
    for key in _DJANGO_ONLY:
        params.pop(key, None)
    params.setdefault("connect_timeout", CONNECT_TIMEOUT)
    return params


class _Subscription(Reconnecting):
    """One event loop's ``LISTEN`` connection, restored while the loop runs."""

    task_name = "django_mcp PostgreSQL LISTEN"
    starting = "the PostgreSQL LISTEN connection is starting"
    failed = "the PostgreSQL LISTEN connection failed ({error})"
    back = "The MCP PostgreSQL LISTEN connection is back after %d attempts"
    lost = "The MCP PostgreSQL LISTEN connection was lost (%s); ending its streams"
    ended = "the connection to PostgreSQL was lost"
    retrying = "Could not LISTEN for MCP events in PostgreSQL (%s); retrying"

    backend: PostgresEventBackend

    def _backoff(self) -> tuple[float, float]:
        return RECONNECT_MIN, RECONNECT_MAX

    async def _connect(self, closing: contextlib.AsyncExitStack) -> Any:
        """Connect in autocommit and ``LISTEN``; return the connection."""
        import psycopg
        from psycopg import sql

        params = _connection_params(self.backend.alias)
        async with asyncio.timeout(CONNECT_TIMEOUT + LISTEN_WAIT):
            connection = await psycopg.AsyncConnection.connect(**params, autocommit=True)
        closing.push_async_callback(close_quietly, connection.close)
        async with asyncio.timeout(LISTEN_WAIT):
            await connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.backend.channel)))
        return connection

    async def _receive(self, connection: Any) -> None:
        """Deliver notifications until the connection fails; query it when idle."""
        while True:
            idle = True
            async for notify in connection.notifies(timeout=PING_INTERVAL):
                idle = False
                self._deliver(notify.payload)
            if idle:
                async with asyncio.timeout(LISTEN_WAIT):
                    await connection.execute("SELECT 1")

    def _deliver(self, payload: str) -> None:
        backend = self.backend
        if payload.encode() == _LOST:
            backend._local.end_listeners("an MCP change event was too large to send", loop=self.loop)
            return
        try:
            event = decode_event(payload)
        except ValueError:
            logger.warning("Ignored a malformed MCP event on PostgreSQL channel %s", backend.channel)
            return
        backend._local.deliver(event, loop=self.loop)


class _Publisher:
    """Send ``NOTIFY`` for one alias and channel from one thread of this process."""

    def __init__(self, alias: str, channel: str) -> None:
        self.alias = alias
        self.channel = channel
        self._lock = threading.Lock()
        # An Event marks a flush; None ends the thread (close()).
        self._queue: queue.Queue[bytes | threading.Event | None] = queue.Queue(PUBLISH_QUEUE)
        self._thread: threading.Thread | None = None
        self._down_until = 0.0
        self._dropped = 0

    def send(self, payload: bytes) -> None:
        """Queue one ``NOTIFY``; drop it (logged) when the queue is full."""
        self._start()
        try:
            self._queue.put_nowait(payload)
        except queue.Full:
            self._drop(f"more than {PUBLISH_QUEUE} events are waiting to be sent")

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for what is queued now to be sent."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return self._queue.empty()
        marker = threading.Event()
        try:
            self._queue.put(marker, timeout=timeout)
        except queue.Full:
            return False
        return marker.wait(timeout)

    def close(self) -> None:
        """Let the thread send what is queued, then close its connection and end."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(None)

    def _start(self) -> None:
        thread = self._thread
        if thread is not None and thread.is_alive():
            return
        with self._lock:
            # After a fork the parent's thread is gone (is_alive() is False).
            if self._thread is None or not self._thread.is_alive():
                thread = threading.Thread(
                    target=self._run, name="django_mcp PostgreSQL notifier", daemon=True
                )
                thread.start()
                self._thread = thread

    def _run(self) -> None:
        connection: Any = None
        while True:
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
                continue
            if item is None:
                if connection is not None:
                    with contextlib.suppress(Exception):
                        connection.close()
                return
            if time.monotonic() < self._down_until:
                self._dropped += 1
                continue
            try:
                connection = self._notify(connection, item)
            except Exception as exc:  # psycopg.Error, OSError, a bad alias: the event cannot go
                connection = None
                self._down_until = time.monotonic() + _OUTAGE_PAUSE
                self._drop(f"PostgreSQL did not take it ({type(exc).__name__}: {exc})")
                continue
            if self._dropped:
                logger.warning("Sending MCP change events works again; %d were dropped", self._dropped)
                self._dropped = 0

    def _notify(self, connection: Any, payload: bytes) -> Any:
        """Send ``payload`` over ``connection`` (or a new one); return the connection used."""
        import psycopg

        if connection is not None:
            try:
                connection.execute("SELECT pg_notify(%s, %s)", (self.channel, payload.decode()))
            except psycopg.OperationalError:
                # Most often a connection the database closed while idle (it
                # restarted): one new connection before calling it an outage.
                with contextlib.suppress(Exception):
                    connection.close()
            else:
                return connection
        connection = psycopg.Connection.connect(**_connection_params(self.alias), autocommit=True)
        try:
            connection.execute("SELECT pg_notify(%s, %s)", (self.channel, payload.decode()))
        except BaseException:
            with contextlib.suppress(Exception):
                connection.close()
            raise
        return connection

    def _drop(self, why: str) -> None:
        if not self._dropped:
            logger.warning("Dropped an MCP change event: %s; more may follow until PostgreSQL answers", why)
        self._dropped += 1


_publishers_lock = threading.Lock()
_publishers: dict[tuple[str, str], _Publisher] = {}


def _publisher(alias: str, channel: str) -> _Publisher:
    """Return this process's publisher for ``alias`` and ``channel``."""
    with _publishers_lock:
        publisher = _publishers.get((alias, channel))
        if publisher is None:
            publisher = _publishers[alias, channel] = _Publisher(alias, channel)
        return publisher


@atexit.register
def _flush_at_exit() -> None:
    """Give queued events up to ``FLUSH_TIMEOUT`` seconds to reach PostgreSQL."""
    deadline = time.monotonic() + FLUSH_TIMEOUT
    with _publishers_lock:
        publishers = list(_publishers.values())
    for publisher in publishers:
        publisher.flush(max(0.0, deadline - time.monotonic()))
