"""Count the Python function calls a request makes: deterministic, unlike its time.

``python_calls(run)`` counts the ``call`` events of ``sys.setprofile`` (and
of ``threading.setprofile`` for threads started meanwhile) while ``run()``
serves one request; ``apython_calls`` the same for a coroutine. C functions
are not counted. The figure is exact for one Python and Django version, so
a test bounds it with headroom (Python 3.12 inlines comprehensions, Django
lines differ in what their handlers call); ``tests/bench/inprocess.py``
prints the same figure for every way to serve.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

__all__ = ["apython_calls", "python_calls", "without_wire_hooks"]

_T = TypeVar("_T")


class _Counter:
    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            with self.lock:
                self.calls += 1

    def __enter__(self) -> _Counter:
        threading.setprofile(self)
        sys.setprofile(self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        self.calls -= 1  # this __exit__ itself


def python_calls(run: Callable[[], _T]) -> tuple[int, _T]:
    """Return how many Python functions ``run()`` calls, and what it returned."""
    with _Counter() as counter:
        result = run()
    return counter.calls, result


async def apython_calls(run: Callable[[], Awaitable[_T]]) -> tuple[int, _T]:
    """Return how many Python functions awaiting ``run()`` calls, and its result."""
    with _Counter() as counter:
        result = await run()
    return counter.calls, result


def without_wire_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take off the schema check's wrappers (``tests/wire_schema.py``): their calls are no request's."""
    from django_mcp.dispatcher import Dispatcher, codec

    for owner, name in ((Dispatcher, "respond"), (codec, "encode_message")):
        wrapped = getattr(getattr(owner, name), "__wrapped__", None)
        if wrapped is not None:
            monkeypatch.setattr(owner, name, wrapped)
