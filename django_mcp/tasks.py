"""The job that runs tool calls turned into MCP tasks, and where it runs.

``run_tool_task`` is a Django Tasks ``Task`` (Django 6's ``django.tasks``,
else the ``django-tasks`` backport: ``pip install
'django-mcp-toolkit[tasks]'``) bound to the ``TASKS`` alias tasks run on
(``MCP_TASK_BACKEND``; ``"default"`` when the project sets ``TASKS``).
``enqueue()`` puts a run on it: the dispatcher calls it when it answers a
``tools/call`` with a task, when ``tasks/update`` has delivered every
answer and when a task whose worker stopped gets a retry, and the job
itself when its run must go on at once. The job runs
``django_mcp.dispatcher.background.run`` wherever the backend runs jobs, so
any backend works: an immediate one runs the tool inside the request,
django-tasks-db's ``manage.py db_worker`` in a worker process. With no
alias (no ``TASKS`` in the project, no ``MCP_TASK_BACKEND``) the run goes
to this process's thread pool (``django_mcp.task_pool``) and needs no
Tasks framework at all.

``job_status()`` asks the backend how a run's job is doing (for a queued
task whose job failed or vanished), ``prune_jobs()`` deletes the finished
jobs django-tasks-db keeps.

The ``Task`` object is built on first access (not at import), so the
setting is read when it is needed and this module imports without the
Tasks framework installed; using ``run_tool_task`` without it raises
``ImproperlyConfigured``.
"""

from __future__ import annotations

import datetime
import functools
import logging
from typing import Any, Final

from asgiref.sync import async_to_sync
from django.core.exceptions import ImproperlyConfigured

from django_mcp._sync import run_sync
from django_mcp._tasks_framework import framework
from django_mcp.conf import get_settings
from django_mcp.dispatcher import task_store
from django_mcp.exceptions import InternalError
from django_mcp.task_pool import get_pool

__all__ = [
    "JOB_PATH",
    "MISSING",
    "enqueue",
    "job_status",
    "prune_jobs",
    "run_tool_task",
    "task_backend",
    "task_decorator",
]

JOB_PATH: Final = "django_mcp.tasks.run_tool_task"
"""The dotted path workers find the job by."""

MISSING: Final = "MISSING"
"""What ``job_status`` answers for a job the backend does not know."""

logger = logging.getLogger(__name__)

#: The job (a Tasks framework ``Task``), built by ``__getattr__`` on first use.
run_tool_task: Any


def _run(task_id: str) -> None:
    # Imported when a job runs: the background run sits above the dispatcher
    # package, which imports this module to enqueue.
    from django_mcp.dispatcher.background import run

    if async_to_sync(run)(task_id):
        async_to_sync(enqueue)(task_id)


async def enqueue(task_id: str, *, caller: str | None = None) -> None:
    """Enqueue a run of task ``task_id`` where tasks run (see the module docstring).

    ``caller`` is the task's ``owner``, whose turn the in-process pool runs
    it in (read from the task when not given). A failure to enqueue fails
    the task and raises ``InternalError``.
    """
    from django_mcp.models import McpTask

    alias = get_settings().task_backend
    try:
        if alias is None:
            if caller is None:
                caller = await McpTask.objects.filter(pk=task_id).values_list("owner", flat=True).afirst()
            # Stored first: the pool's thread may start the run at once.
            await McpTask.objects.filter(pk=task_id).aupdate(job_id=f"pool:{task_store.holder()}")
            get_pool().submit(functools.partial(_run, task_id), task_id=task_id, caller=caller or "")
            return
        job_id = str((await _task_for(alias).aenqueue(task_id)).id)
    except Exception as exc:
        logger.exception("Could not enqueue task %s on Tasks backend %r", task_id, alias)
        error = InternalError("The task could not be started")
        ttl_ms = await McpTask.objects.filter(pk=task_id).values_list("ttl_ms", flat=True).afirst()
        await run_sync(
            task_store.finish, task_id, run=None, ttl_ms=ttl_ms, error=task_store.error_object(error)
        )
        raise error from exc
    await McpTask.objects.filter(pk=task_id).aupdate(job_id=job_id)


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
    from django_tasks_db.models import DBTaskResult

    jobs = DBTaskResult.objects.finished().filter(
        backend_name=backend.alias, task_path=JOB_PATH, finished_at__lt=finished_before
    )
    if dry_run:
        return int(jobs.count())
    deleted, _ = jobs.delete()
    return int(deleted)


# Workers find a job by the dotted path of its function: make that path name
# the module attribute below, which resolves to the Task object.
_run.__name__ = _run.__qualname__ = "run_tool_task"
_run.__doc__ = "Run the tool call of MCP task ``task_id`` and store its outcome."


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


@functools.cache
def _task_for(alias: str) -> Any:
    return task_decorator()(backend=alias)(_run)


def __getattr__(name: str) -> Any:
    if name == "run_tool_task":
        return _task_for(get_settings().task_backend or "default")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
