"""Redis event backend: change notifications across every worker process.

``MCP_EVENT_BACKEND = "django_mcp.events.redis.RedisEventBackend"`` with
``MCP_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``); needs the ``redis``
extra (``pip install django-mcp-toolkit[redis]``). Delivery is at-most-once,
like MCP notifications themselves: a worker that is down misses events, and
clients re-list when their stream ends.

**Channels.** Events travel on ``django_mcp:<namespace>:events`` and control
messages on ``django_mcp:<namespace>:control``, where the namespace is
``get_event_namespace()`` (``MCP_EVENT_NAMESPACE``, by default derived from
the database number of ``MCP_REDIS_URL`` and ``SECRET_KEY``): Redis pub/sub
ignores database numbers, so two projects sharing one Redis server would
otherwise hear each other's events.

**Announcing** (``publish``) only queues the event and returns, from any
context: sync code, a coroutine, a short-lived event loop (``asyncio.run``,
``async_to_sync``), any thread. One thread per process and Redis URL sends
the queue with PUBLISH over one pooled connection, with bounded socket
timeouts (``PUBLISH_CONNECT_TIMEOUT``, ``PUBLISH_TIMEOUT``), so a slow or
paused Redis never holds up a request. The queue is bounded
(``PUBLISH_QUEUE`` events) and flushed for up to ``FLUSH_TIMEOUT`` seconds
when the interpreter exits, so a script or command that announces a change
and ends still delivers it. While Redis does not answer, events are dropped
(logged once per outage).

**Listening.** Each process keeps one subscription per event loop and fans
events out to that loop's listeners, so a thousand open streams cost one
Redis connection. When the subscription breaks (a Redis restart,
``CLIENT KILL``, a network failure, or no answer to a PING after
``PING_INTERVAL`` idle seconds), every listener of the loop raises
``EventsLost`` at once (their streams end; clients re-listen and re-list)
and the subscription reconnects and resubscribes with jittered exponential
backoff (``RECONNECT_MIN`` to ``RECONNECT_MAX`` seconds). Until it is back,
``listen()`` raises ``EventsUnavailable`` with the seconds to the next try.

**Forwarding** (``forward``) publishes a control message and waits, at most
``FORWARD_TIMEOUT`` seconds, for a reply from every subscribed process: one
that took the message (``handle_forwarded``) makes it True; all declining
make it False; a missing reply or an unreachable Redis raises
``ForwardFailed``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import dataclasses
import functools
import logging
import queue
import secrets
import threading
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import msgspec
from django.core.checks import CheckMessage, Error
from django.utils.translation import gettext as _

from django_mcp.conf import get_event_namespace, get_setting
from django_mcp.events import Event, Interest, handle_forwarded
from django_mcp.events._reconnecting import Reconnecting, close_quietly
from django_mcp.events._wire import decode_event, encode_event
from django_mcp.events.base import EventBackend, EventsUnavailable, ForwardFailed
from django_mcp.events.memory import MemoryEventBackend

__all__ = [
    "FIRST_ATTEMPT_WAIT",
    "FLUSH_TIMEOUT",
    "FORWARD_TIMEOUT",
    "LISTEN_WAIT",
    "PING_INTERVAL",
    "PUBLISH_CONNECT_TIMEOUT",
    "PUBLISH_QUEUE",
    "PUBLISH_TIMEOUT",
    "RECONNECT_MAX",
    "RECONNECT_MIN",
    "RedisEventBackend",
]

logger = logging.getLogger(__name__)

PUBLISH_CONNECT_TIMEOUT: Final = 0.5
"""Seconds the publishing thread waits to connect to Redis."""

PUBLISH_TIMEOUT: Final = 1.0
"""Seconds the publishing thread waits for one PUBLISH to be answered."""

PUBLISH_QUEUE: Final = 10_000
"""Events queued for publishing at most; more are dropped (and logged)."""

FLUSH_TIMEOUT: Final = 2.0
"""Seconds the interpreter's exit waits for queued events to be sent."""

LISTEN_WAIT: Final = 1.0
"""Seconds the subscription waits for Redis to connect, to answer, to confirm subscribing."""

FIRST_ATTEMPT_WAIT: Final = 5.0
"""Most seconds a loop's first listener waits for the first attempt to subscribe.

The attempt gives up on its own after ``LISTEN_WAIT`` to connect and
``LISTEN_WAIT`` to subscribe; the margin covers importing redis-py in a
process that just started, on a busy machine.
"""

