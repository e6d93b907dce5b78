"""Ending streams: django_mcp/dispatcher/closing.py (``abandon``)."""

from __future__ import annotations

import asyncio

from django_mcp.dispatcher.closing import abandon


async def test_abandon_cancels_the_steps_not_done_and_waits_for_them() -> None:
    ended: list[str] = []

    async def waits() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("waits")

    waiting = asyncio.ensure_future(waits())
    done = asyncio.get_running_loop().create_future()
    done.set_result("kept")
    await asyncio.sleep(0)

    await abandon(waiting, done, None)

    assert waiting.cancelled() and ended == ["waits"]
    assert done.result() == "kept"
