"""The public surface of django_mcp is pinned and imports safely."""

import __future__

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import django_mcp

ROOT = Path(__file__).resolve().parent.parent


def test_all_lists_exactly_the_public_names_sorted() -> None:
    public = [
        name
        for name, value in vars(django_mcp).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and value is not __future__.annotations
    ]
    assert django_mcp.__all__ == sorted(public)


def test_every_exported_name_is_documented() -> None:
    undocumented = [name for name in django_mcp.__all__ if not getattr(django_mcp, name).__doc__]
    assert undocumented == []


def test_the_documented_import_paths_work() -> None:
    from django_mcp import (  # noqa: F401
        CacheHint,
        Completion,
        ContentAnnotations,
        Icon,
        McpRequest,
        McpResponse,
        Prompt,
        PromptArgument,
        Resource,
        Server,
        Tool,
        ToolAnnotations,
    )
    from django_mcp.protocol.content import (  # noqa: F401
        AudioContent,
        BlobResourceContents,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )
    from django_mcp.protocol.results import (  # noqa: F401
        CallToolResult,
        GetPromptResult,
        InputRequiredResult,
        ReadResourceResult,
    )
    from django_mcp.schemas import Schema  # noqa: F401
    from django_mcp.server.compiler import compile_server  # noqa: F401


@pytest.mark.parametrize(
    "module",
    [
        "django_mcp",
        "django_mcp.response",
        "django_mcp.schemas",
        "django_mcp.request",
        "django_mcp.inputs",
        "django_mcp.server.primitives",
        "django_mcp.server.server",
        "django_mcp.server.compiler",
        "django_mcp.protocol.content",
        "django_mcp.protocol.results",
        "django_mcp.protocol.definitions",
        "django_mcp.protocol.jsonrpc",
    ],
)
def test_each_module_declares_all_and_every_listed_name_exists(module: str) -> None:
    imported = importlib.import_module(module)
    assert [name for name in imported.__all__ if not hasattr(imported, name)] == []


def _import_in_a_fresh_interpreter(settings_module: str | None) -> str:
    # The only subprocess in the suite: settings state is per interpreter.
    code = (
        "import django_mcp, django_mcp.schemas, django_mcp.server.compiler, "
        "django_mcp.protocol.content, django_mcp.protocol.results, django_mcp.response\n"
        "from django.conf import settings\n"
        "print(settings.configured)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    if settings_module is not None:
        env["DJANGO_SETTINGS_MODULE"] = settings_module
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_importing_the_package_does_not_configure_settings() -> None:
    assert _import_in_a_fresh_interpreter("testproject.settings") == "False"


def test_importing_the_package_works_without_any_settings_module() -> None:
    assert _import_in_a_fresh_interpreter(None) == "False"
