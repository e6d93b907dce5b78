"""Await sync work: made at once by the WSGI driver, in asgiref's thread-sensitive thread elsewhere.

django_mcp awaits its own sync work (a sync tool, a sync validation rule,
a cache or ORM read) through ``run_sync`` or ``sync_or_async``:

* under an event loop, ``run_sync(fn, ...)`` is
  ``sync_to_async(fn, thread_sensitive=True)(...)`` and ``sync_or_async``
  awaits the async twin (a cache's ``aget``, a user's ``ahas_perms``);
* while the WSGI driver (``transports._bridge.SyncDriver``) steps a
  request's coroutine in the request's own thread, awaiting either makes
  the sync call right there, through the driver's ``driving.call`` (which
  unmarks the running loop meanwhile): the coroutine never suspends, so
  the request starts no thread, runs no event loop and needs no wake-up
  across threads. The work runs in the thread that serves the request,
  with its database connection, as in a plain sync Django view.

Anything else awaited under the driver (an async tool's ``asyncio.sleep``,
a third party's ``sync_to_async``) is what it always was: the driver then
carries the request on in an event loop.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Final, TypeVar

from asgiref.sync import sync_to_async

__all__ = ["MakeCall", "SyncCall", "driving", "run_sync", "sync_or_async"]

_T = TypeVar("_T")


#: How the WSGI driver makes a sync call: ``call(fn, args, kwargs)``.
MakeCall = Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]


class _State(threading.local):
    #: Set by the WSGI driver while it steps a coroutine in this thread.
    call: MakeCall | None = None

    @property
    def driving(self) -> bool:
        """Return True while the WSGI driver steps a coroutine in this thread."""
        return self.call is not None


driving = _State()
"""This thread's state: ``driving.call`` is set by the WSGI driver only."""


class SyncCall:
    """A sync call made when awaited, by the WSGI driver of this thread; the coroutine never suspends."""

    __slots__ = ("args", "fn", "kwargs")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.fn = fn
        self.args = args
        self.kwargs = kwargs

    def __await__(self) -> Generator[Any, Any, Any]:
        call = driving.call
        if call is None:  # awaited after the driver handed the request over to a loop
            return (yield from _in_sync_thread(self.fn, self.args, self.kwargs).__await__())
        return call(self.fn, self.args, self.kwargs)


def _call(fn: Callable[..., _T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _T:
    return fn(*args, **kwargs)


#: One thread-sensitive ``sync_to_async`` for every call: its ``__call__``
#: keeps nothing between calls, and wrapping each function anew costs a
#: dozen Python calls (asgiref checks it is no coroutine function, copies
#: its name and marks the wrapper) for what only a traceback would show.
_in_sync_thread: Final = sync_to_async(_call, thread_sensitive=True)


def run_sync(fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Awaitable[_T]:
    """Return an awaitable of ``fn(*args, **kwargs)``, run where the request's sync work runs."""
    if driving.call is not None:
        return SyncCall(fn, args, kwargs)
    return _in_sync_thread(fn, args, kwargs)


def sync_or_async(
    sync: Callable[..., _T], asynchronous: Callable[..., Awaitable[_T]], /, *args: Any, **kwargs: Any
) -> Awaitable[_T]:
    """Return ``asynchronous(...)``, or under the WSGI driver ``sync(...)`` made at once."""
    if driving.call is not None:
        return SyncCall(sync, args, kwargs)
    return asynchronous(*args, **kwargs)
