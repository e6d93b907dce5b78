"""``manage.py mcp_prune_tasks``: settle lapsed leases, delete expired tasks and old jobs."""

from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from django_mcp.models import McpTask

pytestmark = pytest.mark.django_db(transaction=True)


def _task(task_id: str, **fields: Any) -> McpTask:
    now = timezone.now()
    values: dict[str, Any] = {
        "server": "s",
        "tool": "t",
        "owner": "anonymous:",
        "created_at": now,
        "updated_at": now,
    }
    return McpTask.objects.create(id=task_id, **{**values, **fields})


def _prune(*args: str) -> str:
    out = io.StringIO()
    call_command("mcp_prune_tasks", *args, stdout=out)
    return out.getvalue().strip()


def test_the_command_empties_expired_rows_and_keeps_the_others(settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "default"
    past = timezone.now() - datetime.timedelta(seconds=1)
    _task("old-1", status="completed", expires_at=past)
    _task("old-2", status="cancelled", expires_at=past)
    _task("kept", status="completed", expires_at=timezone.now() + datetime.timedelta(hours=1))
    _task("queued")

    said = _prune()

    assert set(McpTask.objects.values_list("pk", flat=True)) == {"kept", "queued"}
    assert said == (
        "Settled 0 task(s) whose worker stopped; deleted 2 expired task(s) "
        "and no Tasks backend jobs to prune."
    )


def test_the_command_fails_tasks_whose_lease_lapsed(settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "default"
    past = timezone.now() - datetime.timedelta(seconds=1)
    _task("lost", running=True, runs=1, lease_expires_at=past)
    _task("alive", running=True, runs=1, lease_expires_at=timezone.now() + datetime.timedelta(seconds=30))

    said = _prune()

    statuses = dict(McpTask.objects.values_list("pk", "status"))
    assert statuses == {"lost": "failed", "alive": "working"}
    assert said.startswith("Settled 1 task(s)")


def test_a_dry_run_changes_nothing() -> None:
    past = timezone.now() - datetime.timedelta(seconds=1)
    _task("old", status="completed", expires_at=past)
    _task("lost", running=True, runs=1, lease_expires_at=past)

    said = _prune("--dry-run")

    assert McpTask.objects.count() == 2
    assert said.startswith("Would settle 1 task(s) whose worker stopped; would delete 1 expired task(s)")


def test_with_the_in_process_pool_a_task_that_may_be_retried_is_left_to_a_reader(monkeypatch: Any) -> None:
    import dataclasses

    import django_mcp.tasks.upkeep
    from django_mcp.conf import get_settings

    # As with no TASKS setting: the in-process pool, which a command must not queue into.
    pool = dataclasses.replace(get_settings(), task_backend=None)
    monkeypatch.setattr(django_mcp.tasks.upkeep, "get_settings", lambda: pool)
    past = timezone.now() - datetime.timedelta(seconds=1)
    _task("retry-me", running=True, runs=1, lease_expires_at=past, retries_left=1)

    _prune()

    assert McpTask.objects.get(pk="retry-me").status == "working"


def test_a_negative_job_age_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="--job-age"):
        _prune("--job-age", "-1")
