"""System checks of serving over HTTP: origins, client address, Host errors (E004, E005, E017, W001, W013)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error, Warning

from django_mcp.checks import check_deploy, check_settings
from django_mcp.registry import registry
from tests.checks.components import SILENT_BACKEND

HERE = __name__  # importable: pytest registers this module in sys.modules


# ---------------------------------------------------------- E004 / E005


def test_allowed_origins_that_is_not_a_list_is_e004(settings: Any) -> None:
    settings.MCP_ALLOWED_ORIGINS = "https://app.example.com"
    assert check_settings() == [
        Error(
            "MCP_ALLOWED_ORIGINS must be a list of strings, got 'https://app.example.com'.",
            hint='Write it as a list, e.g. MCP_ALLOWED_ORIGINS = ["https://app.example.com"].',
            id="django_mcp.E004",
        )
    ]


def test_malformed_allowed_origins_are_e005_each(settings: Any) -> None:
    settings.MCP_ALLOWED_ORIGINS = [
        "https://app.example.com",
        "HTTPS://Other.Example.com:8443/",
        "app.example.com",
        "https://app.example.com/mcp",
        "ftp://files.example.com",
    ]
    hint = (
        "Write an origin as scheme://host[:port] with an http or https scheme "
        'and no path, e.g. "https://app.example.com".'
    )
    assert check_settings() == [
        Error(f"MCP_ALLOWED_ORIGINS entry {bad!r} is not an origin.", hint=hint, id="django_mcp.E005")
        for bad in ("app.example.com", "https://app.example.com/mcp", "ftp://files.example.com")
    ]


# ------------------------------------------------------------------ E017


def forwarded_for(request: Any) -> str | None:
    return None


@pytest.mark.parametrize("value", [None, f"{HERE}.forwarded_for", forwarded_for])
def test_client_ip_may_be_none_a_function_or_its_path(settings: Any, value: Any) -> None:
    settings.MCP_CLIENT_IP = value
    assert check_settings() == []


@pytest.mark.parametrize("value", [f"{HERE}.no_such_function", f"{HERE}.HERE", 42])
def test_client_ip_that_is_not_a_function_is_e017(settings: Any, value: Any) -> None:
    settings.MCP_CLIENT_IP = value
    assert [m.id for m in check_settings()] == ["django_mcp.E017"]


# ----------------------------------------------------------- W001 / W002


W001_HINT = (
    "List the origins of browser clients you trust, e.g. "
    'MCP_ALLOWED_ORIGINS = ["https://app.example.com"]; clients that send no '
    "Origin header are not affected."
)


@pytest.fixture
def shared_backend(settings: Any, shared_sessions: None) -> None:
    """Use an event backend that is not in-process, so only W001 is tested."""
    settings.MCP_EVENT_BACKEND = SILENT_BACKEND


def test_public_host_without_allowed_origins_is_w001(settings: Any, shared_backend: None) -> None:
    settings.ALLOWED_HOSTS = ["localhost", "mcp.example.com", ".example.org", "testserver"]
    settings.MCP_ALLOWED_ORIGINS = []
    assert check_deploy() == [
        Warning(
            "MCP_ALLOWED_ORIGINS is empty but ALLOWED_HOSTS serves 'mcp.example.com', '.example.org': "
            "browser-based MCP clients on those hosts will be refused (403).",
            hint=W001_HINT,
            id="django_mcp.W001",
        )
    ]


def test_wildcard_host_without_allowed_origins_is_w001(settings: Any, shared_backend: None) -> None:
    settings.ALLOWED_HOSTS = ["*"]
    assert [m.id for m in check_deploy()] == ["django_mcp.W001"]


@pytest.mark.parametrize(
    "hosts",
    [
        ["localhost", "127.0.0.1", "[::1]", "testserver"],
        ["localhost:8000", "[::1]:8000", "api.localhost"],
        [],
    ],
)
def test_loopback_hosts_need_no_allowed_origins(
    settings: Any, shared_backend: None, hosts: list[str]
) -> None:
    settings.ALLOWED_HOSTS = hosts
    assert check_deploy() == []


def test_public_host_with_allowed_origins_passes(settings: Any, shared_backend: None) -> None:
    settings.ALLOWED_HOSTS = ["mcp.example.com"]
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example.com"]
    assert check_deploy() == []


# ------------------------------------------------------------------ W013


def test_commonmiddleware_without_the_json_handler400_is_w013(settings: Any) -> None:
    from testproject.conformance.mcp import ConformanceServer

    settings.ROOT_URLCONF = "tests.checks.urls_without_handler400"
    # What loading that URLconf does, done again: the fixture emptied the registry.
    registry.mount(ConformanceServer)

    assert [m.id for m in check_deploy() if m.id == "django_mcp.W013"] == ["django_mcp.W013"]


def test_the_json_handler400_silences_w013() -> None:
    # testproject.urls sets handler400 = "django_mcp.views.bad_request".
    assert [m.id for m in check_deploy() if m.id == "django_mcp.W013"] == []
