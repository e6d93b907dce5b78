"""Call a component method the way its compiled ``Handler`` plan says.

Sync methods run through ``_sync.run_sync`` (thread-sensitive, so ORM code
works; made at once under the WSGI driver); generator methods may yield ``McpResponse.progress(...)`` updates
before their final responses. Progress becomes ``notifications/progress``
only when the request carried a progress token, and only while strictly
increasing (MCP 2026-07-28 basic/patterns/progress).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, Final

from django.core.signals import got_request_exception

from django_mcp._sync import run_sync
from django_mcp.dispatcher.context import Call
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse
from django_mcp.server.handlers import Handler

__all__ = ["collect_failures", "invoke", "report_failure"]

logger = logging.getLogger(__name__)

_DONE = object()

#: Where ``report_failure`` also puts what it logs, inside ``collect_failures()``.
_collected: Final[ContextVar[list[BaseException] | None]] = ContextVar("django_mcp_failures", default=None)


@contextlib.contextmanager
def collect_failures() -> Iterator[list[BaseException]]:
    """Collect the exceptions ``report_failure`` logs in this context (and its tasks).

    The admin's playground shows them to staff; they never reach a client.
    """
    seen: list[BaseException] = []
    token = _collected.set(seen)
    try:
        yield seen
    finally:
        _collected.reset(token)


async def invoke(
    component: type[Any],
    handler: Handler,
    call: Call,
    *,
    payload: Any = None,
    values: Mapping[str, Any] | None = None,
    emit: Callable[[str, dict[str, Any]], None] | None = None,
) -> list[Any]:
    """Run ``component().<handler>`` and return what it produced, in order.

    Progress updates are sent through ``emit`` and left out of the result.
    The call's ``McpRequest`` is built only for a method that takes it.
    """
    instance = component()
    method = getattr(instance, handler.name)
    only = handler.payload_only
    kwargs = {only: payload} if only is not None else _arguments(handler, call, payload, values or {})
    produced: list[Any] = []
    if handler.kind == "async":
        value = await method(**kwargs)
        return list(value) if isinstance(value, list | tuple) else [value]
    if handler.kind == "sync":
        _collect(await run_sync(method, **kwargs), produced)
        return produced
    tracker = _ProgressTracker(call, emit)
    if handler.kind == "asyncgen":
        async for item in method(**kwargs):
            if not tracker.consume(item):
                _collect(item, produced)
    else:
        generator = await run_sync(method, **kwargs)
        while (item := await run_sync(_next, generator)) is not _DONE:
            if not tracker.consume(item):
                _collect(item, produced)
    return produced


def _arguments(handler: Handler, call: Call, payload: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for name, source in handler.sources.items():
        if source == "request":
            kwargs[name] = call.request
        elif source == "payload":
            kwargs[name] = payload
        elif name in values:
            kwargs[name] = values[name]
        elif name in handler.defaults:
            kwargs[name] = handler.defaults[name]
        else:
            kwargs[name] = None
    return kwargs


def _collect(value: Any, produced: list[Any]) -> None:
    if isinstance(value, list | tuple):
        produced.extend(value)
    else:
        produced.append(value)


def _next(generator: Any) -> Any:
    return next(generator, _DONE)


class _ProgressTracker:
    """Turn yielded progress responses into notifications, keeping order."""

    def __init__(self, call: Call, emit: Callable[[str, dict[str, Any]], None] | None) -> None:
        self.call = call
        self.emit = emit
        self.last: float | None = None

    def consume(self, item: Any) -> bool:
        if not (isinstance(item, McpResponse) and item.progress_update is not None):
            return False
        update = item.progress_update
        token = self.call.ctx.progress_token
        if token is None or self.emit is None:
            return True
        if self.last is not None and update.current <= self.last:
            # The spec requires strictly increasing progress per token.
            logger.warning(
                "Dropped non-increasing progress %s (last %s) for %r",
                update.current,
                self.last,
                self.call.envelope.method,
            )
            return True
        self.last = update.current
        params: dict[str, Any] = {"progressToken": token, "progress": update.current}
        if update.total is not None:
            params["total"] = update.total
        if update.message is not None:
            params["message"] = update.message
        self.emit("notifications/progress", params)
        return True


def report_failure(request: McpRequest, exc: BaseException, what: str) -> None:
    """Log an unexpected exception in user code; the client never sees its text."""
    logger.error("Unexpected error in %s", what, exc_info=exc)
    seen = _collected.get()
    if seen is not None:
        seen.append(exc)
    # Let Sentry-style handlers that listen to Django's signal see it too.
    got_request_exception.send(sender=None, request=request.http_request)
