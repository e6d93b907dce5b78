"""``Outcome``: one request the playground sent and the answer it got."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["Outcome"]


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """One request sent by the playground and its answer."""

    #: ``{"method": ..., "params": ...}`` as sent (without the client's ``_meta``).
    request: dict[str, Any]
    response: dict[str, Any]
    notifications: list[dict[str, Any]]
    #: The unexpected exceptions the server logged while answering, as
    #: "Type: message" (only the playground sees them; clients never do).
    failures: tuple[str, ...] = ()

    @property
    def error(self) -> dict[str, Any] | None:
        """Return the JSON-RPC error object, or None."""
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def result(self) -> dict[str, Any]:
        """Return the result object (empty for an error)."""
        result = self.response.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def input_required(self) -> bool:
        """Return True when the server asks for input before answering."""
        return self.result.get("resultType") == "input_required"

    @property
    def is_error(self) -> bool:
        """Return True for a tool failure (``isError: true``)."""
        return self.result.get("isError") is True

    @property
    def task_id(self) -> str | None:
        """Return the id of the task the call created, or None."""
        task_id = self.result.get("taskId")
        return task_id if self.result.get("resultType") == "task" and isinstance(task_id, str) else None

    @property
    def summary(self) -> str:
        """Return the outcome in a few words, for the history."""
        if self.error is not None:
            return f"refused with JSON-RPC error {self.error.get('code')}"
        if self.input_required:
            return f"asked for input ({len(self.result.get('inputRequests') or {})} request(s))"
        if self.task_id is not None:
            return "answered with a task"
        if self.is_error:
            return "failed (isError)"
        return "succeeded"
