"""The Tasks framework and the backend tasks run on: django_mcp/tasks/backend.py."""

from __future__ import annotations

import datetime
import importlib
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django.utils.module_loading import import_string

from django_mcp.tasks import backend


def test_the_job_path_names_the_job_a_worker_runs() -> None:
    job = import_string(backend.JOB_PATH)

    assert job.module_path == backend.JOB_PATH


def test_without_the_framework_tasks_are_improperly_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(importlib, "import_module", missing)

    with pytest.raises(ImproperlyConfigured, match="Tasks framework"):
        backend.task_decorator()


def test_an_unknown_alias_is_improperly_configured(settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "nowhere"

    with pytest.raises(ImproperlyConfigured, match="'nowhere'"):
        backend.task_backend()


async def test_no_job_id_has_no_status() -> None:
    assert await backend.job_status("") is None


def test_only_django_tasks_db_jobs_are_pruned() -> None:
    # The test project's default backend is the immediate one: it keeps no jobs.
    assert backend.prune_jobs(finished_before=timezone.now() - datetime.timedelta(minutes=1)) is None
