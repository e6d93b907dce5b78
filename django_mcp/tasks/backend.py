"""Django's Tasks framework and the backend MCP tasks run on: found, asked, pruned.

The framework is Django 6's ``django.tasks``, else the ``django-tasks``
backport (``pip install 'django-mcp-toolkit[tasks]'``), imported only when
needed, so django_mcp imports (and runs tasks in its in-process pool,
``pool.py``) without it. The backend is the ``TASKS`` alias tasks run on
(``MCP_TASK_BACKEND``; ``"default"`` when the project sets ``TASKS``; None:
the in-process pool).

``job_status()`` asks the backend how a run's job is doing (for a queued
task whose job failed or vanished), ``prune_jobs()`` deletes the finished
jobs django-tasks-db keeps.
"""

from __future__ import annotations

import datetime
import importlib
import logging
from typing import Any, Final

from django.core.exceptions import ImproperlyConfigured

from django_mcp.conf import get_settings

__all__ = [
    "JOB_PATH",
    "MISSING",
    "framework",
    "framework_module",
    "job_status",
    "prune_jobs",
    "task_backend",
    "task_decorator",
]

JOB_PATH: Final = "django_mcp.tasks.framework.run_tool_task"
"""The dotted path workers find the job by (``framework.run_tool_task``)."""

MISSING: Final = "MISSING"
"""What ``job_status`` answers for a job the backend does not know."""

logger = logging.getLogger(__name__)


def framework() -> Any:
    """Return the Tasks framework's package (``django.tasks``, else ``django_tasks``).

    Raises:
        ImproperlyConfigured: neither can be imported.
    """
    for name in ("django.tasks", "django_tasks"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImproperlyConfigured(
        "MCP tasks need Django's Tasks framework: use Django 6, or install "
        "'django-mcp-toolkit[tasks]' (the django-tasks backport)"
    )


def framework_module(name: str) -> Any:
    """Return the framework's submodule ``name`` (``"base"``, ``"backends.base"``, ...)."""
    return importlib.import_module(f"{framework().__name__}.{name}")


def task_decorator() -> Any:
    """Return the Tasks framework's ``task`` decorator (Django 6, else the backport).

    Raises:
        ImproperlyConfigured: neither ``django.tasks`` nor ``django_tasks``
            can be imported.
    """
    return framework().task


def task_backend() -> Any:
    """Return the Tasks framework backend tasks run on; None for the in-process pool.

    Raises:
        ImproperlyConfigured: the framework is missing, or the alias is not
            in ``TASKS`` or its backend cannot be created.
    """
    alias = get_settings().task_backend
    if alias is None:
        return None
    tasks = framework()
    try:
        return tasks.task_backends[alias]
    except Exception as exc:
        raise ImproperlyConfigured(f"TASKS alias {alias!r}: {exc}") from None


async def job_status(job_id: str) -> str | None:
    """Return the status of job ``job_id`` (``"READY"``, ``"FAILED"``, ... or ``MISSING``).

    None when that cannot be known: the in-process pool, a backend that
    keeps no results readable from other processes, or a failing lookup.
    """
    alias = get_settings().task_backend
    if alias is None or not job_id:
        return None
    try:
        backend = task_backend()
        if backend is None or not backend.supports_get_result:
            return None
        result = await backend.aget_result(job_id)
    except Exception as exc:
        if type(exc).__name__ == "TaskResultDoesNotExist":
            return MISSING
        logger.warning("Could not read job %s of Tasks backend %r", job_id, alias, exc_info=True)
        return None
    status = result.status
    return str(getattr(status, "name", status))


def prune_jobs(*, finished_before: datetime.datetime, dry_run: bool = False) -> int | None:
    """Delete MCP task jobs that django-tasks-db finished before ``finished_before``.

    Return how many (would be) deleted, or None when the backend keeps no
    jobs this function knows how to delete (every other backend).
    """
    backend = task_backend()
    if backend is None or type(backend).__module__.split(".")[0] != "django_tasks_db":
        return None
    # An optional package, present only with its backend (checked above).
    from django_tasks_db.models import DBTaskResult

    jobs = DBTaskResult.objects.finished().filter(
        backend_name=backend.alias, task_path=JOB_PATH, finished_at__lt=finished_before
    )
    if dry_run:
        return int(jobs.count())
    deleted, _ = jobs.delete()
    return int(deleted)
