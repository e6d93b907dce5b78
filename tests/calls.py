"""Count the Python function calls a request makes: deterministic, unlike its time.

``python_calls(run)`` counts the ``call`` events of ``sys.setprofile`` (and
of ``threading.setprofile`` for threads started meanwhile) while ``run()``
serves one request, the fewest of three runs; ``apython_calls`` the same
for a coroutine. C functions are not counted. The garbage collector is off
while counting (after a full collection): a collection that happened to
fall inside the request would add the finalizers of whatever earlier tests
left behind. The figure is exact for one Python and Django version, so a
test bounds it with headroom (Python 3.12 inlines comprehensions, Django
lines differ in what their handlers call); ``tests/bench/inprocess.py``
prints the same figure for every way to serve.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest

__all__ = ["Started", "apython_calls", "python_calls", "started", "without_wire_hooks"]

_T = TypeVar("_T")


class _Counter:
    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()
        self.collecting = True

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            with self.lock:
                self.calls += 1

    def __enter__(self) -> _Counter:
        gc.collect()
        self.collecting = gc.isenabled()
        gc.disable()
        threading.setprofile(self)
        sys.setprofile(self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        self.calls -= 1  # this __exit__ itself
        if self.collecting:
            gc.enable()


def python_calls(run: Callable[[], _T], *, times: int = 3) -> tuple[int, _T]:
    """Return the fewest Python calls of ``times`` runs of ``run()``, and the last run's result.

    Something outside the request (a thread another test left, starting
    meanwhile) can add calls to one run, never take any away: the fewest is
    the request's own count. Each run must serve a request of its own.
    """
    counts = []
    for _ in range(times):
        with _Counter() as counter:
            result = run()
        counts.append(counter.calls)
    return min(counts), result


async def apython_calls(run: Callable[[], Awaitable[_T]], *, times: int = 3) -> tuple[int, _T]:
    """Return the fewest Python calls of ``times`` awaits of ``run()``, and the last result."""
    counts = []
    for _ in range(times):
        with _Counter() as counter:
            result = await run()
        counts.append(counter.calls)
    return min(counts), result


def without_wire_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take off the schema check's wrappers (``tests/wire_schema.py``): their calls are no request's."""
    from django_mcp.dispatcher import Dispatcher, codec

    for owner, name in ((Dispatcher, "respond"), (codec, "encode_message")):
        wrapped = getattr(getattr(owner, name), "__wrapped__", None)
        if wrapped is not None:
            monkeypatch.setattr(owner, name, wrapped)


@dataclasses.dataclass
class Started:
    """What ``started()`` counted: threads started and event loops run."""

    threads: int = 0
    loops: int = 0


@contextlib.contextmanager
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[Started]:
    """Count, while the block runs, ``threading.Thread.start`` calls and event loops run (``run_forever``)."""
    seen = Started()
    start = threading.Thread.start
    run_forever = asyncio.BaseEventLoop.run_forever

    def counted_start(thread: threading.Thread) -> None:
        seen.threads += 1
        start(thread)

    def counted_run_forever(loop: asyncio.BaseEventLoop) -> None:
        seen.loops += 1
        run_forever(loop)

    with monkeypatch.context() as patch:
        patch.setattr(threading.Thread, "start", counted_start)
        patch.setattr(asyncio.BaseEventLoop, "run_forever", counted_run_forever)
        yield seen
