"""The stored side of MCP tasks: every write to ``McpTask`` rows.

The request path (``methods.py``: ``tasks/update``, ``tasks/cancel``; a
lapsed lease met by a reader, ``upkeep.py``), a task's run (``run.py``: ``claim``,
``renew``, ``report``, ``finish``, ``park``), the in-process pool (``hold``)
and ``mcp_prune_tasks`` change task rows only through these functions, each
one conditional UPDATE or one row locked with ``select_for_update``, so a
worker and a request acting on the same task at the same moment never lose
a change. A run's writes are conditional on its ``run`` number (the claim
count): a worker whose lease lapsed, and whose task was failed or run
again, changes nothing any more. Every write that changes what ``tasks/get``
shows announces the task (``events.task_changed``), for the
``notifications/tasks`` of ``subscriptions/listen`` streams; every write
that gives a task a new status also tells its observers
(``mcp_task_status_changed``, the run's span).

Lifetimes (SEP-2663 "Tasks": ``ttlMs`` may change over a task's life): a
task gets its ``expires_at`` (``ttl_ms`` after now) when its work ends or
waits for input, and loses it when the work starts again; a queued or
running task never expires. ``TaskHandle`` is the ``request.task`` a running
handler sees.
"""

from __future__ import annotations

import datetime
import logging
import os
import socket
from collections.abc import Iterable, Mapping
from typing import Any, Final

import msgspec
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from django_mcp.events import task_changed
from django_mcp.exceptions import InternalError, InvalidParams, McpError, TaskCancelled
from django_mcp.models import McpTask
from django_mcp.observability._hooks import task_status_changed
from django_mcp.observability._state import OBSERVATION
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.jsonrpc import ErrorObject
from django_mcp.protocol.results import InputRequest
from django_mcp.signals import mcp_task_status_changed

__all__ = [
    "LOST_WORKER",
    "QUEUED",
    "RUNNING",
    "TaskHandle",
    "answer",
    "cancel",
    "cancel_requested",
    "claim",
    "error_object",
    "expire",
    "fail_job",
    "finish",
    "hold",
    "holder",
    "lapse",
    "park",
    "renew",
    "report",
]

logger = logging.getLogger(__name__)

QUEUED: Final = "queued"
"""The status message of a working task no worker has started yet."""

RUNNING: Final = "running"
"""The status message a worker sets when it starts a queued task."""

LOST_WORKER: Final = "The worker running this task stopped"
"""The status message (and error) of a task whose lease lapsed."""


def holder() -> str:
    """Return who this process's leases are held by: ``host:pid``."""
    # Read each time: a forked worker (uvicorn --workers, gunicorn) has another pid.
    return f"{socket.gethostname()}:{os.getpid()}"


def _expiry(ttl_ms: int | None, now: datetime.datetime) -> datetime.datetime | None:
    return None if ttl_ms is None else now + datetime.timedelta(milliseconds=ttl_ms)


def _announce(
    task_id: str,
    status: str | None = None,
    *,
    error: Mapping[str, Any] | None = None,
    tool_error: bool = False,
) -> None:
    """Announce a change of the task; with ``status``, tell its observers the new status."""
    try:
        task_changed(task_id)
    except Exception:  # a notification is best effort; the write stands
        logger.exception("Could not announce a change of MCP task %s", task_id)
    if status is not None and (OBSERVATION.telemetry is not None or mcp_task_status_changed.receivers):
        code = error.get("code") if error is not None else None
        task_status_changed(
            task_id, str(status), error_code=code if isinstance(code, int) else None, tool_error=tool_error
        )


