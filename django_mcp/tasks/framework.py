"""The job that runs tool calls turned into MCP tasks, and where it runs.

``run_tool_task`` is a Django Tasks ``Task`` (``backend.py`` finds the
framework) bound to the ``TASKS`` alias tasks run on. ``enqueue()`` puts a
run on it: a ``tools/call`` answered with a task, a ``tasks/update`` that
has delivered every answer and a task whose worker stopped and gets a retry
call it, and the job itself when its run must go on at once. The job runs
``run.run`` wherever the backend runs jobs, so any backend works: an
immediate one runs the tool inside the request, django-tasks-db's
``manage.py db_worker`` in a worker process (after ``django.setup()``, which
imports this module by the job's dotted path, ``backend.JOB_PATH``). With
no alias (no ``TASKS`` in the project, no ``MCP_TASK_BACKEND``) the run goes
to this process's thread pool (``pool.py``) and needs no Tasks framework at
all.

The ``Task`` object is built on first access (not at import), so the
setting is read when it is needed and this module imports without the
Tasks framework installed; using ``run_tool_task`` without it raises
``ImproperlyConfigured``. ``prepare()``, called when Django is ready in
every process (web and worker alike), builds it for the configured alias:
some backends learn of a job only when its ``Task`` is made
(django-tasks-celery registers it with Celery then, and a Celery worker
discards a job it was never told of).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.core.exceptions import ImproperlyConfigured

from django_mcp._sync import run_sync
from django_mcp.conf import get_settings
from django_mcp.exceptions import InternalError
from django_mcp.models import McpTask
from django_mcp.tasks import store
from django_mcp.tasks.backend import task_decorator
from django_mcp.tasks.pool import get_pool
from django_mcp.tasks.run import run

__all__ = ["enqueue", "prepare", "run_tool_task"]

logger = logging.getLogger(__name__)

#: The job (a Tasks framework ``Task``), built by ``__getattr__`` on first use.
run_tool_task: Any


def _run(task_id: str) -> None:
    if async_to_sync(run)(task_id):
        async_to_sync(enqueue)(task_id)


async def enqueue(task_id: str, *, caller: str | None = None) -> None:
    """Enqueue a run of task ``task_id`` where tasks run (see the module docstring).

    ``caller`` is the task's ``owner``, whose turn the in-process pool runs
    it in (read from the task when not given). A failure to enqueue fails
    the task and raises ``InternalError``.
    """
    alias = get_settings().task_backend
    try:
        if alias is None:
            if caller is None:
                caller = await McpTask.objects.filter(pk=task_id).values_list("owner", flat=True).afirst()
            # Stored first: the pool's thread may start the run at once.
            await McpTask.objects.filter(pk=task_id).aupdate(job_id=f"pool:{store.holder()}")
            get_pool().submit(functools.partial(_run, task_id), task_id=task_id, caller=caller or "")
            return
        job_id = str((await _task_for(alias).aenqueue(task_id)).id)
    except Exception as exc:
        logger.exception("Could not enqueue task %s on Tasks backend %r", task_id, alias)
        error = InternalError("The task could not be started")
        ttl_ms = await McpTask.objects.filter(pk=task_id).values_list("ttl_ms", flat=True).afirst()
        await run_sync(store.finish, task_id, run=None, ttl_ms=ttl_ms, error=store.error_object(error))
        raise error from exc
    await McpTask.objects.filter(pk=task_id).aupdate(job_id=job_id)


# Workers find a job by the dotted path of its function: make that path name
# the module attribute below, which resolves to the Task object.
_run.__name__ = _run.__qualname__ = "run_tool_task"
_run.__doc__ = "Run the tool call of MCP task ``task_id`` and store its outcome."


@functools.cache
def _task_for(alias: str) -> Any:
    return task_decorator()(backend=alias)(_run)


def prepare() -> None:
    """Build the job for the configured ``TASKS`` alias now, so its backend knows it in this process.

    Nothing to build for the in-process pool. A framework or backend that
    cannot build it is left to the system checks (E023, E024), which say why.
    """
    alias = get_settings().task_backend
    if alias is None:
        return
    try:
        _task_for(alias)
    except ImproperlyConfigured:
        logger.debug("The MCP task job is not built: no usable Tasks framework", exc_info=True)
    except Exception:
        logger.warning("The MCP task job could not be built on Tasks backend %r", alias, exc_info=True)


def __getattr__(name: str) -> Any:
    if name == "run_tool_task":
        return _task_for(get_settings().task_backend or "default")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