PING_INTERVAL: Final = 10.0
"""Idle seconds after which the subscription PINGs Redis (no answer: lost)."""

RECONNECT_MIN: Final = 0.1
"""Seconds before the first attempt to restore a lost subscription."""

RECONNECT_MAX: Final = 2.0
"""Most seconds between two attempts to restore a lost subscription."""

FORWARD_TIMEOUT: Final = 2.0
"""Seconds ``forward()`` waits for every subscribed process to reply."""

# After a failed PUBLISH, events are dropped for this long (seconds), so a
# dead Redis costs one connection timeout per second, not one per event.
_OUTAGE_PAUSE: Final = 1.0


class RedisEventBackend(EventBackend):
    """Publish through Redis; deliver to this process's listeners."""

    forwards = True

    def __init__(self) -> None:
        self.url: str = get_setting("MCP_REDIS_URL")
        namespace = get_event_namespace()
        #: The pub/sub channel of change events.
        self.events_channel = f"django_mcp:{namespace}:events"
        #: The pub/sub channel of forwarded messages and their replies.
        self.control_channel = f"django_mcp:{namespace}:control"
        self._local = MemoryEventBackend()
        self._lock = threading.Lock()
        self._subscriptions: dict[asyncio.AbstractEventLoop, _Subscription] = {}
        self._forwards: dict[str, _Forward] = {}

    # ------------------------------------------------------------ publish

    def publish(self, event: Event) -> None:
        """Queue ``event`` for every process; never blocks, never raises for Redis."""
        payload = encode_event(event)
        _publisher(self.url).send(self.events_channel, payload)

    # ------------------------------------------------------------- listen

    @contextlib.asynccontextmanager
    async def listen(self, interest: Interest | None = None) -> AsyncIterator[AsyncIterator[Event]]:
        """Listen to events from every process while the block runs.

        Raises:
            EventsUnavailable: this process has no working subscription.
        """
        subscription = await self._subscribed()
        async with self._local.listen(interest) as events:
            subscription.require()  # not lost since: it would have ended this listener
            yield events

    async def receive_forwarded(self) -> None:
        """Subscribe this event loop to forwarded messages (a failure is only logged)."""
        try:
            await self._subscribed()
        except EventsUnavailable as exc:  # the subscription logs the outage itself
            logger.debug("Answers forwarded by other workers cannot reach this one: %s", exc.reason)

    async def _subscribed(self) -> _Subscription:
        """Return this loop's working subscription, starting it if needed."""
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

    # ------------------------------------------------------------ forward

    async def forward(self, message: Mapping[str, Any]) -> bool:
        """Offer ``message`` to every subscribed process; True once one took it."""
        try:
            await self._subscribed()  # the replies come back on this subscription
        except EventsUnavailable as exc:
            raise ForwardFailed(exc.reason) from None
        token = secrets.token_hex(8)
        waiting = _Forward(asyncio.get_running_loop())
        with self._lock:
            self._forwards[token] = waiting
        try:
            payload = msgspec.json.encode({"op": "forward", "token": token, "message": message})
            try:
                receivers = await asyncio.to_thread(
                    _publisher(self.url).publish_now, self.control_channel, payload
                )
            except Exception as exc:  # redis.RedisError, or anything the socket raised
                raise ForwardFailed(f"Redis did not take the message: {exc!r}") from None
            waiting.expect(receivers)
            try:
                return await asyncio.wait_for(waiting.future, FORWARD_TIMEOUT)
            except TimeoutError:
                raise ForwardFailed(
                    f"{waiting.replied} of {receivers} subscribed processes replied within "
                    f"{FORWARD_TIMEOUT:g} s"
                ) from None
        finally:
            with self._lock:
                self._forwards.pop(token, None)

    def _control(self, subscription: _Subscription, data: bytes) -> None:
        """Handle one message of the control channel (on the subscription's loop)."""
        try:
            message = msgspec.json.decode(data)
            op, token = message["op"], message["token"]
            if op == "forward":
                taken = handle_forwarded(message["message"])
                reply = {"op": "reply", "token": token, "from": subscription.id, "taken": taken}
                _publisher(self.url).send(self.control_channel, msgspec.json.encode(reply))
            elif op == "reply":
                with self._lock:
                    waiting = self._forwards.get(token)
                if waiting is not None:
                    waiting.reply(str(message["from"]), taken=bool(message["taken"]))
        except (msgspec.DecodeError, KeyError, TypeError):
            logger.warning("Ignored a malformed MCP control message on %s", self.control_channel)

    # -------------------------------------------------------------- check

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """Report a missing ``redis`` package or a malformed URL."""
        try:
            import redis
        except ImportError:
            return [
                Error(
                    _("RedisEventBackend needs the redis package."),
                    hint=_("pip install 'django-mcp-toolkit[redis]'"),
                    id="django_mcp.E020",
                )
            ]
        try:
            redis.connection.parse_url(self.url)  # type: ignore[no-untyped-call]
        except ValueError as exc:
            return [
                Error(
                    _("MCP_REDIS_URL {self_url!r} is not a valid Redis URL: {exc}").format(
                        self_url=self.url, exc=exc
                    ),
                    hint=_("Use redis://host:port/db or rediss://..."),
                    id="django_mcp.E021",
                )
            ]
        return []


