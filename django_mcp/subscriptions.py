"""``subscriptions/listen``: a long-lived stream of change notifications.

The first message is ``notifications/subscriptions/acknowledged`` with the
subset of the requested filter this server honours (list changes only for
features it offers, resource subscriptions only when it offers
``resources.subscribe`` and only for URIs the caller may read). After it,
each matching change event becomes a notification. Every message carries ``_meta["io.modelcontextprotocol/
subscriptionId"]`` = the listen request's id (MCP 2026-07-28
basic/patterns/subscriptions). Progress and log messages never appear here.
The stream ends when the transport stops iterating (client gone) or the
server shuts down.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from django_mcp._methods import find_resource
from django_mcp.context import McpRequest
from django_mcp.dispatcher import Dispatcher
from django_mcp.envelope import CallContext, Envelope, encode_notification
from django_mcp.events import Event, get_backend, server_key
from django_mcp.exceptions import InvalidParams, ResourceNotFound
from django_mcp.protocol._base import UNSET

__all__ = ["SUBSCRIPTION_ID", "honoured_filter", "listen", "watches"]

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

_LIST_FLAGS = {
    "toolsListChanged": ("tools", "notifications/tools/list_changed"),
    "promptsListChanged": ("prompts", "notifications/prompts/list_changed"),
    "resourcesListChanged": ("resources", "notifications/resources/list_changed"),
}


def honoured_filter(dispatcher: Dispatcher, requested: Any) -> dict[str, Any]:
    """Return the part of the requested ``SubscriptionFilter`` this server serves."""
    if not isinstance(requested, Mapping):
        raise InvalidParams("subscriptions/listen needs a notifications object")
    server = dispatcher.compiled.server
    capabilities = dispatcher.capabilities
    honoured: dict[str, Any] = {}
    for flag, (feature, _method) in _LIST_FLAGS.items():
        if (
            requested.get(flag) is True
            and server.list_changed
            and getattr(capabilities, feature) is not UNSET
        ):
            honoured[flag] = True
    uris = requested.get("resourceSubscriptions")
    if uris is not None:
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise InvalidParams("resourceSubscriptions must be a list of URI strings")
        if server.subscribe and capabilities.resources is not UNSET:
            honoured["resourceSubscriptions"] = list(dict.fromkeys(uris))
    return honoured


async def listen(dispatcher: Dispatcher, envelope: Envelope, ctx: CallContext) -> AsyncIterator[bytes]:
    """Yield the acknowledgement, then matching notifications, as encoded messages.

    Raises ``InvalidParams`` before yielding anything if the filter is malformed.
    """
    honoured = honoured_filter(dispatcher, envelope.params.get("notifications"))
    if "resourceSubscriptions" in honoured:
        request = dispatcher.request_for(envelope, ctx, None)
        honoured["resourceSubscriptions"] = [
            uri for uri in honoured["resourceSubscriptions"] if await _readable(dispatcher, uri, request)
        ]
    meta = {SUBSCRIPTION_ID: envelope.id}
    key = server_key(dispatcher.compiled.server)
    async with get_backend().listen() as events:
        # Acknowledge only once listening, so no change can slip between.
        yield encode_notification(
            "notifications/subscriptions/acknowledged", {"notifications": honoured, "_meta": meta}
        )
        async for event in events:
            message = _notification_for(event, key, honoured, meta)
            if message is not None:
                yield message


async def _readable(dispatcher: Dispatcher, uri: str, request: McpRequest) -> bool:
    """Return True when ``uri`` names a resource this caller may read.

    Change notifications reveal activity, so a caller only watches what it
    could read (SERVER-CHECKLIST §8: drop URIs the caller may not read).
    """
    try:
        await find_resource(dispatcher.compiled, uri, request)
    except ResourceNotFound:
        return False
    return True


def _notification_for(
    event: Event, key: str, honoured: Mapping[str, Any], meta: dict[str, Any]
) -> bytes | None:
    if event.server != key:
        return None
    if event.kind == "resource_updated":
        watched = honoured.get("resourceSubscriptions") or ()
        if event.uri is not None and watches(watched, event.uri):
            return encode_notification("notifications/resources/updated", {"uri": event.uri, "_meta": meta})
        return None
    for flag, (feature, method) in _LIST_FLAGS.items():
        if feature == event.kind and honoured.get(flag):
            return encode_notification(method, {"_meta": meta})
    return None


def watches(watched: Iterable[str], uri: str) -> bool:
    """Return True when a subscription to any of ``watched`` covers ``uri``."""
    # A change to a sub-resource counts for the subscribed parent URI.
    return any(uri == base or uri.startswith(base.rstrip("/") + "/") for base in watched)
