"""The Tasks framework job (django_mcp/tasks/framework.py): one run, again at once when it asks to."""

from __future__ import annotations

from typing import Any

import pytest

import django_mcp.tasks.framework as jobs


@pytest.mark.parametrize(("answers", "enqueued"), [([False], []), ([True], ["task-1"])])
def test_the_job_enqueues_a_run_again_only_when_the_run_asks(
    monkeypatch: Any, answers: list[bool], enqueued: list[str]
) -> None:
    runs: list[str] = []
    queued: list[str] = []

    async def run(task_id: str) -> bool:
        runs.append(task_id)
        return answers.pop(0)

    async def enqueue(task_id: str) -> None:
        queued.append(task_id)

    monkeypatch.setattr(jobs, "run", run)
    monkeypatch.setattr(jobs, "enqueue", enqueue)

    jobs._run("task-1")

    assert (runs, queued) == (["task-1"], enqueued)
