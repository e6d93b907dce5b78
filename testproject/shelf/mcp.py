"""The shelf's MCP server: its admin and its REST API as tools, with one hand-written tool.

``ShelfServer`` is published at ``/mcp/shelf``. The admin tools need an
active staff member with the volume permissions; the API tools need a
signed-in user (the ViewSet's ``IsAuthenticated``); both see only the
caller's own volumes. The API tools are there when Django REST framework
is installed (the ``drf`` extra).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import django_mcp
from django_mcp import McpRequest, McpResponse, Server, Tool, ToolAnnotations
from django_mcp.contrib.admin import ModelAdminTools
from testproject.shelf.admin import VolumeAdmin
from testproject.shelf.models import Volume

__all__ = ["ShelfServer", "ShelfSizeTool"]


class ShelfSizeTool(Tool):
    """Say how many volumes the caller has."""

    annotations = ToolAnnotations(read_only=True)

    def authorize(self, request: McpRequest) -> bool:
        return bool(request.user is not None and request.user.is_authenticated)

    def handle(self, request: McpRequest) -> McpResponse:
        count = Volume.objects.filter(owner=request.user.pk).count()
        return McpResponse.text(f"You have {count} volume(s).")


def _api_tools() -> tuple[Any, ...]:
    if importlib.util.find_spec("rest_framework") is None:
        return ()
    from django_mcp.contrib.drf import ViewSetTools
    from testproject.shelf.api import VolumeViewSet

    return ViewSetTools(
        VolumeViewSet,
        prefix="api-volume",
        actions=("list", "retrieve", "create", "partial_update", "destroy", "restock"),
    )


class ShelfServer(Server):
    """Browse and edit your own shelf through its admin and its API."""

    name = "shelf"
    tools = (
        ShelfSizeTool,
        *ModelAdminTools(
            VolumeAdmin,
            prefix="admin-volume",
            actions=("list", "get", "change", "add", "delete", "mark_worn"),
        ),
        *_api_tools(),
    )


django_mcp.web("shelf", ShelfServer)
