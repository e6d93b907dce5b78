"""Publish the admin playground's fixture servers: ``/mcp/playground`` and ``/mcp/tasks``.

The second is the conformance fixture's ``slow_compute`` (a tool that runs
as a task) on a server of its own, so the playground can drive a task.
"""

from __future__ import annotations

import django_mcp
from django_mcp import Server
from testproject.conformance.mcp import SlowComputeTool
from tests.playground import PlaygroundServer


class TaskServer(Server):
    """A tool that runs as a task, for the playground's task page."""

    name = "tasks"
    tools = (SlowComputeTool,)


django_mcp.web("playground", PlaygroundServer)
django_mcp.web("tasks", TaskServer)
