"""Change notifications: tell listening clients that a catalog or resource changed.

Call ``tools_changed(ServerClass)``, ``prompts_changed``,
``resources_changed`` or ``resource_updated(ServerClass, uri)`` from any
code, sync or async, in any worker; ``task_changed(task_id)`` is what every
change of an MCP task announces (``tasks/store.py``). The configured backend
(``MCP_EVENT_BACKEND``) carries the event to every process holding
``subscriptions/listen`` streams (2026-07-28) or legacy GET streams: the
in-process default serves a single process, the Redis and PostgreSQL
backends many. In each process an event reaches only the streams whose
``Interest`` (given to ``listen()``) it matches.
Announcing never blocks on the backend's server for long, and never
raises because it is unreachable: a change notification is best effort.

A backend spanning processes also forwards small control messages between
them (``EventBackend.forward``); ``on_forwarded`` registers what handles
them in the receiving process.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Literal

from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from django_mcp.conf import get_setting
from django_mcp.events._interest import Interest
from django_mcp.events.base import EventBackend, EventsLost, EventsUnavailable, ForwardFailed

__all__ = [
    "Event",
    "EventBackend",
    "EventsLost",
    "EventsUnavailable",
    "ForwardFailed",
    "Interest",
    "get_backend",
    "handle_forwarded",
    "on_forwarded",
    "prompts_changed",
    "resource_updated",
    "resources_changed",
    "server_key",
    "session_subscriptions_changed",
    "task_changed",
    "tools_changed",
]

logger = logging.getLogger(__name__)

EventKind = Literal["tools", "prompts", "resources", "resource_updated", "task", "subscribed", "unsubscribed"]


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """A change of one server's catalog, of one resource's contents, or of one task.

    A task event names its task by ``task_id`` (unique across servers);
    its ``server`` is empty: the writer of a task row need not know it.
    ``subscribed``/``unsubscribed`` say that 2025-11-25 ``session``
    (un)subscribed ``uri``, so its stream, in whichever process, follows.
    """

    server: str
    kind: EventKind
    uri: str | None = None
    task_id: str | None = None
    session: str | None = None


def server_key(server: Any) -> str:
    """Return the stable identifier events use for a Server class."""
    return f"{server.__module__}.{server.__qualname__}"


@functools.cache
def get_backend() -> EventBackend:
    """Return the configured event backend instance (cached)."""
    path = get_setting("MCP_EVENT_BACKEND")
    try:
        backend_cls = import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(f"MCP_EVENT_BACKEND {path!r} cannot be imported: {exc}") from None
    if not (isinstance(backend_cls, type) and issubclass(backend_cls, EventBackend)):
        raise ImproperlyConfigured(f"MCP_EVENT_BACKEND {path!r} is not an EventBackend subclass")
    return backend_cls()


@receiver(setting_changed)
def _reset(*, setting: str, **kwargs: Any) -> None:
    if setting in ("MCP_EVENT_BACKEND", "MCP_REDIS_URL", "MCP_EVENT_NAMESPACE", "SECRET_KEY"):
        get_backend.cache_clear()


#: Handles one forwarded message; True when it was for this process.
ForwardedHandler = Callable[[Mapping[str, Any]], bool]

_handlers_lock = threading.Lock()
_handlers: list[weakref.WeakMethod[ForwardedHandler]] = []


def on_forwarded(handler: ForwardedHandler) -> None:
    """Offer every message other processes forward to ``handler`` (a bound method, held weakly)."""
    with _handlers_lock:
        _handlers.append(weakref.WeakMethod(handler))


def handle_forwarded(message: Mapping[str, Any]) -> bool:
    """Offer a forwarded ``message`` to this process's handlers; True once one took it."""
    with _handlers_lock:
        _handlers[:] = [ref for ref in _handlers if ref() is not None]
        handlers = [ref() for ref in _handlers]
    for handler in handlers:
        try:
            if handler is not None and handler(message):
                return True
        except Exception:  # one broken handler must not stop the others
            logger.exception("A handler of a forwarded MCP message failed")
    return False


def tools_changed(server: Any) -> None:
    """Announce that ``server``'s tool list changed."""
    get_backend().publish(Event(server_key(server), "tools"))


def prompts_changed(server: Any) -> None:
    """Announce that ``server``'s prompt list changed."""
    get_backend().publish(Event(server_key(server), "prompts"))


def resources_changed(server: Any) -> None:
    """Announce that ``server``'s resource list changed."""
    get_backend().publish(Event(server_key(server), "resources"))


def task_changed(task_id: str) -> None:
    """Announce that MCP task ``task_id`` changed (status, message, outcome)."""
    get_backend().publish(Event("", "task", task_id=task_id))


def session_subscriptions_changed(session_id: str, uri: str, *, subscribed: bool) -> None:
    """Announce that a 2025-11-25 session (un)subscribed ``uri`` (``resources/subscribe``)."""
    get_backend().publish(Event("", "subscribed" if subscribed else "unsubscribed", uri, session=session_id))


def resource_updated(server: Any, uri: str) -> None:
    """Announce that the contents of resource ``uri`` changed."""
    if not isinstance(uri, str) or not uri:
        raise ValueError(f"resource_updated() needs a URI string, got {uri!r}")
    get_backend().publish(Event(server_key(server), "resource_updated", uri))
