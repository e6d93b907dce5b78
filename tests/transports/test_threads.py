"""Where a request's sync work runs (django_mcp/transports/_threads.py)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future

import pytest
from asgiref.sync import ThreadSensitiveContext, async_to_sync, sync_to_async

from django_mcp._sync import run_sync
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


async def test_with_a_lease_sync_work_and_the_tasks_it_starts_run_in_its_one_thread() -> None:
    pool = RequestThreads(keep=4)
    ident = threading.get_ident

    async def in_a_task() -> int:
        return await sync_to_async(ident)()

    with pool.lease() as lease:
        assert lease.used is False  # entering takes no thread
        first = await sync_to_async(ident)()
        from_task = await asyncio.create_task(in_a_task())
        from_ours = await run_sync(ident)
        name = await sync_to_async(lambda: threading.current_thread().name)()

    assert first == from_task == from_ours != threading.get_ident()
    assert name.startswith("mcp-request")  # the pool's thread, not one asgiref made for the context
    assert lease.used is False  # released on leaving
    elsewhere = await sync_to_async(ident)()
    assert elsewhere != first  # outside the block, asgiref's own routing again
    pool.clear()


async def test_with_a_lease_async_orm_calls_share_the_sync_works_thread() -> None:
    # Django's async ORM is sync_to_async(thread_sensitive=True): it must
    # land in the request's thread, with that thread's connection.
    from django.db import connection

    pool = RequestThreads(keep=4)

    def ours() -> tuple[int, int]:
        return threading.get_ident(), id(connection)

    with pool.lease():
        sync = await run_sync(ours)
        orm_like = await sync_to_async(ours)()
    assert sync == orm_like
    pool.clear()


def test_with_a_lease_under_async_to_sync_the_callers_thread_is_hidden_and_put_back() -> None:
    pool = RequestThreads(keep=4)
    caller = threading.get_ident()

    async def serve() -> tuple[int, int]:
        with pool.lease():
            inside = await sync_to_async(threading.get_ident)()
        after = await sync_to_async(threading.get_ident)()
        return inside, after

    inside, after = async_to_sync(serve)()

    assert inside != caller  # the request's thread, as ThreadSensitiveContext(executor=...) routes it
    assert after == caller  # async_to_sync's own routing, put back
    pool.clear()
