"""One event loop's connection to a broker, restored with backoff while the loop runs.

The Redis and PostgreSQL event backends keep one receiving connection per
event loop (a Redis subscription, a PostgreSQL ``LISTEN`` connection) and
share what happens around it, here: connect, mark it up, receive until it
fails, then mark it down, end the loop's listeners if it was up (events
sent meanwhile cannot be replayed), and try again after a jittered
exponential backoff. A backend's subclass provides only how to connect
(``_connect``) and how to receive (``_receive``), and names its broker in
the log messages and reasons.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from django_mcp.events.base import EventsUnavailable
from django_mcp.events.memory import MemoryEventBackend

__all__ = ["Reconnecting", "close_quietly"]


async def close_quietly(close: Callable[[], Awaitable[Any]]) -> None:
    """Await ``close()``, ignoring any error: the connection is being given up anyway."""
    with contextlib.suppress(Exception):
        await close()


class Reconnecting:
    """One event loop's receiving connection, restored while the loop runs.

    Subclasses set the class attributes naming their broker, and implement
    ``_connect`` and ``_receive``. ``backend`` must have ``_local`` (the
    in-process fan-out to this loop's listeners) and ``_forget(subscription)``.
    """

    #: Name of the loop's asyncio task.
    task_name: ClassVar[str]
    #: The reason listening is refused before the first attempt ended.
    starting: ClassVar[str]
    #: The reason after a failure; ``{error}`` is the exception's type name.
    failed: ClassVar[str]
    #: Warning once the connection works again; ``%d`` is the failed attempts.
    back: ClassVar[str]
    #: Warning when a working connection is lost; ``%s`` is the exception.
    lost: ClassVar[str]
    #: Why listeners end when a working connection is lost.
    ended: ClassVar[str]
    #: Warning (then debug) when an attempt fails; ``%s`` is the exception.
    retrying: ClassVar[str]

    def __init__(self, backend: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.backend = backend
        self.loop = loop
        #: Set while connected; cleared the moment the connection is lost.
        self.up = asyncio.Event()
        #: Set once the first attempt to connect succeeded or failed.
        self.tried = asyncio.Event()
        #: Failed attempts since the connection last worked.
        self.failures = 0
        self.reason = self.starting
        #: ``loop.time()`` of the next attempt to connect.
        self.retry_at = 0.0
        self.task = loop.create_task(self._run(), name=self.task_name)

    def require(self) -> None:
        """Raise ``EventsUnavailable`` unless connected now."""
        if not self.up.is_set():
            retry_after = max(1, math.ceil(self.retry_at - self.loop.time()))
            raise EventsUnavailable(self.reason, retry_after=retry_after)

    def _backoff(self) -> tuple[float, float]:
        """Return the seconds before the first attempt after a loss, and the most between two."""
        raise NotImplementedError

    async def _connect(self, closing: contextlib.AsyncExitStack) -> Any:
        """Connect and start receiving; return what ``_receive`` reads.

        Push on ``closing`` how to close whatever was opened, even when a
        later step fails: it runs once the failure has been handled.
        """
        raise NotImplementedError

    async def _receive(self, connection: Any) -> None:
        """Deliver what arrives on ``connection`` until it fails (raise)."""
        raise NotImplementedError

    async def _run(self) -> None:
        try:
            while True:
                await self._serve()
                self.failures += 1
                first, most = self._backoff()
                delay = min(most, first * 2 ** (self.failures - 1))
                delay *= random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not cryptography
                self.retry_at = self.loop.time() + delay
                await asyncio.sleep(delay)
        finally:
            self.up.clear()
            self.backend._forget(self)

    async def _serve(self) -> None:
        """Connect and receive until the connection fails."""
        async with contextlib.AsyncExitStack() as closing:
            try:
                connection = await self._connect(closing)
                if self.failures:
                    self._logger().warning(self.back, self.failures)
                self.failures = 0
                self.up.set()
                self.tried.set()
                await self._receive(connection)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker's errors, OSError, a timeout: all mean "lost"
                self._lost(exc)

    def _lost(self, exc: BaseException) -> None:
        was_up = self.up.is_set()
        self.up.clear()
        self.tried.set()
        self.reason = self.failed.format(error=type(exc).__name__)
        logger = self._logger()
        if was_up:
            logger.warning(self.lost, exc)
            # Events sent from now on are lost for them: end them now.
            local: MemoryEventBackend = self.backend._local
            local.end_listeners(self.ended, loop=self.loop)
        elif self.failures == 0:
            logger.warning(self.retrying, exc)
        else:
            logger.debug(self.retrying, exc)

    def _logger(self) -> logging.Logger:
        # The backend's module logger: log settings name the backend.
        return logging.getLogger(type(self).__module__)
