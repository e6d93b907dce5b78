"""System checks of the audit and telemetry settings (E034-E037)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error

from django_mcp.checks import check_settings

# ------------------------------------------------------- E034 - E037


@pytest.mark.parametrize("mode", [None, "off", "writes", "all"])
def test_the_audit_modes_pass(settings: Any, mode: Any) -> None:
    settings.MCP_AUDIT = mode

    assert check_settings() == []


def test_an_unknown_audit_mode_is_e034(settings: Any) -> None:
    settings.MCP_AUDIT = "everything"

    assert check_settings() == [
        Error(
            "MCP_AUDIT must be None, 'off', 'writes' or 'all', got 'everything'.",
            hint="'writes' records calls of tools not marked readOnlyHint, 'all' every request; "
            "None or 'off' records nothing (the default).",
            id="django_mcp.E034",
        )
    ]


def test_a_redact_setting_that_is_not_a_list_is_e035(settings: Any) -> None:
    settings.MCP_AUDIT_REDACT = "password"

    [message] = check_settings()
    assert message.id == "django_mcp.E035"
    assert message.msg == "MCP_AUDIT_REDACT must be a list of regular expressions, got 'password'."


def test_each_redact_pattern_that_does_not_compile_is_e035(settings: Any) -> None:
    settings.MCP_AUDIT_REDACT = ["token", "[unclosed", "(also"]

    messages = check_settings()
    assert [message.id for message in messages] == ["django_mcp.E035", "django_mcp.E035"]
    assert messages[0].msg.startswith("MCP_AUDIT_REDACT entry '[unclosed' is not a regular expression: ")
    assert messages[0].hint == "Fix the expression (Python's re syntax); until then it redacts nothing."


@pytest.mark.parametrize("days", [0, -1, "90", True, float("inf")])
def test_a_retention_that_is_not_a_positive_number_of_days_is_e036(settings: Any, days: Any) -> None:
    settings.MCP_AUDIT_RETENTION_DAYS = days

    assert check_settings() == [
        Error(
            f"MCP_AUDIT_RETENTION_DAYS must be None or a positive number of days, got {days!r}.",
            hint="manage.py mcp_prune_audit deletes audit entries older than this many days; "
            "None keeps them forever. The default is 90.",
            id="django_mcp.E036",
        )
    ]


@pytest.mark.parametrize("days", [None, 1, 0.5, 3650])
def test_a_retention_of_none_or_positive_days_passes(settings: Any, days: Any) -> None:
    settings.MCP_AUDIT_RETENTION_DAYS = days

    assert check_settings() == []


def test_a_telemetry_setting_that_is_not_a_bool_is_e037(settings: Any) -> None:
    settings.MCP_TELEMETRY = "yes"

    assert check_settings() == [
        Error(
            "MCP_TELEMETRY must be True or False, got 'yes'.",
            hint="True (the default) emits OpenTelemetry spans and metrics when a provider is "
            "configured; False never does.",
            id="django_mcp.E037",
        )
    ]
