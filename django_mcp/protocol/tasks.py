"""Wire types of the tasks extension ``io.modelcontextprotocol/tasks`` (SEP-2663).

A ``tools/call`` the server turns into a task answers ``CreateTaskResult``
(``resultType: "task"``): the task's fields at the top level, never a
nested ``task`` object, never ``result``, ``error``, ``inputRequests`` or
``requestState``. ``tasks/get`` answers ``GetTaskResult``
(``resultType: "complete"``): the same fields plus, by status, the inlined
``result`` (completed), ``error`` (failed) or the outstanding
``inputRequests`` (input_required). ``TaskStatusNotificationParams`` is a
``notifications/tasks`` payload: a ``GetTaskResult`` without ``resultType``.

``ttl_ms`` is the task's lifetime in integer milliseconds, ``None``
(JSON ``null``) for unlimited; timestamps are ISO 8601 strings. The SEP
renamed the 2025-11-25 ``ttl``/``pollInterval`` to ``ttlMs``/
``pollIntervalMs``; the old names never appear. This module imports nothing
from Django and holds no behaviour.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from django_mcp.protocol._base import UNSET, Meta, UnsetType, WireStruct
from django_mcp.protocol.results import InputRequest

__all__ = [
    "EXTENSION",
    "TERMINAL_STATUSES",
    "CreateTaskResult",
    "GetTaskResult",
    "TaskStatus",
    "TaskStatusNotificationParams",
]

EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The extension's identifier in ``capabilities.extensions`` (SEP-2663)."""

#: Where a task is (SEP-2663 "Task Status").
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]

TERMINAL_STATUSES: Final[frozenset[str]] = frozenset({"completed", "failed", "cancelled"})
"""Statuses a task never leaves."""


class _Task(WireStruct, omit_defaults=False, frozen=True):
    """The ``Task`` fields every task shape shares (SEP-2663 "Tasks")."""

    task_id: str
    status: TaskStatus
    created_at: str
    last_updated_at: str
    #: Milliseconds from creation the task is kept; None (null) is unlimited.
    ttl_ms: int | None
    status_message: str | UnsetType = UNSET
    poll_interval_ms: int | UnsetType = UNSET


class CreateTaskResult(_Task, frozen=True):
    """What ``tools/call`` answers when the server runs the call as a task."""

    result_type: str | UnsetType = "task"
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class TaskStatusNotificationParams(_Task, frozen=True):
    """A task as ``tasks/get`` would show it now (``DetailedTask``)."""

    #: The ``CallToolResult`` of a completed task, exactly as ``tools/call``
    #: would have answered it (``isError: true`` included).
    result: dict[str, Any] | UnsetType = UNSET
    #: The JSON-RPC error object of a failed task.
    error: dict[str, Any] | UnsetType = UNSET
    #: Every outstanding request of an ``input_required`` task.
    input_requests: dict[str, InputRequest] | UnsetType = UNSET


class GetTaskResult(TaskStatusNotificationParams, frozen=True):
    """The result of ``tasks/get``: the task and what its status carries."""

    result_type: str | UnsetType = "complete"
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")
