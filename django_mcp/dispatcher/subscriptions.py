"""Change notifications: ``subscriptions/listen`` and 2025-11-25 session streams.

``subscriptions/listen`` (MCP 2026-07-28 basic/patterns/subscriptions) is a
long-lived stream. Its first message is
``notifications/subscriptions/acknowledged`` with the subset of the
requested filter this server honours: list changes only for features it
offers with ``listChanged``, resource subscriptions only when it offers
``resources.subscribe`` and only for URIs the caller may read (change
notifications reveal activity). After it, each matching change event
becomes a notification; an update of a sub-resource is delivered only when
the caller may read that exact URI too. Every message carries
``_meta["io.modelcontextprotocol/subscriptionId"]`` = the listen request's
id. Progress and log messages never appear here.

Task status (the tasks extension, SEP-2663 "Task Status Notifications"):
a filter's ``taskIds`` (a list of task ids) asks for ``notifications/tasks``
about those tasks. A caller that names task ids without declaring the
extension gets -32021; the acknowledgement lists only the ids of the
caller's own tasks on this server (others are silently left out, as an
unknown id is). Right after the acknowledgement, and after every change
of such a task in any process (``events.task_changed``, carried by the
event backend), the stream sends the task as ``tasks/get`` would show it
then (a ``DetailedTask``). While a watched task works, the stream also
checks its lease every third of ``MCP_TASK_LEASE_TIMEOUT``, so a task whose
worker died ends (and is announced) though nobody polls it.

A 2025-11-25 session gets the same events without subscription ids: list
changes for advertised features, resource updates for subscribed URIs and
their sub-resources (2025-11-25 server/resources), each only when the
stream's caller may read the updated URI.

Each stream listens with an ``Interest`` (what its filter or session asked
for), so the event backend hands it only the events it concerns. A session
is read when its stream starts; its later ``resources/subscribe`` and
``resources/unsubscribe`` reach the stream as events, from any worker.

Readability is decided once per URI for the life of a stream (at most
``MAX_VERDICTS`` remembered at a time).

Both end when the transport stops iterating (client gone), and on the
server's side: when the stream can no longer be given every change (more
than ``MCP_STREAM_BUFFER`` events pending, or the event backend lost its
connection: ``EventsLost``) or the server shuts down (``CLOSING``). Then a
listen stream's last message is its ``SubscriptionsListenResult`` (MCP
2026-07-28 basic/patterns/subscriptions), so the client listens again and
re-lists what it shows; a 2025-11-25 stream just ends. While the event
backend cannot deliver at all, a new stream is refused before its first
message with ``NotificationsUnavailable`` (-32603, HTTP 503 with
``Retry-After``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Final

import msgspec

from django_mcp.dispatcher.closing import CLOSING, abandon
from django_mcp.dispatcher.codec import encode_notification, encode_response
from django_mcp.dispatcher.extensions import declared, missing_extension, task_support
from django_mcp.dispatcher.extensions import offered as offers_extension
from django_mcp.events import Event, EventsLost, EventsUnavailable, Interest, get_backend
from django_mcp.exceptions import InvalidParams, NotificationsUnavailable
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.meta import META_SUBSCRIPTION_ID
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.protocol.tasks import TaskStatusNotificationParams
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer

__all__ = [
    "MAX_VERDICTS",
    "Readable",
    "honoured_filter",
    "listen",
    "session_notifications",
    "watches",
]

logger = logging.getLogger(__name__)


MAX_VERDICTS: Final = 1024
"""How many per-URI readability verdicts one stream remembers."""

#: Tell whether the stream's caller may read a URI.
Readable = Callable[[str], Awaitable[bool]]

_LIST_CHANGED: Final = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
}
_LIST_FLAGS: Final = {
    "toolsListChanged": "tools",
    "promptsListChanged": "prompts",
    "resourcesListChanged": "resources",
}


def watches(watched: Iterable[str], uri: str) -> bool:
    """Return True when a subscription to any of ``watched`` covers ``uri``."""
    # A change to a sub-resource counts for the subscribed parent URI.
    return any(uri == base or uri.startswith(base.rstrip("/") + "/") for base in watched)


class _Verdicts:
    """Remember, for one stream, whether its caller may read each URI."""

    def __init__(self, readable: Readable) -> None:
        self._readable = readable
        self._known: dict[str, bool] = {}

    async def __call__(self, uri: str) -> bool:
        verdict = self._known.get(uri)
        if verdict is None:
            if len(self._known) >= MAX_VERDICTS:
                self._known.clear()
            verdict = self._known[uri] = await self._readable(uri)
        return verdict


def _offered(compiled: CompiledServer) -> dict[str, str]:
    """Return ``{event kind: list_changed method}`` for the lists this server announces."""
    if not compiled.server.list_changed:
        return {}
    return {
        kind: method
        for kind, method in _LIST_CHANGED.items()
        if getattr(compiled.capabilities, kind) is not UNSET
    }


def honoured_filter(
    compiled: CompiledServer, requested: Any, request: McpRequest | None = None
) -> dict[str, Any]:
    """Return the part of the requested ``SubscriptionFilter`` this server serves.

    ``request`` is the listen request (its client capabilities decide
    whether ``taskIds`` may be asked for); ``listen()`` keeps only the
    caller's own tasks of them.

    Raises:
        InvalidParams: a malformed filter.
        MissingClientCapability: ``taskIds`` without the tasks extension declared.
    """
    if not isinstance(requested, Mapping):
        raise InvalidParams("subscriptions/listen needs a notifications object")
    offered = _offered(compiled)
    honoured: dict[str, Any] = {
        flag: True for flag, kind in _LIST_FLAGS.items() if requested.get(flag) is True and kind in offered
    }
    uris = requested.get("resourceSubscriptions")
    if uris is not None:
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise InvalidParams("resourceSubscriptions must be a list of URI strings")
        if compiled.server.subscribe and compiled.capabilities.resources is not UNSET:
            honoured["resourceSubscriptions"] = list(dict.fromkeys(uris))
    task_ids = requested.get("taskIds")
    if task_ids is not None:
        if not isinstance(task_ids, list) or not all(isinstance(t, str) for t in task_ids):
            raise InvalidParams("taskIds must be a list of task id strings")
        if offers_extension(compiled, TASKS_EXTENSION):
            if request is None or not declared(request.client_capabilities, TASKS_EXTENSION):
                raise missing_extension(
                    TASKS_EXTENSION, f"taskIds need the {TASKS_EXTENSION} extension declared"
                )
            honoured["taskIds"] = list(dict.fromkeys(task_ids))
    return honoured


async def _own_tasks(compiled: CompiledServer, task_ids: list[str], request: McpRequest | None) -> list[str]:
    """Return the ids among ``task_ids`` of the caller's tasks on this server, in order."""
    support = task_support()
    if support is None or request is None or not task_ids:
        return []
    return await support.own_tasks(compiled, task_ids, request)


