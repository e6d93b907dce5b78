"""The stored side of MCP tasks: every write to ``McpTask`` rows.

The request path (``tasks.py``: ``tasks/update``, ``tasks/cancel``) and a
task's run (``background.py``: ``claim``, ``report``, ``finish``, ``park``)
change task rows only through these functions, each one conditional UPDATE
or one row locked with ``select_for_update``, so a worker and a request
acting on the same task at the same moment never lose a change.
``TaskHandle`` is the ``request.task`` a running handler sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec
from django.db import transaction
from django.utils import timezone

from django_mcp.exceptions import InvalidParams, McpError, TaskCancelled
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.jsonrpc import ErrorObject
from django_mcp.protocol.results import InputRequest

if TYPE_CHECKING:
    from django_mcp.models import McpTask

__all__ = [
    "TaskHandle",
    "answer",
    "cancel",
    "cancel_requested",
    "claim",
    "error_object",
    "finish",
    "park",
    "report",
]


class TaskHandle:
    """``request.task`` of a tool call running as a task.

    ``cancelled`` turns True once the client has cancelled the task (the
    run checks every ``background.CANCEL_CHECK_INTERVAL`` seconds);
    ``check_cancelled()`` then raises ``TaskCancelled``. Assigning
    ``status_message`` publishes it as the task's ``statusMessage`` (written
    at the same interval, and when the run ends). Neither touches the
    database from the handler, so both work in sync and async handlers.
    """

    __slots__ = ("_cancelled", "_message", "_unsent", "id")

    def __init__(self, task_id: str) -> None:
        #: The task id the client polls with.
        self.id = task_id
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
    """Record the answers to outstanding requests; return True when none is left."""
    from django_mcp.models import McpTask

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
        record.save(update_fields=["input_requests", "input_responses", "updated_at", "status"])
        return not pending


def cancel(task_id: str) -> None:
    """Cancel a waiting or unstarted task at once; ask a running one to stop.

    Each step is one conditional UPDATE, so a worker claiming the task at
    the same moment either sees it cancelled or is asked to stop.
    """
    from django_mcp.models import McpTask

    now = timezone.now()
    tasks = McpTask.objects.filter(pk=task_id)
    ended = dict(status=McpTask.Status.CANCELLED, cancel_requested=True, input_requests={}, updated_at=now)
    if tasks.filter(status=McpTask.Status.INPUT_REQUIRED).update(**ended):
        return
    if tasks.filter(status=McpTask.Status.WORKING, running=False).update(**ended):
        return
    tasks.filter(status=McpTask.Status.WORKING).update(cancel_requested=True)


# ---------------------------------------------------------------- run side


def claim(task_id: str) -> McpTask | None:
    """Mark a working task running and return it; None when it must not run.

    A task cancelled before its run started ends ``cancelled`` here.
    """
    from django_mcp.models import McpTask

    tasks = McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING, running=False)
    now = timezone.now()
    tasks.filter(cancel_requested=True).update(status=McpTask.Status.CANCELLED, updated_at=now)
    if not tasks.filter(cancel_requested=False).update(running=True, updated_at=now):
        return None
    return McpTask.objects.get(pk=task_id)


def cancel_requested(task_id: str) -> bool:
    """Return True when the client asked to cancel task ``task_id``."""
    from django_mcp.models import McpTask

    return McpTask.objects.filter(pk=task_id, cancel_requested=True).exists()


def report(task_id: str, message: str) -> None:
    """Publish ``message`` as the running task's ``statusMessage``."""
    from django_mcp.models import McpTask

    McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING).update(
        status_message=message, updated_at=timezone.now()
    )


def finish(
    task_id: str,
    *,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    cancelled: bool = False,
    running: bool = True,
) -> None:
    """End a working task: completed with ``result``, failed with ``error``, or cancelled.

    ``running`` is False for a task that never started running.
    """
    from django_mcp.models import McpTask

    if cancelled:
        changes: dict[str, Any] = {"status": McpTask.Status.CANCELLED}
    elif error is not None:
        changes = {"status": McpTask.Status.FAILED, "error": error}
    else:
        changes = {"status": McpTask.Status.COMPLETED, "result": result}
    McpTask.objects.filter(pk=task_id, status=McpTask.Status.WORKING, running=running).update(
        running=False, updated_at=timezone.now(), **changes
    )


def park(task_id: str, requests: Mapping[str, InputRequest], state: Any) -> bool:
    """Make a running task wait for ``requests``; return True to run it again now.

    Each request gets a wire key unique over the task's lifetime: the
    handler's own key, suffixed ``.2``, ``.3``, ... when already used. A
    task asking for nothing (state only) runs again at once; a cancelled
    one ends ``cancelled``.
    """
    from django_mcp.models import McpTask

    with transaction.atomic():
        record = McpTask.objects.select_for_update().filter(pk=task_id, status=McpTask.Status.WORKING).first()
        if record is None or not record.running:
            return False
        record.running = False
        record.updated_at = timezone.now()
        record.request_state = None if state is UNSET else state
        if record.cancel_requested:
            record.status = McpTask.Status.CANCELLED
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
        record.save()
        return record.status == McpTask.Status.WORKING


def error_object(error: McpError) -> dict[str, Any]:
    """Return ``error`` as the JSON-RPC error object a failed task carries."""
    value = ErrorObject(
        code=error.code, message=error.message, data=UNSET if error.data is None else error.data
    )
    return dict(msgspec.to_builtins(value))
