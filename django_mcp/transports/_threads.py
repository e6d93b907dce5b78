"""Where a request's sync work runs: one executor per request, routed by asgiref's public API.

A request's thread-sensitive sync work (a sync tool, a session looked up in
the database, Django's async ORM, a sync ``authorize()``) must run in one
thread of its own, one call after another, as under Django's handlers. The
adapters route it with asgiref's ``ThreadSensitiveContext(executor=...)``
(asgiref 3.13+) to one of these:

* ``Lease`` (``McpASGIApp``): a single-thread executor lent from
  ``REQUEST_THREADS`` the first time the request needs it, and given back
  when it ends, its old database connections closed first as
  ``request_finished`` would (so ``CONN_MAX_AGE`` connections live on,
  where Django's ASGI handler starts and ends a thread per request). A
  long-lived stream gives its thread back as soon as it starts idling; its
  later sync work goes to one shared thread.
* ``CallerThread`` (under WSGI: the view and ``McpWSGIApp``): the very
  thread that serves the request, as ``async_to_sync`` does, so the work
  shares that thread's database connection (its transaction,
  ``ATOMIC_REQUESTS``, a test's transaction).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, Final, TypeVar

from django.db import close_old_connections, connections

__all__ = ["REQUEST_THREADS", "CallerThread", "Lease", "RequestThreads"]

_T = TypeVar("_T")


class RequestThreads:
    """Single-thread executors lent to requests; at most ``keep`` wait idle."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._idle: list[ThreadPoolExecutor] = []
        self._lock = threading.Lock()
        self._shared: ThreadPoolExecutor | None = None

    def lease(self) -> Lease:
        """Return a new request's executor (it takes a thread on first use)."""
        return Lease(self)

    def take(self) -> ThreadPoolExecutor:
        """Return an idle thread, or a new one."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-request")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        """Keep ``executor`` for a later request, or let it go when enough are idle."""
        with self._lock:
            if len(self._idle) < self.keep:
                self._idle.append(executor)
                return
        _retire(executor)

    def shared(self) -> ThreadPoolExecutor:
        """Return the one thread long-lived streams share for their occasional sync work."""
        with self._lock:
            if self._shared is None:
                self._shared = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-streams")
            return self._shared

    def clear(self) -> None:
        """Let every idle thread go (its connections closed)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for executor in idle:
            _retire(executor)


def _retire(executor: ThreadPoolExecutor) -> None:
    executor.submit(connections.close_all)
    executor.shutdown(wait=False)


def _then_close_old(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


REQUEST_THREADS: Final = RequestThreads(keep=64)
"""The threads ``McpASGIApp`` lends its requests."""


class Lease(Executor):
    """One request's sync thread: taken from its pool when first needed, given back at the end."""

    __slots__ = ("_executor", "_pool", "_released")

    def __init__(self, pool: RequestThreads) -> None:
        self._pool = pool
        self._executor: ThreadPoolExecutor | None = None
        self._released = False

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run ``fn`` in the request's thread (the shared one once released)."""
        if self._released:
            return self._pool.shared().submit(_then_close_old, fn, *args, **kwargs)
        if self._executor is None:
            self._executor = self._pool.take()
        return self._executor.submit(fn, *args, **kwargs)

    @property
    def used(self) -> bool:
        """Return True when the request holds a thread now."""
        return self._executor is not None

    def release(self) -> None:
        """Give the thread back once the work submitted so far is done; later work goes to the shared one."""
        self._released = True
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.submit(close_old_connections)
            executor.submit(self._pool.give_back, executor)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:  # noqa: FBT001, FBT002 - as Executor
        """Release the thread (an Executor's ending)."""
        self.release()


_Work = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class CallerThread(Executor):
    """Run submitted work in the thread that drives the request.

    As asgiref's ``CurrentThreadExecutor``, except that work may be
    submitted from that thread too (before any other thread runs the
    request): it waits in the queue until ``run_until``. ``run_until`` may
    be called again (an event stream waits for each of its items);
    ``close()`` ends it.
    """

    def __init__(self) -> None:
        self._ready = threading.Condition(threading.Lock())
        self._items: collections.deque[_Work] = collections.deque()
        self._done = False
        self.used = False

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Queue ``fn`` for the driving thread."""
        future: Future[_T] = Future()
        with self._ready:
            if self._done:
                raise RuntimeError("the request this work belongs to has ended")
            self._items.append((future, fn, args, kwargs))
            self.used = True
            self._ready.notify()
        return future

    def run_until(self, finished: Future[Any]) -> None:
        """Run queued work until ``finished`` is done and nothing is left."""

        def wake(_future: Future[Any]) -> None:
            with self._ready:
                self._ready.notify()

        finished.add_done_callback(wake)
        while True:
            with self._ready:
                while not self._items and not finished.done():
                    self._ready.wait()
                if not self._items:
                    return
                future, fn, args, kwargs = self._items.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting coroutine
                future.set_exception(exc)
            else:
                future.set_result(result)

    def close(self) -> None:
        """Refuse further work: the request it belongs to has ended."""
        with self._ready:
            self._done = True
