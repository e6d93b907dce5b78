"""System checks of the tasks extension (E023, E024, E032, E033, W006, W011, W012)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpResponse, Server, Tool
from django_mcp.checks import check_deploy, check_servers, check_settings
from django_mcp.registry import registry
from tests.checks.components import GoodServer

# ------------------------------------------------------------------ tasks


class LongTool(Tool):
    name = "long"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class TaskToolServer(Server):
    tools = (LongTool,)


def test_task_tools_without_the_tasks_framework_are_e023(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import django_mcp.tasks.backend

    def missing() -> Any:
        raise ImproperlyConfigured("no framework")

    monkeypatch.setattr(django_mcp.tasks.backend, "framework", missing)
    registry._registry["web"]["tasks"] = TaskToolServer
    registry._registry["web"]["good"] = GoodServer  # no task tool: never reported

    assert check_servers() == [
        Error(
            "Tools of web server 'tasks' run as tasks, but Django's Tasks framework is not installed.",
            hint="Use Django 6, or install the django-tasks backport: "
            "pip install 'django-mcp-toolkit[tasks]'.",
            id="django_mcp.E023",
        )
    ]


def test_task_tools_with_an_unknown_task_backend_are_e024(servers: None, settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "nowhere"
    registry._registry["web"]["tasks"] = TaskToolServer
    registry._registry["local"]["tasks"] = TaskToolServer

    assert check_servers() == [
        Error(
            "Tools of web server 'tasks', local server 'tasks' run as tasks, but MCP_TASK_BACKEND is "
            "unusable: TASKS alias 'nowhere': The connection 'nowhere' doesn't exist.",
            hint="Name an alias of TASKS in MCP_TASK_BACKEND (None means 'default') whose BACKEND imports, "
            "e.g. 'django_tasks_db.DatabaseBackend' with django_tasks_db installed.",
            id="django_mcp.E024",
        )
    ]


def test_the_task_backend_is_not_checked_without_task_tools(servers: None, settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "nowhere"
    registry._registry["web"]["good"] = GoodServer

    assert check_servers() == []


@pytest.mark.parametrize(
    ("backend", "what"),
    [
        (
            "django_tasks.backends.immediate.ImmediateBackend",
            "a task's tool runs inside the request that creates it, which waits for it.",
        ),
        ("django_tasks.backends.dummy.DummyBackend", "tasks are stored but never run."),
    ],
)
def test_tasks_on_an_immediate_or_dummy_backend_are_w006(
    servers: None, settings: Any, backend: str, what: str
) -> None:
    settings.TASKS = {"default": {"BACKEND": backend}}
    registry._registry["web"]["tasks"] = TaskToolServer

    assert [message for message in check_deploy() if message.id == "django_mcp.W006"] == [
        Warning(
            f"MCP_TASK_BACKEND uses the {backend.rsplit('.', 1)[1]}: {what}",
            hint="Point MCP_TASK_BACKEND at a backend with workers, e.g. django-tasks-db "
            "('django_tasks_db.DatabaseBackend') and `manage.py db_worker`.",
            id="django_mcp.W006",
        )
    ]


def test_tasks_on_a_backend_with_workers_are_not_w006(servers: None, settings: Any) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    registry._registry["web"]["tasks"] = TaskToolServer

    assert [message.id for message in check_deploy() if message.id == "django_mcp.W006"] == []


def test_a_malformed_task_rate_limit_is_e032(settings: Any) -> None:
    settings.MCP_TASK_RATE_LIMIT = "lots"

    assert check_settings() == [
        Error(
            "MCP_TASK_RATE_LIMIT must be None or a rate like '120/m', got 'lots'.",
            hint="Write a positive number of tasks, a slash and a period: s (second), "
            "m (minute), h (hour) or d (day); None means unlimited.",
            id="django_mcp.E032",
        )
    ]


def test_a_task_backend_that_is_not_an_alias_is_e033(settings: Any) -> None:
    settings.MCP_TASK_BACKEND = 3

    assert [message.id for message in check_settings()] == ["django_mcp.E033"]


# ------------------------------------------------------- E034 - E037


def test_a_lease_under_five_seconds_is_w012(settings: Any) -> None:
    settings.MCP_TASK_LEASE_TIMEOUT = 2

    assert check_settings() == [
        Warning(
            "MCP_TASK_LEASE_TIMEOUT is 2 s: a worker renews its lease every third of it, and one "
            "that misses a renewal (a long pause, a slow database) has its task failed while it "
            "still runs.",
            hint="Use 5 seconds or more; the default is 30.",
            id="django_mcp.W012",
        )
    ]


def test_tasks_in_the_in_process_pool_are_w011_and_need_no_framework(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import django_mcp.tasks.backend
    from django_mcp import conf

    def missing() -> Any:
        raise ImproperlyConfigured("no framework")

    monkeypatch.setattr(conf, "_task_alias", lambda: None)  # as with no TASKS setting
    monkeypatch.setattr(django_mcp.tasks.backend, "framework", missing)
    conf.get_settings.cache_clear()
    registry._registry["web"]["tasks"] = TaskToolServer
    try:
        checked = check_servers()
        deploy = [
            message.id for message in check_deploy() if message.id in ("django_mcp.W006", "django_mcp.W011")
        ]
    finally:
        conf.get_settings.cache_clear()

    assert checked == []
    assert deploy == ["django_mcp.W011"]
