"""Where a request's sync work runs: one executor per request, routed by asgiref's public API.

A request's thread-sensitive sync work (a sync tool, a session looked up in
the database, Django's async ORM, a sync ``authorize()``) must run in one
thread of its own, one call after another, as under Django's handlers. The
adapters route it with asgiref's ``ThreadSensitiveContext`` (asgiref 3.13+)
to one of these:

* ``Lease`` (``McpASGIApp``): a single-thread executor lent from
  ``REQUEST_THREADS`` the first time the request needs it, and given back
  when it ends, its old database connections closed first as
  ``request_finished`` would (so ``CONN_MAX_AGE`` connections live on,
  where Django's ASGI handler starts and ends a thread per request). A
  long-lived stream gives its thread back as soon as it starts idling; its
  later sync work goes to one shared thread. ``with lease:`` routes the
  request's work to it: one ``ThreadSensitiveContext`` made once for the
  process (``_TO_REQUEST``) sends every thread-sensitive call to the
  executor of the request whose context makes it, so a request pays two
  context variables, not a context of its own, and a request that does no
  sync work takes no thread.
* ``CallerThread`` (under WSGI: the view and ``McpWSGIApp``): the very
  thread that serves the request, as ``async_to_sync`` does, so the work
  shares that thread's database connection (its transaction,
  ``ATOMIC_REQUESTS``, a test's transaction). The WSGI driver routes to it
  the same way (``route_sync_work``), making it only when such work comes.
"""

from __future__ import annotations

import collections
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, Final, TypeVar

from asgiref.current_thread_executor import CurrentThreadExecutor
from asgiref.sync import AsyncToSync, SyncToAsync, ThreadSensitiveContext
from django.db import close_old_connections, connections

__all__ = ["REQUEST_THREADS", "CallerThread", "Lease", "RequestThreads", "route_sync_work"]

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


def _close_old_then_give_back(pool: RequestThreads, executor: ThreadPoolExecutor) -> None:
    # One submit for both: each costs a future, a lock and a wake-up.
    try:
        close_old_connections()
    finally:
        pool.give_back(executor)


REQUEST_THREADS: Final = RequestThreads(keep=64)
"""The threads ``McpASGIApp`` lends its requests."""


class Lease(Executor):
    """One request's sync thread: taken from its pool when first needed, given back at the end.

    ``with lease:`` routes the thread-sensitive sync work of the block (and
    of the tasks it starts) to the lease, as
    ``ThreadSensitiveContext(executor=lease)`` would, and releases it at the
    end. Enter it once, in the task that serves the request.
    """

    __slots__ = ("_executor", "_pool", "_released", "_routing")

    def __init__(self, pool: RequestThreads) -> None:
        self._pool = pool
        self._executor: ThreadPoolExecutor | None = None
        self._released = False
        self._routing: _Routing | None = None

    def __enter__(self) -> Lease:
        """Route the request's thread-sensitive sync work to this lease."""
        self._routing = route_sync_work(self)
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop routing work here (the request is over) and release the thread."""
        routing, self._routing = self._routing, None
        if routing is not None:
            _unroute(routing)
        self.release()

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
            executor.submit(_close_old_then_give_back, self._pool, executor)

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


class _ToRequestExecutor(Executor):
    """Send work to the executor of the request whose context submits it (``route_sync_work``)."""

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run ``fn`` in the submitting request's thread."""
        # asgiref submits from the awaiting coroutine (loop.run_in_executor),
        # in the request's context: a task the request started inherits it.
        return _REQUEST_EXECUTOR.get().submit(fn, *args, **kwargs)


#: The executor of the request whose context this is (``route_sync_work``).
_REQUEST_EXECUTOR: Final[contextvars.ContextVar[Executor]] = contextvars.ContextVar(
    "django_mcp.request_executor"
)

_ROUTER: Final = _ToRequestExecutor()

#: The one ThreadSensitiveContext every request selects. It is never
#: entered: it is registered once with its executor in
#: ``SyncToAsync.context_to_thread_executor`` (what entering it would do;
#: asgiref documents no other way, checked with asgiref 3.13) and selected
#: per request through ``SyncToAsync.thread_sensitive_context`` (a
#: request's own context would cost a weak-keyed registration, asgiref's
#: context-local writes and two coroutines per request). Were asgiref to
#: stop reading that mapping, the work would go to one thread of asgiref's
#: own: the test suite checks that it reaches the pool's.
_TO_REQUEST: Final = ThreadSensitiveContext(executor=_ROUTER)
SyncToAsync.context_to_thread_executor[_TO_REQUEST] = _ROUTER

#: What ``route_sync_work`` changed, for ``_unroute`` to put back.
_Routing = tuple[
    contextvars.Token[Executor], contextvars.Token[ThreadSensitiveContext], CurrentThreadExecutor | None
]


def route_sync_work(executor: Executor, *, under_async_to_sync: bool = True) -> _Routing:
    """Send the thread-sensitive sync work of this context (and its tasks) to ``executor``.

    What ``ThreadSensitiveContext(executor=executor)`` does on entering,
    for two context variables: an ``async_to_sync`` caller's thread,
    inherited from above, would take precedence over the context, so it is
    hidden. ``under_async_to_sync=False`` says there can be none (the
    lookup costs a lock and four Python calls). A context that is dropped
    afterwards (the WSGI driver's copy) needs no undoing; otherwise
    ``_unroute`` the result.
    """
    parent = getattr(AsyncToSync.executors, "current", None) if under_async_to_sync else None
    if parent is not None:
        AsyncToSync.executors.current = None
    return (
        _REQUEST_EXECUTOR.set(executor),
        SyncToAsync.thread_sensitive_context.set(_TO_REQUEST),
        parent,
    )


def _unroute(routing: _Routing) -> None:
    executor, context, parent = routing
    SyncToAsync.thread_sensitive_context.reset(context)
    _REQUEST_EXECUTOR.reset(executor)
    if parent is not None:
        AsyncToSync.executors.current = parent