@dataclasses.dataclass(eq=False)
class _Forward:
    """A forwarded message waiting for the replies of the subscribed processes."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[bool] = dataclasses.field(init=False)
    expected: int | None = None
    replied: int = 0
    _from: set[str] = dataclasses.field(default_factory=set)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.future = self.loop.create_future()

    def expect(self, receivers: int) -> None:
        """Record how many subscriptions PUBLISH reached (on the forwarding loop)."""
        with self._lock:
            self.expected = receivers
            self._settle(taken=False)

    def reply(self, sender: str, *, taken: bool) -> None:
        """Record one subscription's reply (from any loop)."""
        with self._lock:
            if sender in self._from:
                return
            self._from.add(sender)
            self.replied = len(self._from)
            self._settle(taken=taken)

    def _settle(self, *, taken: bool) -> None:
        if taken:
            outcome = True
        elif self.expected is not None and self.replied >= self.expected:
            outcome = False
        else:
            return
        with contextlib.suppress(RuntimeError):  # the forwarding loop has closed
            self.loop.call_soon_threadsafe(functools.partial(_resolve, self.future, outcome=outcome))


def _resolve(future: asyncio.Future[bool], *, outcome: bool) -> None:
    if not future.done():
        future.set_result(outcome)


class _Subscription(Reconnecting):
    """One event loop's subscription to both channels, restored while the loop runs."""

    task_name = "django_mcp Redis subscription"
    starting = "the Redis subscription is starting"
    failed = "the connection to Redis failed ({error})"
    back = "The MCP Redis event subscription is back after %d attempts"
    lost = "The MCP Redis event subscription was lost (%s); ending its streams"
    ended = "the connection to Redis was lost"
    retrying = "Could not subscribe to MCP events in Redis (%s); retrying"

    backend: RedisEventBackend

    def __init__(self, backend: RedisEventBackend, loop: asyncio.AbstractEventLoop) -> None:
        #: Identifies this subscription in replies to forwarded messages.
        self.id = secrets.token_hex(6)
        super().__init__(backend, loop)

    def _backoff(self) -> tuple[float, float]:
        return RECONNECT_MIN, RECONNECT_MAX

    async def _connect(self, closing: contextlib.AsyncExitStack) -> Any:
        """Subscribe to both channels; return the subscription."""
        import redis.asyncio
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # No retries inside redis-py: a reconnection there would hide the
        # events lost meanwhile, which is what ends the streams here.
        client = redis.asyncio.Redis.from_url(
            self.backend.url,
            socket_connect_timeout=LISTEN_WAIT,
            socket_timeout=LISTEN_WAIT,
            socket_keepalive=True,
            retry=Retry(NoBackoff(), 0),
        )
        # Typed Any: redis-py's own annotations of PubSub changed between
        # releases (aclose() untyped before 8.2), and an ignore that one
        # release needs is an unused ignore under the next.
        pubsub: Any = client.pubsub()
        closing.push_async_callback(close_quietly, client.aclose)  # pushed first: closed last
        closing.push_async_callback(close_quietly, pubsub.aclose)
        await self._subscribe(pubsub)
        return pubsub

    async def _receive(self, pubsub: Any) -> None:
        """Deliver messages until the subscription fails; PING Redis when idle."""
        pinged = False
        while True:
            message = await pubsub.get_message(timeout=PING_INTERVAL)
            if message is None:
                if pinged:
                    raise ConnectionError(f"Redis did not answer a PING within {PING_INTERVAL:g} s")
                await pubsub.ping()
                pinged = True
                continue
            pinged = False
            if message["type"] == "message":
                self._deliver(message["channel"], message["data"])

    async def _subscribe(self, pubsub: Any) -> None:
        """Subscribe to both channels; return once Redis confirmed both."""
        backend = self.backend
        channels = {backend.events_channel.encode(), backend.control_channel.encode()}
        async with asyncio.timeout(LISTEN_WAIT):
            await pubsub.subscribe(*channels)
            while channels:
                message = await pubsub.get_message(timeout=LISTEN_WAIT)
                if message is not None and message["type"] == "subscribe":
                    channels.discard(message["channel"])

    def _deliver(self, channel: bytes, data: bytes) -> None:
        backend = self.backend
        if channel == backend.control_channel.encode():
            backend._control(self, data)
            return
        try:
            event = decode_event(data)
        except ValueError:
            logger.warning("Ignored a malformed MCP event on %s", backend.events_channel)
            return
        backend._local.deliver(event, loop=self.loop)


