"""System checks of the event backend and namespace (E008-E010, E022, W002)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.exceptions import ImproperlyConfigured

from django_mcp.checks import check_deploy, check_settings
from django_mcp.events.base import EventBackend
from django_mcp.events.memory import MemoryEventBackend

HERE = __name__  # importable: pytest registers this module in sys.modules


# ------------------------------------------------------------- fixtures


class ReportingBackend(EventBackend):
    """An event backend with a check message of its own."""

    def check(self, **kwargs: Any) -> list[Any]:
        return [Warning("Reporting backend says hi.", hint="Nothing to do.", id="tests.W001")]


class BrokenBackend(EventBackend):
    """An event backend that cannot be created."""

    def __init__(self) -> None:
        raise ImproperlyConfigured("BrokenBackend needs a service that is not configured")


# ----------------------------------------------------------- E008 - E010


BACKEND_HINT = (
    "Use 'django_mcp.events.memory.MemoryEventBackend' (one process) or "
    "'django_mcp.events.redis.RedisEventBackend' (many workers)."
)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        (
            "django_mcp.events.memory.Missing",
            'Module "django_mcp.events.memory" does not define a "Missing" attribute/class',
        ),
        ("MemoryEventBackend", "MemoryEventBackend doesn't look like a module path"),
        (None, "expected a dotted path string, got None"),
    ],
)
def test_event_backend_that_cannot_be_imported_is_e008(settings: Any, path: Any, problem: str) -> None:
    settings.MCP_EVENT_BACKEND = path
    assert check_settings() == [
        Error(
            f"MCP_EVENT_BACKEND {path!r} cannot be imported: {problem}.",
            hint=BACKEND_HINT,
            id="django_mcp.E008",
        )
    ]


def test_event_backend_of_the_wrong_class_is_e009(settings: Any) -> None:
    settings.MCP_EVENT_BACKEND = "django_mcp.conf.Limits"
    assert check_settings() == [
        Error(
            "MCP_EVENT_BACKEND 'django_mcp.conf.Limits' is not an EventBackend subclass.",
            hint="Point it at a subclass of django_mcp.events.EventBackend, "
            "e.g. 'django_mcp.events.memory.MemoryEventBackend'.",
            id="django_mcp.E009",
        )
    ]


def test_event_backend_that_cannot_be_created_is_e010(settings: Any) -> None:
    path = f"{HERE}.BrokenBackend"
    settings.MCP_EVENT_BACKEND = path
    assert check_settings() == [
        Error(
            f"MCP_EVENT_BACKEND {path!r} cannot be created: "
            "BrokenBackend needs a service that is not configured",
            hint="Install what the backend needs and check its settings (e.g. MCP_REDIS_URL).",
            id="django_mcp.E010",
        )
    ]


def test_event_backend_check_messages_are_reported(settings: Any) -> None:
    settings.MCP_EVENT_BACKEND = f"{HERE}.ReportingBackend"
    assert check_settings() == [Warning("Reporting backend says hi.", hint="Nothing to do.", id="tests.W001")]


# ------------------------------------------------------------------ E022


@pytest.mark.parametrize("value", [None, "shop-prod", "3.a1b2c3"])
def test_event_namespace_may_be_none_or_a_name(settings: Any, value: Any) -> None:
    settings.MCP_EVENT_NAMESPACE = value
    assert check_settings() == []


@pytest.mark.parametrize("value", ["", "shop prod", 7])
def test_event_namespace_that_is_not_a_name_is_e022(settings: Any, value: Any) -> None:
    settings.MCP_EVENT_NAMESPACE = value
    assert check_settings() == [
        Error(
            f"MCP_EVENT_NAMESPACE must be None or a non-empty string without spaces, got {value!r}.",
            hint="Leave it unset (derived from MCP_REDIS_URL and SECRET_KEY), or set the same "
            'short name in every worker of one deployment, e.g. "shop-prod".',
            id="django_mcp.E022",
        )
    ]


# ----------------------------------------------------------- W001 / W002


W002 = Warning(
    "MCP_EVENT_BACKEND is the in-process memory backend: change notifications do not cross worker processes.",
    hint="With more than one worker process, set MCP_EVENT_BACKEND = "
    "'django_mcp.events.redis.RedisEventBackend' (pip install 'django-mcp-toolkit[redis]'); "
    'with a single process, add "django_mcp.W002" to SILENCED_SYSTEM_CHECKS.',
    id="django_mcp.W002",
)


class LocalSubclassBackend(MemoryEventBackend):
    """Still in-process."""


@pytest.mark.parametrize("debug", [True, False])
def test_memory_event_backend_is_w002_whatever_debug_says(
    settings: Any, shared_sessions: None, debug: Any
) -> None:
    settings.DEBUG = debug
    settings.ALLOWED_HOSTS = ["localhost"]
    assert check_deploy() == [W002]


def test_subclass_of_the_memory_backend_is_w002(settings: Any, shared_sessions: None) -> None:
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.MCP_EVENT_BACKEND = f"{HERE}.LocalSubclassBackend"
    assert check_deploy() == [W002]
