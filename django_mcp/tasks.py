"""The Tasks framework job that runs tool calls turned into MCP tasks.

``run_tool_task`` is a Django Tasks ``Task`` (Django 6's ``django.tasks``,
else the ``django-tasks`` backport: ``pip install
'django-mcp-toolkit[tasks]'``) bound to the ``MCP_TASK_BACKEND`` alias of
``TASKS``. ``enqueue()`` puts a run on it: the dispatcher calls it when it
answers a ``tools/call`` with a task and when ``tasks/update`` has delivered
every answer, and the job itself when its run must go on at once. The job
runs ``django_mcp.dispatcher.background.run`` wherever the backend runs
jobs, so any backend works: an immediate one runs the tool inside the
request, django-tasks-db's ``manage.py db_worker`` in a worker process.

The ``Task`` object is built on first access (not at import), so the
setting is read when it is needed and this module imports without the
Tasks framework installed; using ``run_tool_task`` without it raises
``ImproperlyConfigured``.
"""

from __future__ import annotations

import functools
import importlib
import logging
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from django.core.exceptions import ImproperlyConfigured

from django_mcp.conf import get_settings
from django_mcp.dispatcher import task_store
from django_mcp.exceptions import InternalError

__all__ = ["enqueue", "run_tool_task", "task_backend", "task_decorator"]

logger = logging.getLogger(__name__)

#: The job (a Tasks framework ``Task``), built by ``__getattr__`` on first use.
run_tool_task: Any


def _run(task_id: str) -> None:
    # Imported when a job runs: the background run sits above the dispatcher
    # package, which imports this module to enqueue.
    from django_mcp.dispatcher.background import run

    if async_to_sync(run)(task_id):
        async_to_sync(enqueue)(task_id)


async def enqueue(task_id: str) -> None:
    """Enqueue a run of task ``task_id`` on the ``MCP_TASK_BACKEND`` backend.

    A failure to enqueue fails the task and raises ``InternalError``.
    """
    from django_mcp.models import McpTask

    try:
        result = await _task_for(get_settings().task_backend).aenqueue(task_id)
    except Exception as exc:
        logger.exception(
            "Could not enqueue task %s on Tasks backend %r", task_id, get_settings().task_backend
        )
        error = InternalError("The task could not be started")
        await sync_to_async(task_store.finish)(task_id, error=task_store.error_object(error), running=False)
        raise error from exc
    await McpTask.objects.filter(pk=task_id).aupdate(job_id=str(result.id))


# Workers find a job by the dotted path of its function: make that path name
# the module attribute below, which resolves to the Task object.
_run.__name__ = _run.__qualname__ = "run_tool_task"
_run.__doc__ = "Run the tool call of MCP task ``task_id`` and store its outcome."


def _framework() -> Any:
    for name in ("django.tasks", "django_tasks"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImproperlyConfigured(
        "MCP tasks need Django's Tasks framework: use Django 6, or install "
        "'django-mcp-toolkit[tasks]' (the django-tasks backport)"
    )


def task_decorator() -> Any:
    """Return the Tasks framework's ``task`` decorator (Django 6, else the backport).

    Raises:
        ImproperlyConfigured: neither ``django.tasks`` nor ``django_tasks``
            can be imported.
    """
    return _framework().task


def task_backend() -> Any:
    """Return the Tasks framework backend ``MCP_TASK_BACKEND`` names.

    Raises:
        ImproperlyConfigured: the framework is missing, or the alias is not
            in ``TASKS`` or its backend cannot be created.
    """
    framework = _framework()
    alias = get_settings().task_backend
    try:
        return framework.task_backends[alias]
    except Exception as exc:
        raise ImproperlyConfigured(f"TASKS alias {alias!r}: {exc}") from None


@functools.cache
def _task_for(alias: str) -> Any:
    return task_decorator()(backend=alias)(_run)


def __getattr__(name: str) -> Any:
    if name == "run_tool_task":
        return _task_for(get_settings().task_backend)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
