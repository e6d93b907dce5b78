"""Tests for django_mcp.server.compiler: one compiled catalog per server class, found again by key."""

from typing import Any

from django_mcp import Server
from django_mcp.server import compiler
from django_mcp.server.compiler import compile_server
from tests.server.declaring import (
    server_with,
    tool,
)


def test_compile_server_builds_each_server_once_and_returns_the_same_catalog(monkeypatch: Any) -> None:
    built: list[type[Server]] = []
    real = compiler._compile
    monkeypatch.setattr(compiler, "_compile", lambda server: built.append(server) or real(server))
    server = server_with(tools=[tool("a")])

    first = compile_server(server)
    assert compile_server(server) is first
    assert server.compiled() is first
    assert built == [server]
