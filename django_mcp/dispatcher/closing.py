"""Server shutdown: end every open stream promptly, listen streams with their result.

An ASGI server stops by waiting for its open connections to close (uvicorn
sends ``lifespan.shutdown`` only once they have), and an event stream never
closes on its own: on SIGTERM the server would wait for every client to
hang up, and no ``subscriptions/listen`` stream would get its final result
(MCP 2026-07-28 ``SubscriptionsListenResult``: "sent only when the server
tears the subscription down", for example during shutdown).

``CLOSING.begin()`` ends them: each ``subscriptions/listen`` stream sends its
result and closes, each 2025-11-25 GET stream closes, and streams opened
later end at once. ``install_signal_handlers()`` chains it to the SIGTERM
and SIGINT handlers the server installed; the HTTP transport calls it when
it opens a stream. It does nothing outside the main thread, or where no
server installed a Python-level handler (a test run, a plain script):
there nobody is stopping a server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from types import FrameType
from typing import Any, Final

__all__ = ["CLOSING", "Closing", "abandon", "install_signal_handlers"]

logger = logging.getLogger(__name__)

#: Signals a server stops on (uvicorn, gunicorn's workers, hypercorn).
_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)


class Closing:
    """Whether this process is shutting down, awaitable from any event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closing = False
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()

    def __bool__(self) -> bool:
        return self._closing

    def begin(self) -> None:
        """Mark the process as shutting down and wake every waiter (thread-safe)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            waiters = list(self._waiters)
        logger.info("Shutting down: ending %d open MCP stream(s)", len(waiters))
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop has closed
                loop.call_soon_threadsafe(_wake, future)

    def reset(self) -> None:
        """Forget a shutdown (for tests that begin one)."""
        with self._lock:
            self._closing = False

    async def wait(self) -> None:
        """Return once the process is shutting down."""
        loop = asyncio.get_running_loop()
        waiter = (loop, loop.create_future())
        with self._lock:
            if self._closing:
                return
            self._waiters.add(waiter)
        try:
            await waiter[1]
        finally:
            with self._lock:
                self._waiters.discard(waiter)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


CLOSING: Final = Closing()
"""The process-wide shutdown state every stream watches."""

_installed = False


def install_signal_handlers() -> None:
    """Chain ``CLOSING.begin`` to the server's SIGTERM and SIGINT handlers, once.

    Call it from the event loop of the main thread. A signal handler runs
    between two bytecodes of that thread, so it only schedules ``begin`` on
    the loop, then calls the server's own handler.
    """
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    loop = asyncio.get_running_loop()
    for signum in _SIGNALS:
        previous = signal.getsignal(signum)
        # SIG_DFL and SIG_IGN are not callable; Python's own SIGINT handler
        # (KeyboardInterrupt) means no server is managing the process.
        if not callable(previous) or previous is signal.default_int_handler:
            continue
        signal.signal(signum, _chained(loop, previous))


def _chained(loop: asyncio.AbstractEventLoop, previous: Any) -> Any:
    def handler(signum: int, frame: FrameType | None) -> None:
        try:
            loop.call_soon_threadsafe(CLOSING.begin)
        except RuntimeError:  # that loop has closed
            threading.Thread(target=CLOSING.begin, daemon=True).start()
        previous(signum, frame)

    return handler


async def abandon(*steps: asyncio.Future[Any] | None) -> None:
    """Cancel the ``steps`` an ending stream still waits on, and wait until each has ended.

    A step already done (or None) is left alone; whatever a cancelled one
    raises is dropped: the stream is ending anyway.
    """
    for step in steps:
        if step is not None and not step.done():
            step.cancel()
            with contextlib.suppress(BaseException):
                await step