class _Publisher:
    """Send PUBLISH commands for one Redis URL from one thread of this process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[str, bytes] | threading.Event] = queue.Queue(PUBLISH_QUEUE)
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._down_until = 0.0
        self._dropped = 0

    def client(self) -> Any:
        """Return the synchronous client (thread-safe; pooled connections)."""
        with self._lock:
            if self._client is None:
                import redis
                from redis.backoff import NoBackoff
                from redis.retry import Retry

                self._client = redis.Redis.from_url(
                    self.url,
                    socket_connect_timeout=PUBLISH_CONNECT_TIMEOUT,
                    socket_timeout=PUBLISH_TIMEOUT,
                    retry=Retry(NoBackoff(), 0),
                )
            return self._client

    def send(self, channel: str, payload: bytes) -> None:
        """Queue one PUBLISH; drop it (logged) when the queue is full."""
        self._start()
        try:
            self._queue.put_nowait((channel, payload))
        except queue.Full:
            self._drop(f"more than {PUBLISH_QUEUE} events are waiting to be published")

    def publish_now(self, channel: str, payload: bytes) -> int:
        """PUBLISH at once (blocking, bounded); return how many subscribers got it."""
        return int(self.client().publish(channel, payload))

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

    def _start(self) -> None:
        thread = self._thread
        if thread is not None and thread.is_alive():
            return
        with self._lock:
            # After a fork the parent's thread is gone (is_alive() is False).
            if self._thread is None or not self._thread.is_alive():
                thread = threading.Thread(target=self._run, name="django_mcp Redis publisher", daemon=True)
                thread.start()
                self._thread = thread

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
                continue
            if time.monotonic() < self._down_until:
                self._dropped += 1
                continue
            try:
                self.client().publish(*item)
            except Exception as exc:  # redis.RedisError, OSError: Redis does not answer
                self._down_until = time.monotonic() + _OUTAGE_PAUSE
                self._drop(f"Redis did not take it ({exc!r})")
                continue
            if self._dropped:
                logger.warning("Publishing MCP change events works again; %d were dropped", self._dropped)
                self._dropped = 0

    def _drop(self, why: str) -> None:
        if not self._dropped:
            logger.warning("Dropped an MCP change event: %s; more may follow until Redis answers", why)
        self._dropped += 1


_publishers_lock = threading.Lock()
_publishers: dict[str, _Publisher] = {}


def _publisher(url: str) -> _Publisher:
    """Return this process's publisher for ``url``."""
    with _publishers_lock:
        publisher = _publishers.get(url)
        if publisher is None:
            publisher = _publishers[url] = _Publisher(url)
        return publisher


@atexit.register
def _flush_at_exit() -> None:
    """Give queued events up to ``FLUSH_TIMEOUT`` seconds to reach Redis."""
    deadline = time.monotonic() + FLUSH_TIMEOUT
    with _publishers_lock:
        publishers = list(_publishers.values())
    for publisher in publishers:
        publisher.flush(max(0.0, deadline - time.monotonic()))
