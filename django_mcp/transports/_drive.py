"""Drive a view's coroutine from a sync caller: no event loop thread while it does not wait.

Django runs an async view under WSGI through ``async_to_sync``: an event
loop in a new thread for every request. ``drive_in_this_thread`` does what
that does, only later and less often:

* the coroutine's first step runs in the calling thread, with that
  thread's own idle event loop marked running (so whatever the step
  creates belongs to it); a request that never waits (an async tool, an
  anonymous or token-authenticated caller) is answered right there, with
  no thread and no running loop;
* a request that does wait (a sync tool, a session looked up in the
  database) is carried on as ``async_to_sync`` would: the loop runs in a
  new thread while the calling thread runs the request's thread-sensitive
  sync work, so that work shares the calling thread's database connection
  (its transaction, ``ATOMIC_REQUESTS``, a test's transaction) as under
  Django's own bridge.

``McpView.as_view()`` returns a view function that uses it for a WSGI
request made outside an event loop (``django_mcp.transports.http``).
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import threading
from collections.abc import Callable, Coroutine, Generator
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync, ThreadSensitiveContext

__all__ = ["Resumed", "drive_in_this_thread", "first_step", "request_context", "thread_loop"]

_T = TypeVar("_T")
_local = threading.local()

#: What asgiref's SyncToAsync notes in the thread it runs sync work in.
_NOTED = ("main_event_loop", "main_event_loop_pid", "task_context")


def drive_in_this_thread(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Return the coroutine's result, without a loop thread while it does not wait."""
    loop = thread_loop()
    caller = _CallerThread()
    context, sensitive = request_context(caller)
    # Sync work run here makes asgiref note this thread's "main" loop; an
    # async_to_sync call made here after the request would schedule onto
    # that loop, which nobody runs then. Put back what was there before.
    noted = {name: getattr(SyncToAsync.threadlocal, name, None) for name in _NOTED}
    try:
        done, value = first_step(coroutine, loop, context)
        if done:
            return value  # type: ignore[no-any-return]
        task = loop.create_task(Resumed(coroutine, value).run(), context=context)
        finished: Future[None] = Future()

        def run_loop() -> None:
            try:
                loop.run_until_complete(task)
            except BaseException:  # noqa: BLE001, S110 - the task holds the outcome
                pass
            finally:
                finished.set_result(None)

        threading.Thread(target=run_loop, name="mcp-view-loop", daemon=True).start()
        caller.run_until(finished)
        result: _T = task.result()
        return result
    finally:
        SyncToAsync.context_to_thread_executor.pop(sensitive, None)
        for name, value in noted.items():
            setattr(SyncToAsync.threadlocal, name, value)


def request_context(executor: Executor) -> tuple[contextvars.Context, ThreadSensitiveContext]:
    """Return a context for one request whose thread-sensitive sync work goes to ``executor``.

    One context for every step, as a task would have: a variable set in the
    first step can be reset in a later one. The caller removes the returned
    key from ``SyncToAsync.context_to_thread_executor`` when it is done.
    """
    context = contextvars.copy_context()
    sensitive = ThreadSensitiveContext()
    context.run(SyncToAsync.thread_sensitive_context.set, sensitive)
    SyncToAsync.context_to_thread_executor[sensitive] = executor
    return context, sensitive


def first_step(
    coroutine: Coroutine[Any, Any, Any], loop: asyncio.AbstractEventLoop, context: contextvars.Context
) -> tuple[bool, Any]:
    """Run the coroutine's first step in this thread, with ``loop`` marked running.

    Whatever the step creates belongs to ``loop``. Return ``(True, result)``
    when the coroutine finished, else ``(False, what it waits on)``.
    """
    asyncio.events._set_running_loop(loop)
    try:
        return False, context.run(coroutine.send, None)
    except StopIteration as done:
        return True, done.value
    finally:
        asyncio.events._set_running_loop(None)


class Resumed:
    """Carry on a coroutine that has already run its first step, inside a task."""

    def __init__(self, coroutine: Coroutine[Any, Any, Any], waiting: Any) -> None:
        self.coroutine = coroutine
        self.waiting = waiting

    async def run(self) -> Any:
        """Return the coroutine's result."""
        return await self

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, waiting = self.coroutine, self.waiting
        while True:
            try:
                try:
                    yield waiting
                except BaseException as error:  # noqa: BLE001 - handed to the coroutine
                    waiting = coroutine.throw(error)
                else:
                    waiting = coroutine.send(None)
            except StopIteration as done:
                return done.value


_Work = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class _CallerThread(Executor):
    """Run submitted work in the thread that drives the request.

    As asgiref's ``CurrentThreadExecutor``, except that work may be
    submitted from that thread too (during the first step, before any
    other thread exists): it waits in the queue until ``run_until``.
    """

    def __init__(self) -> None:
        self._ready = threading.Condition(threading.Lock())
        self._items: collections.deque[
            tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]
        ] = collections.deque()
        self._done = False

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Queue ``fn`` for the driving thread."""
        future: Future[_T] = Future()
        with self._ready:
            if self._done:
                raise RuntimeError("the request this work belongs to has ended")
            self._items.append((future, fn, args, kwargs))
            self._ready.notify()
        return future

    def run_until(self, finished: Future[None]) -> None:
        """Run queued work until ``finished`` is done and nothing is left."""

        def wake(_future: Future[None]) -> None:
            with self._ready:
                self._done = True
                self._ready.notify()

        finished.add_done_callback(wake)
        while True:
            with self._ready:
                while not self._items and not self._done:
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


class _OwnLoop:
    """A thread's own event loop, closed when the thread ends."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        self.loop.close()


def thread_loop() -> asyncio.AbstractEventLoop:
    """Return this thread's own event loop, made on first use (closed when the thread ends).

    Shared by the sync view and ``McpWSGIApp``: a thread serves one request
    at a time, so the loop is idle whenever either takes it.
    """
    owned: _OwnLoop | None = getattr(_local, "owned", None)
    if owned is None:
        owned = _local.owned = _OwnLoop()
    return owned.loop
