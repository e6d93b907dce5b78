"""``django_mcp._sync``: sync work awaited through asgiref under a loop, made by the WSGI driver under it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from django_mcp import _sync
from django_mcp.transports._bridge import SyncDriver

_T = TypeVar("_T")


def _thread() -> int:
    return threading.get_ident()


def _fail() -> None:
    raise ValueError("refused")


async def _twin() -> str:
    return "async"


def _sync_twin() -> str:
    return "sync"


def _driven(main: Callable[[], Awaitable[_T]]) -> _T:
    """Return what ``main()`` returns, driven as a WSGI request is (``SyncDriver``)."""
    driver = SyncDriver()
    try:
        return driver.run(main)
    finally:
        driver.close()


def test_under_an_event_loop_run_sync_is_sync_to_async() -> None:
    async def main() -> tuple[int, bool]:
        awaitable = _sync.run_sync(_thread)
        return await awaitable, isinstance(awaitable, _sync.SyncCall)

    ident, handed = asyncio.run(main())

    assert handed is False
    assert ident != threading.get_ident()  # asgiref's thread-sensitive thread


def test_under_an_event_loop_sync_or_async_awaits_the_async_twin() -> None:
    async def main() -> str:
        return await _sync.sync_or_async(_sync_twin, _twin)

    assert asyncio.run(main()) == "async"


def test_under_the_driver_the_call_is_made_in_the_calling_thread() -> None:
    async def main() -> tuple[int, str, bool]:
        ident = await _sync.run_sync(_thread)
        twin = await _sync.sync_or_async(_sync_twin, _twin)
        return ident, twin, _sync.driving.driving

    driver = SyncDriver()
    try:
        ident, twin, driving = driver.run(main)
    finally:
        driver.close()

    assert (ident, twin, driving) == (threading.get_ident(), "sync", True)
    assert driver._runner is None  # no loop thread was started
    assert _sync.driving.driving is False  # only while the driver steps


def test_under_the_driver_no_event_loop_runs_while_the_call_is_made() -> None:
    def running() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    async def main() -> bool:
        return await _sync.run_sync(running)

    assert _driven(main) is False  # so Django's ORM does not refuse the call


def test_under_the_driver_an_error_is_raised_where_the_call_is_awaited() -> None:
    async def main() -> str:
        try:
            await _sync.run_sync(_fail)
        except ValueError as exc:
            return f"caught {exc}"
        return "not raised"

    assert _driven(main) == "caught refused"


def test_after_the_driver_falls_back_to_a_loop_sync_work_still_runs_in_the_calling_thread() -> None:
    async def main() -> tuple[int, int]:
        before = await _sync.run_sync(_thread)
        await asyncio.sleep(0)  # awaits the loop: the rest runs in the loop's thread
        after = await _sync.run_sync(_thread)
        return before, after

    before, after = _driven(main)

    assert before == after == threading.get_ident()


def test_run_sync_passes_arguments_through() -> None:
    async def main() -> str:
        return await _sync.run_sync("{}-{x}".format, 1, x=2)

    assert _driven(main) == "1-2"
    assert asyncio.run(main()) == "1-2"


@pytest.mark.parametrize("value", [None, 0, ""])
def test_a_falsy_result_comes_back_as_it_is(value: object) -> None:
    async def main() -> object:
        return await _sync.run_sync(lambda: value)

    assert _driven(main) == value


def test_a_call_made_under_the_driver_but_awaited_in_its_loop_still_runs_in_the_calling_thread() -> None:
    async def main() -> int:
        pending = _sync.run_sync(_thread)  # made while the driver steps
        await asyncio.sleep(0)  # the rest runs in the loop's thread
        return await pending

    assert _driven(main) == threading.get_ident()
