"""The playground's tasks: follow, cancel and answer a task from the admin.

The playground declares the tasks extension (``io.modelcontextprotocol/tasks``)
on every call (``CLIENT_CAPABILITIES``), so a tool with task support may
answer with a task handle, and a ``task = "required"`` tool can be tried
at all. ``TaskClient`` then drives that task as an MCP client would, through
``McpTestClient`` as the signed-in user (who owns the task): ``get()`` is
``tasks/get``, ``cancel()`` is ``tasks/cancel`` and ``update()`` sends
answers to its ``inputRequests`` with ``tasks/update``. What the page shows
of it is built by ``playground.task_view``; while the task is ``working``
the page fetches it again every ``pollIntervalMs`` (``playground.js``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from asgiref.sync import async_to_sync

from django_mcp.protocol.tasks import EXTENSION
from django_mcp.protocol.ui import EXTENSION as UI_EXTENSION
from django_mcp.protocol.ui import SETTINGS as UI_SETTINGS
from django_mcp.testing import McpTestClient

__all__ = ["CLIENT_CAPABILITIES", "TaskClient"]

CLIENT_CAPABILITIES: Final[Mapping[str, Any]] = {
    "elicitation": {"form": {}, "url": {}},
    "sampling": {},
    "roots": {},
    "extensions": {EXTENSION: {}, UI_EXTENSION: dict(UI_SETTINGS)},
}
"""What the playground declares: every client capability, the tasks extension and MCP Apps."""


class TaskClient:
    """Send the ``tasks/*`` requests of one server as ``user``; each returns the JSON-RPC response."""

    def __init__(self, server: Any, user: Any) -> None:
        self.server = server
        self.user = user

    def _request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        client = McpTestClient(self.server, self.user, client_capabilities=CLIENT_CAPABILITIES)
        return async_to_sync(client.request)(method, params)

    def get(self, task_id: str) -> dict[str, Any]:
        """Send ``tasks/get``."""
        return self._request("tasks/get", {"taskId": task_id})

    def cancel(self, task_id: str) -> dict[str, Any]:
        """Send ``tasks/cancel``."""
        return self._request("tasks/cancel", {"taskId": task_id})

    def update(self, task_id: str, answers: Mapping[str, Any]) -> dict[str, Any]:
        """Send ``tasks/update`` with ``answers`` as ``inputResponses``."""
        return self._request("tasks/update", {"taskId": task_id, "inputResponses": dict(answers)})