class TaskHandle:
    """``request.task`` of a tool call running as a task.

    ``cancelled`` turns True once the client has cancelled the task (the
    run checks every ``run.CANCEL_CHECK_INTERVAL`` seconds), or once
    the run has lost its lease; ``check_cancelled()`` then raises
    ``TaskCancelled``. Assigning ``status_message`` publishes it as the
    task's ``statusMessage`` (written at the same interval, and when the run
    ends). Neither touches the database from the handler, so both work in
    sync and async handlers.
    """

    __slots__ = ("_cancelled", "_message", "_unsent", "id", "run", "ttl_ms")

    def __init__(self, task_id: str, *, run: int = 0, ttl_ms: int | None = None) -> None:
        #: The task id the client polls with.
        self.id = task_id
        #: Which claim of the task this run is (its writes need it).
        self.run = run
        #: Milliseconds the task is kept once the run ends it.
        self.ttl_ms = ttl_ms
        self._cancelled = False
        self._message: str | None = None
        self._unsent = False

    def __repr__(self) -> str:
        return f"TaskHandle(cancelled={self._cancelled})"

    @property
    def cancelled(self) -> bool:
        """Return True once the client has cancelled this task."""
        return self._cancelled

    def check_cancelled(self) -> None:
        """Raise ``TaskCancelled`` if the client has cancelled this task."""
        if self._cancelled:
            raise TaskCancelled()

    @property
    def status_message(self) -> str | None:
        """Return the status message last set by the handler."""
        return self._message

    @status_message.setter
    def status_message(self, message: str) -> None:
        if not isinstance(message, str):
            raise TypeError(f"status_message must be a str, got {type(message).__name__}")
        self._message = message
        self._unsent = True

    def mark_cancelled(self) -> None:
        """Record that the client cancelled the task (called by the run)."""
        self._cancelled = True

    def take_status_message(self) -> str | None:
        """Return the status message not written yet, once (called by the run)."""
        if not self._unsent:
            return None
        self._unsent = False
        return self._message


# ------------------------------------------------------------ request side


def answer(task_id: str, responses: dict[str, Any]) -> bool:
    """Record the answers to outstanding requests; return True when none is left.

    A task with every answer is queued again (``statusMessage`` "queued").
    """
    with transaction.atomic():
        record = McpTask.objects.select_for_update().filter(pk=task_id).first()
        if record is None or record.status != McpTask.Status.INPUT_REQUIRED:
            return False
        pending = dict(record.input_requests)
        matched = [(key, value) for key, value in responses.items() if key in pending]
        for key, value in matched:
            if not isinstance(value, dict):
                raise InvalidParams(f"inputResponses[{key!r}] must be an object")
        if not matched:
            return False
        answers = dict(record.input_responses)
        for key, value in matched:
            answers[pending.pop(key)["key"]] = value
        record.input_requests = pending
        record.input_responses = answers
        record.updated_at = timezone.now()
        if not pending:
            record.status = McpTask.Status.WORKING
            record.status_message = QUEUED
            record.expires_at = None
        record.save(
            update_fields=[
                "input_requests",
                "input_responses",
                "updated_at",
                "status",
                "status_message",
                "expires_at",
            ]
        )
    _announce(task_id, None if pending else McpTask.Status.WORKING)
    return not pending


def cancel(task_id: str, ttl_ms: int | None) -> None:
    """Cancel a waiting or unstarted task at once; ask a running one to stop.

    Each step is one conditional UPDATE, so a worker claiming the task at
    the same moment either sees it cancelled or is asked to stop.
    ``ttl_ms`` is the task's own (kept that long once cancelled).
    """
    now = timezone.now()
    tasks = McpTask.objects.filter(pk=task_id)
    ended = dict(
        status=McpTask.Status.CANCELLED,
        cancel_requested=True,
        input_requests={},
        updated_at=now,
        lease_expires_at=None,
        expires_at=_expiry(ttl_ms, now),
    )
    if tasks.filter(status=McpTask.Status.INPUT_REQUIRED).update(**ended):
        _announce(task_id, McpTask.Status.CANCELLED)
        return
    if tasks.filter(status=McpTask.Status.WORKING, running=False).update(**ended):
        _announce(task_id, McpTask.Status.CANCELLED)
        return
    tasks.filter(status=McpTask.Status.WORKING).update(cancel_requested=True)


