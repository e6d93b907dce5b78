"""Task lifetimes, as the store keeps them: django_mcp/tasks/store.py."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from django_mcp.dispatcher import Dispatcher
from django_mcp.models import McpTask
from tests.tasks.task_server import (
    answer,
    ask,
    get,
    start,
)

pytestmark = pytest.mark.django_db(transaction=True)


# ------------------------------------------------------------ lifetimes


async def test_a_task_says_queued_until_a_worker_starts_it(dispatcher: Dispatcher, stored_only: None) -> None:
    from django_mcp.tasks.store import claim

    created = await start(dispatcher, "echo", {"text": "hi"})
    await sync_to_async(claim)(created["taskId"], 30)

    assert created["statusMessage"] == "queued"
    assert (await get(dispatcher, created["taskId"]))["statusMessage"] == "running"


@override_settings(MCP_TASK_TTL=0.05)
async def test_a_queued_task_never_expires_and_its_ttl_grows(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})
    await asyncio.sleep(0.2)  # four TTLs in the queue

    later = await get(dispatcher, created["taskId"])

    assert later["status"] == "working"
    assert later["ttlMs"] > created["ttlMs"] >= 50
    assert (await McpTask.objects.aget(pk=created["taskId"])).expires_at is None


@override_settings(MCP_TASK_TTL=600)
async def test_a_finished_task_is_kept_the_ttl_from_its_end(dispatcher: Dispatcher) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})
    record = await McpTask.objects.aget(pk=created["taskId"])

    polled = await get(dispatcher, created["taskId"])

    assert record.expires_at == record.updated_at + datetime.timedelta(seconds=600)
    ended_after = (record.updated_at - record.created_at).total_seconds() * 1000
    assert polled["ttlMs"] == round(ended_after + 600_000)


async def test_an_answered_task_is_queued_again_and_never_expires_while_queued(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    from django_mcp.tasks import run as background

    task_id = (await start(dispatcher, "ask"))["taskId"]
    await background.run(task_id)
    waiting = await McpTask.objects.aget(pk=task_id)
    await ask(
        dispatcher,
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"first": answer("a"), "second": answer("b")}},
    )
    resumed = await McpTask.objects.aget(pk=task_id)

    assert (waiting.status, waiting.expires_at is not None) == ("input_required", True)
    assert (resumed.status, resumed.status_message, resumed.expires_at) == ("working", "queued", None)
