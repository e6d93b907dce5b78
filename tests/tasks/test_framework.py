"""The Tasks framework job (django_mcp/tasks/framework.py): one run, again at once when it asks to."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps
from django.test import override_settings
from django_tasks.backends.dummy import DummyBackend

import django_mcp.tasks.framework as jobs
from tests.tasks.task_server import IMMEDIATE


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


class RecordingBackend(DummyBackend):  # type: ignore[misc]
    """A backend that, like django-tasks-celery's, learns of a job when its Task is made."""

    validated: list[str] = []

    def validate_task(self, task: Any) -> None:
        super().validate_task(task)
        RecordingBackend.validated.append(task.module_path)


@pytest.fixture
def fresh_job() -> Iterator[None]:
    jobs._task_for.cache_clear()
    RecordingBackend.validated.clear()
    yield
    jobs._task_for.cache_clear()


@override_settings(
    TASKS={"default": {"BACKEND": IMMEDIATE}, "engine": {"BACKEND": f"{__name__}.RecordingBackend"}},
    MCP_TASK_BACKEND="engine",
)
def test_django_ready_builds_the_job_so_its_backend_knows_it_in_every_process(
    fresh_job: None, monkeypatch: Any
) -> None:
    import django_mcp.registry

    monkeypatch.setattr(django_mcp.registry, "autodiscover", lambda: None)

    apps.get_app_config("django_mcp").ready()  # what django.setup() runs in a worker too

    assert RecordingBackend.validated == ["django_mcp.tasks.framework.run_tool_task"]
    assert jobs.run_tool_task.backend == "engine"
    assert RecordingBackend.validated == ["django_mcp.tasks.framework.run_tool_task"]  # built once


@override_settings(TASKS={"default": {"BACKEND": f"{__name__}.RecordingBackend"}}, MCP_TASK_BACKEND=None)
def test_prepare_builds_the_job_on_the_default_alias_when_tasks_is_set(fresh_job: None) -> None:
    jobs.prepare()

    assert RecordingBackend.validated == ["django_mcp.tasks.framework.run_tool_task"]


def test_prepare_builds_nothing_for_the_in_process_pool(fresh_job: None, monkeypatch: Any) -> None:
    # No TASKS of the project's own and no MCP_TASK_BACKEND: the pool (task_backend None).
    monkeypatch.setattr(jobs, "get_settings", lambda: SimpleNamespace(task_backend=None))

    jobs.prepare()

    assert jobs._task_for.cache_info().currsize == 0


@override_settings(TASKS={"default": {"BACKEND": "tests.nowhere.Backend"}}, MCP_TASK_BACKEND="default")
def test_prepare_leaves_an_unusable_backend_to_the_checks(fresh_job: None) -> None:
    jobs.prepare()  # E024 reports it; starting Django does not fail