def lapse(record: McpTask, *, retry: bool) -> bool:
    """End (or queue again) a working task whose lease lapsed; False if it changed meanwhile.

    The worker (or in-process queue) holding it stopped renewing it. A task
    the client cancelled ends ``cancelled``; with ``retry`` (retries left),
    it is queued again and one retry is spent; otherwise it fails with
    -32603 and ``LOST_WORKER``. The caller enqueues a retried task.
    """
    now = timezone.now()
    same = McpTask.objects.filter(
        pk=record.pk,
        status=McpTask.Status.WORKING,
        runs=record.runs,
        lease_expires_at=record.lease_expires_at,
        running=record.running,
    )
    changes: dict[str, Any] = {"running": False, "lease_expires_at": None, "updated_at": now}
    if record.cancel_requested:
        changes.update(status=McpTask.Status.CANCELLED, expires_at=_expiry(record.ttl_ms, now))
    elif retry:
        changes.update(
            retries_left=F("retries_left") - 1,
            status_message=f"{QUEUED} again: the worker running it stopped",
        )
    else:
        error = error_object(InternalError(LOST_WORKER))
        changes.update(
            status=McpTask.Status.FAILED,
            error=error,
            status_message=LOST_WORKER,
            expires_at=_expiry(record.ttl_ms, now),
        )
    if not same.update(**changes):
        return False
    status = changes.get("status")
    _announce(record.pk, status, error=changes.get("error"))
    return True


def fail_job(record: McpTask, message: str) -> bool:
    """Fail a queued task whose job the Tasks backend failed or lost; False if it changed."""
    now = timezone.now()
    same = McpTask.objects.filter(
        pk=record.pk, status=McpTask.Status.WORKING, running=False, runs=record.runs, job_id=record.job_id
    )
    error = error_object(InternalError(message))
    changed = same.update(
        status=McpTask.Status.FAILED,
        error=error,
        status_message=message,
        updated_at=now,
        lease_expires_at=None,
        expires_at=_expiry(record.ttl_ms, now),
    )
    if changed:
        _announce(record.pk, McpTask.Status.FAILED, error=error)
    return bool(changed)


def expire(now: datetime.datetime, *, task_id: str | None = None) -> int:
    """Delete the tasks past their ``expires_at`` (only ``task_id`` when given); return how many."""
    tasks = McpTask.objects.filter(expires_at__lt=now)
    if task_id is not None:
        tasks = tasks.filter(pk=task_id)
    deleted, _ = tasks.delete()
    return deleted


# ---------------------------------------------------------------- run side


def claim(task_id: str, lease: float) -> McpTask | None:
    """Mark a working task running under a ``lease``-second lease; None when it must not run.

    A task cancelled before its run started ends ``cancelled`` here. The
    returned row's ``runs`` is the new run's number.
    """
    tasks = McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING, running=False)
    now = timezone.now()
    ended = tasks.filter(cancel_requested=True)
    unstarted = ended.values("ttl_ms").first()
    if unstarted is not None and ended.update(
        status=McpTask.Status.CANCELLED, updated_at=now, expires_at=_expiry(unstarted["ttl_ms"], now)
    ):
        _announce(task_id, McpTask.Status.CANCELLED)
    started = tasks.filter(cancel_requested=False).update(
        running=True,
        runs=F("runs") + 1,
        started_at=Coalesce("started_at", Value(now)),
        lease_expires_at=now + datetime.timedelta(seconds=lease),
        lease_holder=holder(),
        updated_at=now,
    )
    if not started:
        return None
    McpTask.objects.filter(pk=task_id, status_message__startswith=QUEUED).update(status_message=RUNNING)
    _announce(task_id)
    return McpTask.objects.get(pk=task_id)


def renew(task_id: str, run: int, lease: float) -> bool:
    """Extend run ``run``'s lease by ``lease`` seconds; False when the task is no longer its own."""
    until = timezone.now() + datetime.timedelta(seconds=lease)
    return bool(
        McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING, running=True, runs=run).update(
            lease_expires_at=until
        )
    )


