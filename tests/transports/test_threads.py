"""Where a request's sync work runs (django_mcp/transports/_threads.py)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from django_mcp.transports._threads import CallerThread, RequestThreads


async def test_a_lease_runs_all_its_sync_work_in_one_thread_lent_from_the_pool() -> None:
    pool = RequestThreads(keep=4)
    lease = pool.lease()
    ident = threading.get_ident

    async with ThreadSensitiveContext(executor=lease):
        first = await sync_to_async(ident)()
        second = await sync_to_async(ident)()
    lease.release()

    assert first == second != threading.get_ident()
    for _ in range(100):  # the thread gives itself back once its work is done
        if pool._idle:
            break
        await asyncio.sleep(0.01)
    again = pool.lease()
    async with ThreadSensitiveContext(executor=again):
        assert await sync_to_async(ident)() == first  # the thread came back and was lent again
    again.release()
    pool.clear()


async def test_a_lease_takes_no_thread_until_it_is_needed() -> None:
    lease = RequestThreads(keep=1).lease()

    assert lease.used is False
    lease.release()


async def test_a_released_lease_sends_later_work_to_the_shared_thread() -> None:
    pool = RequestThreads(keep=4)
    lease = pool.lease()
    async with ThreadSensitiveContext(executor=lease):
        own = await sync_to_async(threading.get_ident)()
        lease.release()
        later = await sync_to_async(threading.get_ident)()
    shared = await sync_to_async(threading.get_ident, thread_sensitive=False, executor=pool.shared())()

    assert later == shared != own
    pool.clear()


def test_idle_threads_beyond_keep_are_let_go() -> None:
    pool = RequestThreads(keep=1)
    executors = [pool.take(), pool.take()]
    for executor in executors:
        pool.give_back(executor)

    assert len(pool._idle) == 1
    pool.clear()
    assert pool._idle == []


def test_the_caller_thread_runs_work_submitted_before_it_waits() -> None:
    caller = CallerThread()
    done: Future[None] = Future()
    result = caller.submit(threading.get_ident)

    def finish() -> None:
        done.set_result(None)

    caller.submit(finish)
    caller.run_until(done)

    assert result.result() == threading.get_ident()
    assert caller.used is True
    caller.close()
    with pytest.raises(RuntimeError):
        caller.submit(threading.get_ident)  # the request has ended
