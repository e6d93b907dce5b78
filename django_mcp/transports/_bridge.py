"""Run the async endpoint from a sync caller (WSGI), and the only private asyncio names in django_mcp.

``SyncDriver`` is the one coroutine driver: ``McpWSGIApp`` and the Django
view under Django's WSGI handler both serve through it (``run`` for the
answer, ``stream`` for an event stream, ``close`` when the response ends).
It does what ``async_to_sync`` does, only later and less often:

* the coroutine runs in the calling thread, with that thread's own idle
  event loop marked running, so whatever it creates belongs to it;
* the sync work django_mcp awaits (``_sync.run_sync``: a sync tool, a
  session or user looked up in the cache or the database) is made right
  there when awaited, the loop not marked running meanwhile, as Django's
  ORM requires (``_made_here``): a request whose work is sync, or that
  never waits, is answered in the calling thread with no thread started,
  no loop run and no wake-up across threads, as a plain sync Django view
  would answer it;
* a request that awaits anything else (an async tool's ``asyncio.sleep``,
  a third party's ``sync_to_async``) is carried on as ``async_to_sync``
  would carry it: its loop runs in a new thread while the calling thread
  runs the request's thread-sensitive sync work (``CallerThread``, routed
  there as ``ThreadSensitiveContext(executor=...)`` would route it:
  ``_threads.route_sync_work``), so that work shares the calling thread's
  database connection;
* an answer that is an event stream is sent item by item from the calling
  thread (a WSGI response body), each item awaited in that loop, the sync
  work still run in the calling thread meanwhile; the loop thread ends with
  the stream.

``coroutine_marks(sync)`` lets one view callable be async under an event
loop and sync under WSGI (``McpView`` in ``http.py``): Django asks a view
whether it is a coroutine function before calling it.

Private names, each needed for a reason no public API covers (checked with
Python 3.11 to 3.13 and asgiref 3.13):

* ``asyncio.events._get_running_loop``: tells, without raising, whether
  this thread runs a loop now (``loop_is_running``, the coroutine marks);
  the public ``asyncio.get_running_loop`` raises where there is none, and
  a raise and catch on every WSGI request costs more than the request's
  whole first step;
* ``asyncio.events._set_running_loop``: marks the thread's loop running
  while the coroutine steps in the calling thread, and not running while a
  handed-over sync call is made (``asyncio.Runner`` would run a task, a
  loop iteration and a context switch on every request);
* ``SyncToAsync.threadlocal``: asgiref notes, in the thread that ran sync
  work, the loop it came from; an ``async_to_sync`` call made later in
  that thread would schedule onto that loop, which nobody runs then. What
  was there before the request is put back;
* the coroutine mark ``markcoroutinefunction`` sets (``_is_coroutine`` on
  Python 3.11, ``_is_coroutine_marker`` on 3.12+): learnt from
  ``markcoroutinefunction`` itself, never spelled out, and reported only
  while a loop runs.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator
from concurrent.futures import Executor, Future
from typing import Any, Final, TypeVar

from asgiref.sync import SyncToAsync, markcoroutinefunction

from django_mcp import _sync
from django_mcp.transports._threads import CallerThread, route_sync_work

__all__ = ["SyncDriver", "coroutine_marks", "loop_is_running"]

_T = TypeVar("_T")
_local = threading.local()

#: What asgiref's SyncToAsync notes in the thread it runs sync work in.
_NOTED: Final = ("main_event_loop", "main_event_loop_pid", "task_context")


def loop_is_running() -> bool:
    """Return True when this thread runs an event loop now."""
    return asyncio.events._get_running_loop() is not None


class SyncDriver(Executor):
    """Drive one request's endpoint, and the event stream it may answer with, from a sync thread.

    ``run(make)`` returns what the coroutine ``make()`` returns; ``stream(it)``
    yields an async iterator's items one by one, for a WSGI response body;
    ``close()`` ends the request (call it once, in the same thread, when the
    response is over). The request's thread-sensitive sync work runs in this
    thread, whenever it waits for the next result: the driver is the
    request's executor (``_threads.route_sync_work``), and makes its
    ``CallerThread`` only when such work comes, so a request answered in its
    first step pays for none of it.
    """

    def __init__(self) -> None:
        self.loop = _thread_loop()
        #: Runs the sync work handed over by asgiref, in this thread (made when needed).
        self.caller: CallerThread | None = None
        self.context = contextvars.copy_context()
        # The copy is the request's alone and is dropped with it: nothing to
        # undo. An async_to_sync caller's thread is visible in a thread with
        # no running loop only while that thread runs sync_to_async work,
        # and that work notes its loop in the thread first.
        noted_loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
        self.context.run(route_sync_work, self, under_async_to_sync=noted_loop is not None)
        self._closed = False
        self._runner: threading.Thread | None = None
        #: What asgiref had noted in this thread, put back by close().
        self._noted: dict[str, Any] | None = None

    def run(self, make: Callable[[], Awaitable[_T]]) -> _T:
        """Return the result of the coroutine ``make()`` starts."""
        return self._drive(make())  # type: ignore[arg-type]  # a coroutine function

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Queue ``fn`` for this thread (asgiref's thread-sensitive work of the request)."""
        return self._caller().submit(fn, *args, **kwargs)

    def stream(self, source: AsyncIterator[bytes]) -> Generator[bytes, None, None]:
        """Yield ``source``'s items, each one awaited in the request's loop."""
        iterator = source.__aiter__()
        try:
            while True:
                try:
                    yield self._drive(_next(iterator))
                except StopAsyncIteration:
                    return
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                self._drive(aclose())

    def close(self) -> None:
        """End the request: refuse its later sync work, stop its loop thread, put asgiref's notes back."""
        try:
            self._closed = True
            if self.caller is not None:
                self.caller.close()
            runner, self._runner = self._runner, None
            if runner is not None:
                self.loop.call_soon_threadsafe(self.loop.stop)
                runner.join()
        finally:
            if self._noted is not None:
                for name, item in self._noted.items():
                    setattr(SyncToAsync.threadlocal, name, item)

    def _caller(self) -> CallerThread:
        """Return the request's ``CallerThread``, made (in this thread) at the first need."""
        caller = self.caller
        if caller is None:
            # asgiref notes its loop in the thread that runs its sync work:
            # this one, from now on. What was there before is put back.
            self._noted = {name: getattr(SyncToAsync.threadlocal, name, None) for name in _NOTED}
            caller = self.caller = CallerThread()
            if self._closed:
                caller.close()  # work of a task that outlived the request: refused
        return caller

    def _drive(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Return the coroutine's result: stepped here until it awaits the loop, then in the loop's thread."""
        if self._runner is None:
            done, value = _first_step(coroutine, self.loop, self.context)
            if done:
                return value  # type: ignore[no-any-return]
            self._runner = threading.Thread(target=self.loop.run_forever, name="mcp-wsgi-loop", daemon=True)
            self._runner.start()
            coroutine = _Resumed(coroutine, value).run()
        # Made here, before the coroutine reaches the loop's thread and may want it.
        caller = self._caller()
        outcome: Future[_T] = Future()

        def start() -> None:
            task = self.loop.create_task(coroutine, context=self.context)
            task.add_done_callback(functools.partial(_copy_outcome, outcome))

        self.loop.call_soon_threadsafe(start)
        caller.run_until(outcome)
        return outcome.result()


async def _next(iterator: AsyncIterator[bytes]) -> bytes:
    return await anext(iterator)


def _copy_outcome(outcome: Future[Any], task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        outcome.cancel()
    elif (error := task.exception()) is not None:
        outcome.set_exception(error)
    else:
        outcome.set_result(task.result())


def _first_step(
    coroutine: Coroutine[Any, Any, Any], loop: asyncio.AbstractEventLoop, context: contextvars.Context
) -> tuple[bool, Any]:
    """Run the coroutine here, ``loop`` marked running, until it finishes or waits on something else.

    The sync calls it awaits (``_sync.run_sync``) are made here as they
    come (``_made_here``). Return ``(True, result)`` when it finished, else
    ``(False, what it awaits)``.
    """
    state = _sync.driving
    asyncio.events._set_running_loop(loop)
    state.call = _made_here
    try:
        waiting = context.run(coroutine.send, None)
    except StopIteration as done:
        return True, done.value
    finally:
        state.call = None
        asyncio.events._set_running_loop(None)
    return False, waiting


def _made_here(fn: Callable[..., _T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _T:
    """Make a sync call the stepped coroutine awaits, with no loop marked running meanwhile.

    Django refuses ORM calls from a thread whose loop runs. The call is
    made in the coroutine's own context, as ``sync_to_async`` makes it in a
    copy of it.
    """
    state = _sync.driving
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    state.call = None
    try:
        return fn(*args, **kwargs)
    finally:
        state.call = _made_here
        asyncio.events._set_running_loop(loop)


class _Resumed:
    """Carry on, inside a task, a coroutine that has already run its first step."""

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


class _OwnLoop:
    """A thread's own event loop, closed when the thread ends."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        if not self.loop.is_running():  # else an unclosed stream's: it ends with its thread
            self.loop.close()


def _thread_loop() -> asyncio.AbstractEventLoop:
    """Return this thread's own event loop (a thread serves one request at a time).

    A loop still running is an earlier request's whose response was never
    closed (its stream never ended): this request gets a loop of its own.
    """
    owned: _OwnLoop | None = getattr(_local, "owned", None)
    if owned is None or owned.loop.is_running():
        owned = _local.owned = _OwnLoop()
    return owned.loop


def _probe() -> None:  # pragma: no cover - never called
    """Marked below to learn what ``iscoroutinefunction()`` looks for."""


#: What ``markcoroutinefunction()`` sets, by attribute name.
_COROUTINE_MARKS: Final = dict(vars(markcoroutinefunction(_probe)))


def coroutine_marks(owner: type) -> None:
    """Give class ``owner`` the coroutine marks, reported only while an event loop runs.

    Django's handlers call ``iscoroutinefunction(view)``: an instance of
    ``owner`` then reads as a coroutine function under ASGI (and inside
    ``McpWSGIApp``'s loop) and as a sync function under Django's WSGI
    handler, which then calls it without a new event loop thread.
    """
    for name, mark in _COROUTINE_MARKS.items():

        def reported(self: Any, mark: Any = mark) -> Any:
            return mark if asyncio.events._get_running_loop() is not None else None

        setattr(owner, name, property(reported))
