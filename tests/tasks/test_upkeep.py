"""Tasks whose worker is gone, found by whoever reads them: django_mcp/tasks/upkeep.py."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from django_mcp.dispatcher import Dispatcher
from django_mcp.models import McpTask
from django_mcp.protocol import jsonrpc
from django_mcp.tasks.upkeep import JOB_UNCLAIMED, sweep
from tests.tasks.task_server import (
    ask,
    get,
    start,
)

pytestmark = pytest.mark.django_db(transaction=True)


# ---------------------------------------------------------------- leases


async def _lapse(task_id: str) -> None:
    past = timezone.now() - datetime.timedelta(seconds=1)
    await McpTask.objects.filter(pk=task_id).aupdate(
        running=True, runs=1, lease_expires_at=past, lease_holder="gone:1"
    )


async def test_a_task_whose_lease_lapsed_fails_when_read(dispatcher: Dispatcher, stored_only: None) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]
    await _lapse(task_id)

    polled = await get(dispatcher, task_id)

    assert polled["status"] == "failed"
    assert polled["error"] == {
        "code": jsonrpc.INTERNAL_ERROR,
        "message": "The worker running this task stopped",
    }
    assert polled["statusMessage"] == "The worker running this task stopped"
    record = await McpTask.objects.aget(pk=task_id)
    assert (record.running, record.lease_expires_at, record.expires_at is not None) == (False, None, True)


async def test_a_cancel_of_a_task_whose_lease_lapsed_ends_it_cancelled(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]
    await _lapse(task_id)

    await ask(dispatcher, "tasks/cancel", {"taskId": task_id})

    assert (await get(dispatcher, task_id))["status"] == "cancelled"


async def test_a_task_safe_to_retry_runs_again_when_its_lease_lapsed(
    dispatcher: Dispatcher, stored_only: None, settings: Any
) -> None:
    task_id = (await start(dispatcher, "retry", {"text": "hi"}))["taskId"]
    await _lapse(task_id)
    settings.MCP_TASK_BACKEND = "default"  # the retry runs at once

    retried = await get(dispatcher, task_id)
    await _lapse(task_id)  # and its worker dies too: no retry is left
    again = await get(dispatcher, task_id)

    assert retried["status"] == "completed"
    assert retried["result"]["content"] == [{"type": "text", "text": "again hi"}]
    assert again["status"] == "completed"  # a finished task has no lease to lapse
    assert (await McpTask.objects.aget(pk=task_id)).retries_left == 0


async def test_a_second_lapse_of_a_retried_task_fails_it(dispatcher: Dispatcher, stored_only: None) -> None:
    task_id = (await start(dispatcher, "retry", {"text": "hi"}))["taskId"]
    await _lapse(task_id)
    first = await get(dispatcher, task_id)  # queued again (on the stored backend)
    await _lapse(task_id)

    second = await get(dispatcher, task_id)

    assert (first["status"], first["statusMessage"]) == (
        "working",
        "queued again: the worker running it stopped",
    )
    assert second["status"] == "failed"


async def test_a_queued_task_whose_job_failed_fails(
    dispatcher: Dispatcher, stored_only: None, monkeypatch: Any
) -> None:
    import django_mcp.tasks.upkeep

    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]
    quiet = timezone.now() - datetime.timedelta(minutes=5)
    await McpTask.objects.filter(pk=task_id).aupdate(updated_at=quiet)

    async def failed(job_id: str) -> str:
        return "FAILED"

    monkeypatch.setattr(django_mcp.tasks.upkeep, "job_status", failed)
    polled = await get(dispatcher, task_id)

    assert polled["status"] == "failed"
    assert polled["error"]["message"] == "The Tasks backend failed this task's job before it ran"


# ---------------------------------------------------------------- unclaimed jobs


async def _ready(job_id: str) -> str:
    # What a backend says of a job no worker took: django-tasks-celery reports
    # a job its workers discarded as pending forever.
    return "READY"


async def _queued_since(dispatcher: Dispatcher, *, seconds: float) -> str:
    task_id = str((await start(dispatcher, "echo", {"text": "hi"}))["taskId"])
    since = timezone.now() - datetime.timedelta(seconds=seconds)
    await McpTask.objects.filter(pk=task_id).aupdate(updated_at=since)
    return task_id


@override_settings(MCP_TASK_CLAIM_TIMEOUT=600)
async def test_a_queued_job_no_worker_started_within_the_claim_timeout_fails(
    dispatcher: Dispatcher, stored_only: None, monkeypatch: Any
) -> None:
    import django_mcp.tasks.upkeep

    monkeypatch.setattr(django_mcp.tasks.upkeep, "job_status", _ready)
    waiting = await _queued_since(dispatcher, seconds=300)
    forgotten = await _queued_since(dispatcher, seconds=601)

    assert (await get(dispatcher, waiting))["status"] == "working"
    polled = await get(dispatcher, forgotten)
    assert polled["status"] == "failed"
    assert polled["statusMessage"] == JOB_UNCLAIMED
    assert polled["error"]["message"] == JOB_UNCLAIMED


@override_settings(MCP_TASK_CLAIM_TIMEOUT=None)
async def test_with_no_claim_timeout_a_queued_job_waits_forever(
    dispatcher: Dispatcher, stored_only: None, monkeypatch: Any
) -> None:
    import django_mcp.tasks.upkeep

    monkeypatch.setattr(django_mcp.tasks.upkeep, "job_status", _ready)
    task_id = await _queued_since(dispatcher, seconds=86400)

    assert (await get(dispatcher, task_id))["status"] == "working"


@override_settings(MCP_TASK_CLAIM_TIMEOUT=60)
async def test_sweep_fails_the_unclaimed_jobs_nobody_reads(
    dispatcher: Dispatcher, stored_only: None, monkeypatch: Any
) -> None:
    import django_mcp.tasks.upkeep

    monkeypatch.setattr(django_mcp.tasks.upkeep, "job_status", _ready)
    forgotten = await _queued_since(dispatcher, seconds=120)
    waiting = await _queued_since(dispatcher, seconds=10)

    swept = await sweep()

    assert swept.settled == 1
    assert await McpTask.objects.filter(pk=forgotten).values_list("status", flat=True).aget() == "failed"
    assert await McpTask.objects.filter(pk=waiting).values_list("status", flat=True).aget() == "working"
