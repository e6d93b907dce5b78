"""System checks of authentication backends, the rate limit and resource metadata (E011-E014, E016)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error

from django_mcp.checks import check_settings

HERE = __name__  # importable: pytest registers this module in sys.modules


# ------------------------------------------------------------- fixtures


class TokenAuthenticator:
    def authenticate(self, request: Any) -> Any:
        return None


class NotAnAuthenticator:
    pass


def authenticate(request: Any) -> Any:
    """A function, not a class: refused too."""
    return None


# ----------------------------------------------------------- E011 - E013


def test_authentication_backends_as_a_string_is_e011(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = f"{HERE}.TokenAuthenticator"
    assert check_settings() == [
        Error(
            f"MCP_AUTHENTICATION_BACKENDS must be a list of dotted paths, got '{HERE}.TokenAuthenticator'.",
            hint='Write it as a list, e.g. ["myapp.auth.TokenAuthenticator"].',
            id="django_mcp.E011",
        )
    ]


def test_authentication_backend_that_cannot_be_imported_is_e012(settings: Any) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{HERE}.TokenAuthenticator", f"{HERE}.Nope"]
    assert check_settings() == [
        Error(
            f"MCP_AUTHENTICATION_BACKENDS entry '{HERE}.Nope' cannot be imported: "
            f'Module "{HERE}" does not define a "Nope" attribute/class.',
            hint="Check the dotted path: module path, then the class name.",
            id="django_mcp.E012",
        )
    ]


@pytest.mark.parametrize("name", ["NotAnAuthenticator", "authenticate"])
def test_authentication_backend_without_authenticate_is_e013(settings: Any, name: str) -> None:
    settings.MCP_AUTHENTICATION_BACKENDS = [f"{HERE}.{name}"]
    assert check_settings() == [
        Error(
            f"MCP_AUTHENTICATION_BACKENDS entry '{HERE}.{name}' is not a class with an "
            "authenticate(request) method.",
            hint="Each entry names a class; django_mcp instantiates it without "
            "arguments and calls authenticate(request), which returns a user or None.",
            id="django_mcp.E013",
        )
    ]


# ------------------------------------------------------------------ E014


@pytest.mark.parametrize("rate", ["60", "0/m", "-1/s", "60/week", "", 60, ["60/m"]])
def test_malformed_rate_limit_is_e014(settings: Any, rate: Any) -> None:
    settings.MCP_RATE_LIMIT = rate
    assert check_settings() == [
        Error(
            f"MCP_RATE_LIMIT must be None or a rate like '60/m', got {rate!r}.",
            hint="Write a positive number of calls, a slash and a period: "
            "s (second), m (minute), h (hour) or d (day); None means unlimited.",
            id="django_mcp.E014",
        )
    ]


@pytest.mark.parametrize("rate", [None, "1/s", "60/m", "1000/h", "5/d", "60/min", "1000/hour"])
def test_well_formed_rate_limit_passes(settings: Any, rate: Any) -> None:
    settings.MCP_RATE_LIMIT = rate
    assert check_settings() == []


# ------------------------------------------------------------------ E016


def test_malformed_resource_metadata_is_e016_per_problem(settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = {"authorization_servers": [], "scopes_supported": "mcp"}
    hint = (
        "Give a dict with at least 'authorization_servers' (issuer URLs), "
        "or None to publish no protected resource metadata."
    )
    assert check_settings() == [
        Error(
            "MCP_RESOURCE_METADATA 'authorization_servers' must be a non-empty list of issuer URLs.",
            hint=hint,
            id="django_mcp.E016",
        ),
        Error(
            "MCP_RESOURCE_METADATA 'scopes_supported' must be a list of strings.",
            hint=hint,
            id="django_mcp.E016",
        ),
    ]


def test_resource_metadata_that_is_not_a_dict_is_e016(settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = "https://auth.example.com"
    assert [(m.id, m.msg) for m in check_settings()] == [
        ("django_mcp.E016", "MCP_RESOURCE_METADATA must be a dict, got str.")
    ]


def test_well_formed_resource_metadata_passes(settings: Any) -> None:
    settings.MCP_RESOURCE_METADATA = {"authorization_servers": ["https://auth.example.com"]}
    assert check_settings() == []