def hold(task_ids: Iterable[str], lease: float) -> int:
    """Lease queued tasks to this process's in-process pool for ``lease`` seconds; return how many."""
    until = timezone.now() + datetime.timedelta(seconds=lease)
    return McpTask.objects.filter(pk__in=list(task_ids), status=McpTask.Status.WORKING, running=False).update(
        lease_expires_at=until, lease_holder=holder()
    )


def cancel_requested(task_id: str) -> bool:
    """Return True when the client asked to cancel task ``task_id``."""
    return McpTask.objects.filter(pk=task_id, cancel_requested=True).exists()


def report(task_id: str, run: int, message: str) -> None:
    """Publish ``message`` as the running task's ``statusMessage``."""
    if McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING, runs=run).update(
        status_message=message, updated_at=timezone.now()
    ):
        _announce(task_id)


def finish(
    task_id: str,
    *,
    run: int | None,
    ttl_ms: int | None,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    cancelled: bool = False,
) -> None:
    """End a working task: completed with ``result``, failed with ``error``, or cancelled.

    ``run`` is the run ending it, None for a task that never started
    running (it could not be enqueued). The task is kept ``ttl_ms`` from now.
    """
    now = timezone.now()
    if cancelled:
        changes: dict[str, Any] = {"status": McpTask.Status.CANCELLED}
    elif error is not None:
        changes = {"status": McpTask.Status.FAILED, "error": error}
    else:
        changes = {"status": McpTask.Status.COMPLETED, "result": result}
    tasks = McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING)
    tasks = tasks.filter(running=False) if run is None else tasks.filter(running=True, runs=run)
    if tasks.update(
        running=False, updated_at=now, lease_expires_at=None, expires_at=_expiry(ttl_ms, now), **changes
    ):
        _announce(
            task_id,
            changes["status"],
            error=error,
            tool_error=isinstance(result, dict) and result.get("isError") is True,
        )


def park(task_id: str, run: int, requests: Mapping[str, InputRequest], state: Any) -> bool:
    """Make a running task wait for ``requests``; return True to run it again now.

    Each request gets a wire key unique over the task's lifetime: the
    handler's own key, suffixed ``.2``, ``.3``, ... when already used. A
    task asking for nothing (state only) runs again at once; a cancelled
    one ends ``cancelled``. A waiting task is kept ``ttl_ms`` from now.
    """
    with transaction.atomic():
        record = McpTask.objects.select_for_update().filter(pk=task_id, status=McpTask.Status.WORKING).first()
        if record is None or not record.running or record.runs != run:
            return False
        now = timezone.now()
        record.running = False
        record.lease_expires_at = None
        record.updated_at = now
        record.request_state = None if state is UNSET else state
        if record.cancel_requested:
            record.status = McpTask.Status.CANCELLED
            record.expires_at = _expiry(record.ttl_ms, now)
        elif requests:
            issued = list(record.issued_keys)
            pending: dict[str, Any] = {}
            for key, item in requests.items():
                wire, count = key, 1
                while wire in issued:
                    count += 1
                    wire = f"{key}.{count}"
                issued.append(wire)
                entry: dict[str, Any] = {"key": key, "method": item.method}
                if item.params is not UNSET:
                    entry["params"] = item.params
                pending[wire] = entry
            record.status = McpTask.Status.INPUT_REQUIRED
            record.input_requests = pending
            record.issued_keys = issued
            record.expires_at = _expiry(record.ttl_ms, now)
        record.save()
    _announce(task_id, None if record.status == McpTask.Status.WORKING else record.status)
    return record.status == McpTask.Status.WORKING


def error_object(error: McpError) -> dict[str, Any]:
    """Return ``error`` as the JSON-RPC error object a failed task carries."""
    value = ErrorObject(
        code=error.code, message=error.message, data=UNSET if error.data is None else error.data
    )
    return dict(msgspec.to_builtins(value))
