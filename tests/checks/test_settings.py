"""System checks of the limits and names of the ``MCP_*`` settings (``django_mcp.checks._settings``)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from django_mcp.checks import check_servers, check_settings

INT_LIMITS = {
    "MCP_MAX_REQUEST_SIZE": 1024 * 1024,
    "MCP_MAX_RESPONSE_SIZE": 4 * 1024 * 1024,
    "MCP_MAX_METADATA_SIZE": 64 * 1024,
    "MCP_DEFAULT_PAGE_SIZE": 50,
    "MCP_MAX_PAGE_SIZE": 100,
    "MCP_MAX_CONCURRENT_REQUESTS": 32,
    "MCP_MAX_STREAMS": 1000,
    "MCP_MAX_SESSION_SIZE": 16 * 1024,
    "MCP_MAX_SESSIONS_PER_CLIENT": 100,
    "MCP_STREAM_BUFFER": 1000,
}


SECONDS = {"MCP_REQUEST_STATE_MAX_AGE": 600, "MCP_SESSION_TIMEOUT": 3600, "MCP_SSE_KEEPALIVE": 20}


# ------------------------------------------------------------- baseline


def test_the_test_settings_pass_every_check() -> None:
    assert check_settings() == []
    assert check_servers() == []


# ------------------------------------------------------- E001 / E002 / E003


@pytest.mark.parametrize("name", sorted(INT_LIMITS))
@pytest.mark.parametrize("value", ["10", 1.5, True, None])
def test_integer_limit_of_wrong_type_is_e001(settings: Any, name: str, value: Any) -> None:
    setattr(settings, name, value)
    assert check_settings() == [
        Error(
            f"{name} must be an integer, got {value!r} ({type(value).__name__}).",
            hint=f"Set {name} to a positive integer; the default is {INT_LIMITS[name]!r}.",
            id="django_mcp.E001",
        )
    ]


@pytest.mark.parametrize("name", sorted(SECONDS))
@pytest.mark.parametrize("value", ["20", False, float("inf")])
def test_duration_of_wrong_type_is_e001(settings: Any, name: str, value: Any) -> None:
    setattr(settings, name, value)
    assert check_settings() == [
        Error(
            f"{name} must be a number of seconds, got {value!r} ({type(value).__name__}).",
            hint=f"Set {name} to a positive number; the default is {SECONDS[name]!r}.",
            id="django_mcp.E001",
        )
    ]


def test_durations_accept_floats(settings: Any) -> None:
    settings.MCP_SSE_KEEPALIVE = 2.5
    assert check_settings() == []


@pytest.mark.parametrize("name", sorted({**INT_LIMITS, **SECONDS}))
@pytest.mark.parametrize("value", [-1, 0])
def test_limit_that_is_not_positive_is_e002(settings: Any, name: str, value: int) -> None:
    setattr(settings, name, value)
    default = {**INT_LIMITS, **SECONDS}[name]
    assert check_settings() == [
        Error(
            f"{name} must be greater than zero, got {value!r}.",
            hint=f"Set {name} to a positive value; the default is {default!r}.",
            id="django_mcp.E002",
        )
    ]


def test_a_negative_queue_timeout_is_e002(settings: Any) -> None:
    settings.MCP_QUEUE_TIMEOUT = -1
    assert check_settings() == [
        Error(
            "MCP_QUEUE_TIMEOUT must be zero or more, got -1.",
            hint="Set MCP_QUEUE_TIMEOUT to a non-negative value; the default is 10.",
            id="django_mcp.E002",
        )
    ]


@pytest.mark.parametrize("value", [0, 0.5, 30])
def test_a_queue_timeout_of_zero_or_more_seconds_passes(settings: Any, value: float) -> None:
    settings.MCP_QUEUE_TIMEOUT = value
    assert check_settings() == []


def test_a_queue_timeout_of_the_wrong_type_is_e001(settings: Any) -> None:
    settings.MCP_QUEUE_TIMEOUT = "10"
    assert [m.id for m in check_settings()] == ["django_mcp.E001"]


def test_default_page_size_above_the_maximum_is_e003(settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 200
    settings.MCP_MAX_PAGE_SIZE = 100
    assert check_settings() == [
        Error(
            "MCP_DEFAULT_PAGE_SIZE (200) is larger than MCP_MAX_PAGE_SIZE (100).",
            hint="Lower MCP_DEFAULT_PAGE_SIZE or raise MCP_MAX_PAGE_SIZE; "
            "pages never hold more than MCP_MAX_PAGE_SIZE items.",
            id="django_mcp.E003",
        )
    ]


def test_page_sizes_are_only_compared_when_both_are_valid(settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 200
    settings.MCP_MAX_PAGE_SIZE = "100"
    assert [m.id for m in check_settings()] == ["django_mcp.E001"]


# ------------------------------------------------------------------ tasks


@pytest.mark.parametrize("name", ["MCP_TASK_TTL", "MCP_TASK_POLL_INTERVAL"])
def test_task_durations_may_be_none_but_not_zero_or_text(settings: Any, name: str) -> None:
    setattr(settings, name, None)
    assert check_settings() == []
    setattr(settings, name, 0)
    assert [message.id for message in check_settings()] == ["django_mcp.E002"]
    setattr(settings, name, "1h")
    assert [message.id for message in check_settings()] == ["django_mcp.E001"]


@pytest.mark.parametrize(
    "name",
    [
        "MCP_MAX_TASKS_PER_CLIENT",
        "MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT",
        "MCP_TASK_THREADS",
        "MCP_TASK_LEASE_TIMEOUT",
    ],
)
def test_task_limits_must_be_positive_numbers(settings: Any, name: str) -> None:
    setattr(settings, name, 0)
    assert [message.id for message in check_settings()] == ["django_mcp.E002"]
    setattr(settings, name, "many")
    assert [message.id for message in check_settings()] == ["django_mcp.E001"]


def test_no_task_quota_may_be_none(settings: Any) -> None:
    settings.MCP_MAX_TASKS_PER_CLIENT = None
    settings.MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT = None
    settings.MCP_TASK_RATE_LIMIT = None

    assert check_settings() == []


# ------------------------------------------------------------------ E006


def test_misspelt_setting_is_e006_with_a_suggestion(settings: Any) -> None:
    settings.MCP_MAX_REQUST_SIZE = 10
    assert check_settings() == [
        Error(
            "MCP_MAX_REQUST_SIZE is not a django_mcp setting.",
            hint="Did you mean MCP_MAX_REQUEST_SIZE?",
            id="django_mcp.E006",
        )
    ]


def test_unknown_setting_without_a_close_name_is_e006(settings: Any) -> None:
    settings.MCP_FLUX_CAPACITOR = True
    assert check_settings() == [
        Error(
            "MCP_FLUX_CAPACITOR is not a django_mcp setting.",
            hint="Remove it, or see the list of django_mcp settings in the documentation.",
            id="django_mcp.E006",
        )
    ]


# ------------------------------------------------------- E034 - E037


@pytest.mark.parametrize("name", ["MCP_TASKS_EXTENSION", "MCP_SKILLS_EXTENSION"])
def test_an_extension_setting_that_is_not_a_bool_is_e040(settings: Any, name: str) -> None:
    setattr(settings, name, "off")

    assert check_settings() == [
        Error(
            f"{name} must be True or False, got 'off'.",
            hint="True (the default) serves this Beta extension to the servers that offer it; "
            "False stops advertising it and answers its methods -32601.",
            id="django_mcp.E040",
        )
    ]


# ---------------------------------------------------------- call_command


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_command_fails_on_django_mcp_errors(settings: Any) -> None:
    settings.MCP_MAX_PAGE_SIZE = -1
    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    assert "(django_mcp.E002) MCP_MAX_PAGE_SIZE must be greater than zero, got -1." in str(info.value)
    assert "HINT: Set MCP_MAX_PAGE_SIZE to a positive value; the default is 100." in str(info.value)
