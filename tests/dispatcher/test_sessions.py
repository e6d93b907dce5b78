"""LegacySession and PendingRequests: 2025-11-25 sessions stored in the cache, changed atomically."""

from __future__ import annotations

import asyncio
from unittest import mock

import pytest

from django_mcp.dispatcher.sessions import LegacySession, PendingRequests

LEGACY = "2025-11-25"


async def test_session_of_another_server_is_unknown() -> None:
    session = await LegacySession.create(
        server="other.Server", version=LEGACY, capabilities={}, client_info=None
    )

    assert (
        await LegacySession.load(session.id, server="testproject.conformance.mcp.ConformanceServer") is None
    )
    assert (await LegacySession.load(session.id, server="other.Server")) == session


async def test_pending_requests_resolve_only_their_own_session() -> None:
    pending = PendingRequests()
    future = pending.expect("s1", "r1")

    assert pending.resolve("s2", "r1", result={}) is False
    assert pending.resolve("s1", "r1", result={"ok": True}) is True
    assert await future == {"ok": True}
    assert pending.resolve("s1", "r1", result={}) is False


async def test_each_request_of_a_session_renews_its_idle_timeout() -> None:
    session = await LegacySession.create(
        server="s", version="2025-11-25", capabilities={}, client_info=None, timeout=123
    )
    cache = LegacySession._cache()
    with mock.patch.object(cache, "atouch", wraps=cache.atouch) as touch:
        assert await LegacySession.load(session.id, server="s", timeout=123) == session
    touch.assert_awaited_once_with("django_mcp:session:" + session.id, 123)


@pytest.mark.usefixtures("patient_lock")
async def test_concurrent_changes_keep_every_subscription() -> None:
    session = await LegacySession.create(server="s", version=LEGACY, capabilities={}, client_info=None)
    copies = [await LegacySession.load(session.id, server="s") for _ in range(31)]
    assert all(copy is not None for copy in copies)

    await asyncio.gather(
        copies[30].set_log_level("debug"),  # type: ignore[union-attr]
        *(copy.subscribe(f"test://r/{n}") for n, copy in enumerate(copies[:30])),  # type: ignore[union-attr]
    )

    stored = await LegacySession.load(session.id, server="s")
    assert stored is not None
    assert sorted(stored.subscriptions) == sorted(f"test://r/{n}" for n in range(30))
    assert stored.log_level == "debug"


async def test_a_change_never_stores_a_deleted_session_again() -> None:
    session = await LegacySession.create(server="s", version=LEGACY, capabilities={}, client_info=None)
    loaded = await LegacySession.load(session.id, server="s")
    assert loaded is not None

    await session.delete()
    await loaded.subscribe("test://r")
    await loaded.set_log_level("debug")
    await loaded.unsubscribe("test://r")
    await loaded.save()

    assert await LegacySession.load(session.id, server="s") is None


async def test_delete_racing_subscribe_never_resurrects_the_session() -> None:
    for trial in range(100):
        session = await LegacySession.create(server="s", version=LEGACY, capabilities={}, client_info=None)

        async def subscribe(session_id: str = session.id, pause: float = (trial % 3) / 1000) -> None:
            loaded = await LegacySession.load(session_id, server="s")
            if loaded is not None:
                await asyncio.sleep(pause)
                await loaded.subscribe("test://r")

        async def delete(ended: LegacySession = session, pause: float = (trial % 5) / 2000) -> None:
            await asyncio.sleep(pause)
            await ended.delete()

        await asyncio.gather(subscribe(), delete())
        assert await LegacySession.load(session.id, server="s") is None, f"trial {trial}"
