"""Declarations the compiler tests build servers from, and how they assert a refusal."""

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.schemas import Schema
from django_mcp.server.compiler import compile_server


class LookupInput(Schema):
    order_id: int


class LookupOutput(Schema):
    order_id: int
    status: str


def server_with(**members: Any) -> type[Server]:
    return type("CatalogServer", (Server,), {k: tuple(v) for k, v in members.items()})


def refused(server: type[Server], *culprits: type[Any]) -> str:
    """Assert compiling ``server`` is refused naming each culprit; return the message."""
    with pytest.raises(ImproperlyConfigured) as excinfo:
        compile_server(server)
    message = str(excinfo.value)
    for culprit in culprits:
        assert culprit.__qualname__ in message
    return message


def tool(name: str | None = None, **attrs: Any) -> type[Tool]:
    attrs.setdefault("handle", lambda self: McpResponse.text("x"))
    if name is not None:
        attrs["name"] = name
    return type(attrs.pop("cls_name", "SomeTool"), (Tool,), attrs)


def header_tool(schema: dict) -> type:  # type: ignore[type-arg]
    from django_mcp import McpResponse, Tool

    class HeaderTool(Tool):
        input = schema

        def handle(self, payload: dict) -> McpResponse:  # type: ignore[type-arg]
            return McpResponse.text("ok")

    return HeaderTool


class SomeTool(Tool):
    """A tool."""

    def handle(self) -> McpResponse:
        return McpResponse.text("ok")


class ReportTool(Tool):
    name = "report"
    task = "optional"

    def use_task(self, request: McpRequest) -> bool:
        return True

    def prepare(self) -> None:
        return None

    def handle(self) -> McpResponse:
        return McpResponse.text("report")
