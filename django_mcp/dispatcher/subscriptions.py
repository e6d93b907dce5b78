"""Change notifications: ``subscriptions/listen`` and 2025-11-25 session streams.

``subscriptions/listen`` (MCP 2026-07-28 basic/patterns/subscriptions) is a
long-lived stream. Its first message is
``notifications/subscriptions/acknowledged`` with the subset of the
requested filter this server honours: list changes only for features it
offers with ``listChanged``, resource subscriptions only when it offers
``resources.subscribe`` and only for URIs the caller may read (change
notifications reveal activity). After it, each matching change event
becomes a notification; every message carries
``_meta["io.modelcontextprotocol/subscriptionId"]`` = the listen request's
id. Progress and log messages never appear here.

A 2025-11-25 session gets the same events without subscription ids: list
changes for advertised features, resource updates for subscribed URIs and
their sub-resources (2025-11-25 server/resources).

Both end when the transport stops iterating (client gone) or the server
shuts down.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Final

from django_mcp.dispatcher.codec import encode_notification
from django_mcp.events import Event, get_backend
from django_mcp.exceptions import InvalidParams
from django_mcp.protocol._base import UNSET
from django_mcp.server.compiler import CompiledServer

__all__ = ["SUBSCRIPTION_ID", "honoured_filter", "listen", "session_notifications", "watches"]

SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"

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


def _offered(compiled: CompiledServer) -> dict[str, str]:
    """Return ``{event kind: list_changed method}`` for the lists this server announces."""
    if not compiled.server.list_changed:
        return {}
    return {
        kind: method
        for kind, method in _LIST_CHANGED.items()
        if getattr(compiled.capabilities, kind) is not UNSET
    }


def honoured_filter(compiled: CompiledServer, requested: Any) -> dict[str, Any]:
    """Return the part of the requested ``SubscriptionFilter`` this server serves."""
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
    return honoured


async def listen(
    compiled: CompiledServer,
    request_id: Any,
    honoured: dict[str, Any],
    readable: Callable[[str], Awaitable[bool]],
) -> AsyncIterator[bytes]:
    """Yield the acknowledgement, then matching notifications, as encoded messages.

    ``honoured`` comes from ``honoured_filter``; ``readable(uri)`` tells
    whether the caller may read a subscribed URI.
    """
    if "resourceSubscriptions" in honoured:
        honoured["resourceSubscriptions"] = [
            uri for uri in honoured["resourceSubscriptions"] if await readable(uri)
        ]
    meta = {SUBSCRIPTION_ID: request_id}
    offered = _offered(compiled)
    lists = {kind: offered[kind] for flag, kind in _LIST_FLAGS.items() if honoured.get(flag)}
    watched = honoured.get("resourceSubscriptions") or ()
    async with get_backend().listen() as events:
        # Acknowledge only once listening, so no change can slip between.
        yield encode_notification(
            "notifications/subscriptions/acknowledged", {"notifications": honoured, "_meta": meta}
        )
        async for event in events:
            if event.server != compiled.key:
                continue
            if event.kind == "resource_updated":
                if event.uri is not None and watches(watched, event.uri):
                    yield encode_notification(
                        "notifications/resources/updated", {"uri": event.uri, "_meta": meta}
                    )
            elif event.kind in lists:
                yield encode_notification(lists[event.kind], {"_meta": meta})


async def session_notifications(
    compiled: CompiledServer, current: Callable[[], Awaitable[Any]]
) -> AsyncIterator[bytes]:
    """Yield a 2025-11-25 session's change notifications (no subscription ids).

    ``current()`` returns the session as it is now (its subscriptions may
    change while the stream is open), or None once it has ended, which ends
    the stream at the next event. An empty item is yielded once listening,
    so the transport can flush its headers.
    """
    offered = _offered(compiled)
    async with get_backend().listen() as events:
        yield b""
        async for event in events:
            if not _for_session(event, compiled.key, offered):
                continue
            session = await current()
            if session is None:
                return
            if event.kind != "resource_updated":
                yield encode_notification(offered[event.kind])
            elif event.uri is not None and session.watches(event.uri):
                yield encode_notification("notifications/resources/updated", {"uri": event.uri})


def _for_session(event: Event, key: str, offered: Mapping[str, str]) -> bool:
    return event.server == key and (event.kind == "resource_updated" or event.kind in offered)
