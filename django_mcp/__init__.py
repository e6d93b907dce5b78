"""django_mcp: serve the Model Context Protocol from a Django project.

Declare ``Tool``, ``Resource`` and ``Prompt`` classes (and ``AppResource``
pages for MCP Apps), group them (and ``Skill`` folders) in a ``Server``,
and publish it with ``django_mcp.web("name", MyServer)`` in an
app's ``mcp.py``. Importing this package does not touch Django settings.
"""

from __future__ import annotations

from django_mcp.events import prompts_changed, resource_updated, resources_changed, tools_changed
from django_mcp.exceptions import McpError
from django_mcp.registry import local, web
from django_mcp.request import McpRequest
from django_mcp.response import ContentAnnotations, McpResponse
from django_mcp.schemas import Schema
from django_mcp.server.primitives import (
    CacheHint,
    Completion,
    Icon,
    Prompt,
    PromptArgument,
    Resource,
    Tool,
    ToolAnnotations,
)
from django_mcp.server.server import Server
from django_mcp.server.skills import Skill
from django_mcp.server.tool_search import ToolSearch
from django_mcp.ui.resource import AppResource, Csp

__all__ = [
    "AppResource",
    "CacheHint",
    "Completion",
    "ContentAnnotations",
    "Csp",
    "Icon",
    "McpError",
    "McpRequest",
    "McpResponse",
    "Prompt",
    "PromptArgument",
    "Resource",
    "Schema",
    "Server",
    "Skill",
    "Tool",
    "ToolAnnotations",
    "ToolSearch",
    "local",
    "prompts_changed",
    "resource_updated",
    "resources_changed",
    "tools_changed",
    "web",
]

__version__ = "0.1.0"