async def _task_notification(task_id: str, meta: Mapping[str, Any]) -> bytes | None:
    """Return the encoded ``notifications/tasks`` for the task as it is now (None: it is gone).

    None too when it cannot be read now (the database is away, a lapsed
    lease cannot be requeued): logged, and the stream goes on; the next
    change of the task is announced again.
    """
    support = task_support()
    if support is None:
        return None
    try:
        fields = await support.status(task_id)
    except Exception:
        logger.exception("Could not read task %s for a subscriptions/listen stream", task_id)
        return None
    if fields is None:
        return None
    params = msgspec.to_builtins(TaskStatusNotificationParams(**fields))
    return encode_notification("notifications/tasks", {**params, "_meta": dict(meta)})


async def _stop(task: asyncio.Future[None]) -> None:
    """Cancel ``task`` and wait until it has ended."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def listen(
    compiled: CompiledServer,
    request_id: Any,
    honoured: dict[str, Any],
    readable: Readable,
    request: McpRequest | None = None,
) -> AsyncIterator[bytes]:
    """Yield the acknowledgement, then matching notifications, as encoded messages.

    ``honoured`` comes from ``honoured_filter``; ``readable(uri)`` tells
    whether the caller may read a URI, subscribed or updated; ``request``
    (the listen request) says whose tasks ``taskIds`` may name.
    """
    may_read = _Verdicts(readable)
    if "resourceSubscriptions" in honoured:
        honoured["resourceSubscriptions"] = [
            uri for uri in honoured["resourceSubscriptions"] if await may_read(uri)
        ]
    if "taskIds" in honoured:
        honoured["taskIds"] = await _own_tasks(compiled, honoured["taskIds"], request)
    tasks = frozenset(honoured.get("taskIds") or ())
    meta = {META_SUBSCRIPTION_ID: request_id}
    offered = _offered(compiled)
    lists = {kind: offered[kind] for flag, kind in _LIST_FLAGS.items() if honoured.get(flag)}
    watched = honoured.get("resourceSubscriptions") or ()
    interest = Interest(compiled.key, frozenset(lists), frozenset(watched), tasks)
    reason = "the server is shutting down"
    async with contextlib.AsyncExitStack() as stack:
        events = await _listening(stack, interest)
        # Acknowledge only once listening, so no change can slip between.
        yield encode_notification(
            "notifications/subscriptions/acknowledged", {"notifications": honoured, "_meta": meta}
        )
        support = task_support()
        if tasks and support is not None:  # only it finds the caller's own tasks
            for task_id in honoured["taskIds"]:
                current = await _task_notification(task_id, meta)
                if current is not None:
                    yield current
            leases = asyncio.ensure_future(support.watch_leases(list(tasks)))
            stack.push_async_callback(_stop, leases)
        try:
            async for event in await stack.enter_async_context(contextlib.aclosing(_until_closing(events))):
                if event.kind == "task":
                    if event.task_id is not None and event.task_id in tasks:
                        notification = await _task_notification(event.task_id, meta)
                        if notification is not None:
                            yield notification
                    continue
                if event.server != compiled.key:
                    continue
                if event.kind == "resource_updated":
                    # A sub-resource may be guarded where its parent is not.
                    uri = event.uri
                    if uri is not None and watches(watched, uri) and await may_read(uri):
                        yield encode_notification(
                            "notifications/resources/updated", {"uri": event.uri, "_meta": meta}
                        )
                elif event.kind in lists:
                    yield encode_notification(lists[event.kind], {"_meta": meta})
        except EventsLost as lost:
            reason = lost.reason
    logger.info("subscriptions/listen %r ended by the server: %s", request_id, reason)
    yield encode_response(request_id, {"resultType": "complete", "_meta": meta})


async def session_notifications(
    compiled: CompiledServer, current: Callable[[], Awaitable[Any]], readable: Readable
) -> AsyncIterator[bytes]:
    """Yield a 2025-11-25 session's change notifications (no subscription ids).

    ``current()`` returns the session as it is now, or None once it has
    ended; it is read when the stream starts, not per event: the session's
    later ``resources/subscribe`` and ``resources/unsubscribe`` calls reach
    the stream as events, from whichever process served them. An empty item
    is yielded once listening, so the transport can flush its headers.
    ``readable(uri)`` tells whether the stream's caller may read an updated
    URI.
    """
    offered = _offered(compiled)
    may_read = _Verdicts(readable)
    session = await current()
    if session is None:
        return
    interest = Interest(compiled.key, frozenset(offered), session=session.id)
    async with contextlib.AsyncExitStack() as stack:
        events = await _listening(stack, interest)
        # Read again once listening: a subscribe stored before this read is
        # in it, one stored after it arrives as an event.
        session = await current()
        if session is None:
            return
        interest = dataclasses.replace(interest, uris=frozenset(session.subscriptions))
        want = getattr(events, "want", None)  # a backend may not route by interest
        if want is not None:
            want(interest)
        yield b""
        try:
            async for event in await stack.enter_async_context(contextlib.aclosing(_until_closing(events))):
                # The backend's index applied it already; this stream's copy follows, in order.
                interest = interest.after(event)
                if not _for_session(event, compiled.key, offered):
                    continue
                if event.kind != "resource_updated":
                    yield encode_notification(offered[event.kind])
                elif (uri := event.uri) is not None and watches(interest.uris, uri) and await may_read(uri):
                    yield encode_notification("notifications/resources/updated", {"uri": uri})
        except EventsLost as lost:
            logger.info("A 2025-11-25 session stream ended: %s", lost.reason)


async def _listening(stack: contextlib.AsyncExitStack, interest: Interest) -> AsyncIterator[Event]:
    """Start listening for ``interest`` for the life of ``stack``; refuse while the backend cannot deliver."""
    try:
        return await stack.enter_async_context(get_backend().listen(interest))
    except EventsUnavailable as exc:
        logger.warning("Refused an MCP event stream: %s", exc.reason)
        raise NotificationsUnavailable(retry_after=exc.retry_after) from None


async def _until_closing(events: AsyncIterator[Event]) -> AsyncGenerator[Event, None]:
    """Yield ``events`` until the server shuts down (``EventsLost`` passes through)."""
    closing = asyncio.ensure_future(CLOSING.wait())
    step: asyncio.Future[Event] | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(events))
            await asyncio.wait((step, closing), return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                return
            try:
                event = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield event
    finally:
        await abandon(step, closing)


def _for_session(event: Event, key: str, offered: Mapping[str, str]) -> bool:
    # Task events never reach a 2025-11-25 session: the extension does not exist there.
    return event.server == key and (event.kind == "resource_updated" or event.kind in offered)
