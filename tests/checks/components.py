"""Components and an event backend the system check tests of several modules share."""

from __future__ import annotations

from django_mcp import McpResponse, Server, Tool
from django_mcp.events.base import EventBackend

__all__ = ["SILENT_BACKEND", "EchoTool", "GoodServer", "SilentBackend"]


class SilentBackend(EventBackend):
    """An event backend that is not the in-process one (for W002)."""


#: The dotted path of ``SilentBackend``, for ``MCP_EVENT_BACKEND``.
SILENT_BACKEND = f"{__name__}.SilentBackend"


class EchoTool(Tool):
    name = "echo"

    def handle(self) -> McpResponse:
        return McpResponse.text("echo")


class GoodServer(Server):
    tools = (EchoTool,)
