"""django_mcp.conf: settings read once, their defaults, and a fresh read after a change."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp.conf import (
    DEFAULT_LIMITS,
    DEFAULTS,
    Limits,
    get_client_ip,
    get_django_settings,
    get_event_namespace,
    get_limits,
    get_setting,
    get_settings,
)


def forwarded_for(request: Any) -> str | None:
    """An ``MCP_CLIENT_IP`` function for these tests."""
    return "198.51.100.1"


def test_an_unknown_setting_name_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="unknown django_mcp setting 'MCP_NOPE'"):
        get_setting("MCP_NOPE")


def test_a_setting_the_project_leaves_out_has_its_default(settings: Any) -> None:
    del settings.MCP_MAX_PAGE_SIZE  # the test project never sets it; make sure

    assert get_setting("MCP_MAX_PAGE_SIZE") == DEFAULTS["MCP_MAX_PAGE_SIZE"] == 100
    assert get_limits() == DEFAULT_LIMITS == Limits()


def test_a_changed_setting_is_read_again(settings: Any) -> None:
    before = get_settings()
    settings.MCP_MAX_PAGE_SIZE = 7
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example"]

    after = get_settings()

    assert before.limits.max_page_size != 7
    assert after.limits.max_page_size == 7 and get_limits().max_page_size == 7
    assert after.allowed_origins == ("https://app.example",)
    assert get_settings() is after  # cached until the next change


@pytest.mark.parametrize(
    ("value", "mode"), [("writes", "writes"), ("all", "all"), ("off", None), ("loud", None)]
)
def test_the_audit_mode_is_writes_all_or_off(settings: Any, value: str, mode: str | None) -> None:
    settings.MCP_AUDIT = value
    assert get_settings().audit == mode


def test_the_beta_extensions_set_to_false_are_not_served(settings: Any) -> None:
    served = get_settings().beta_extensions
    settings.MCP_TASKS_EXTENSION = False

    assert len(get_settings().beta_extensions) == len(served) - 1
    assert get_settings().beta_extensions < served


def test_audit_redact_keeps_only_strings(settings: Any) -> None:
    settings.MCP_AUDIT_REDACT = ["pin", 3, "token"]
    assert get_settings().audit_redact == ("pin", "token")
    settings.MCP_AUDIT_REDACT = "pin"
    assert get_settings().audit_redact == ()


def test_the_task_backend_is_the_one_named_or_default_when_the_project_sets_tasks(settings: Any) -> None:
    settings.MCP_TASK_BACKEND = "jobs"
    assert get_settings().task_backend == "jobs"
    settings.MCP_TASK_BACKEND = None
    assert get_settings().task_backend == "default"  # the test project sets TASKS


def test_the_django_settings_the_endpoint_applies(settings: Any) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.USE_X_FORWARDED_HOST = True

    applied = get_django_settings()

    assert applied.secure_proxy_ssl_header == ("x-forwarded-proto", "https")
    assert applied.use_x_forwarded_host is True
    assert applied.allowed_hosts == tuple(settings.ALLOWED_HOSTS)
    assert applied.session_auth is True and applied.auth_installed is True


def test_debug_with_no_allowed_hosts_allows_what_django_does(settings: Any) -> None:
    settings.DEBUG = True
    settings.ALLOWED_HOSTS = []

    assert get_django_settings().allowed_hosts == (".localhost", "127.0.0.1", "[::1]")


def test_the_client_ip_function_is_a_callable_or_its_dotted_path(settings: Any) -> None:
    settings.MCP_CLIENT_IP = None
    assert get_client_ip() is None
    settings.MCP_CLIENT_IP = f"{__name__}.forwarded_for"
    assert get_client_ip() is forwarded_for
    settings.MCP_CLIENT_IP = forwarded_for
    assert get_client_ip() is forwarded_for


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("tests.no_such_module.ip", "MCP_CLIENT_IP: cannot import 'tests.no_such_module.ip'"),
        (42, "MCP_CLIENT_IP must be a callable or its dotted path, got 42"),
    ],
)
def test_a_client_ip_setting_that_is_no_function_is_improperly_configured(
    settings: Any, value: Any, message: str
) -> None:
    settings.MCP_CLIENT_IP = value
    with pytest.raises(ImproperlyConfigured, match=message):
        get_client_ip()


def test_the_event_namespace_is_the_setting_or_the_redis_db_and_a_hash_of_the_secret(settings: Any) -> None:
    settings.MCP_EVENT_NAMESPACE = "shop"
    assert get_event_namespace() == "shop"

    settings.MCP_EVENT_NAMESPACE = None
    settings.MCP_REDIS_URL = "redis://localhost:6379/3"
    db3 = get_event_namespace()
    settings.SECRET_KEY = "another secret key, long enough for the checks at least"
    other_secret = get_event_namespace()
    settings.MCP_REDIS_URL = "redis://localhost:6379?db=5"

    assert db3.startswith("3.") and len(db3) == 2 + 12
    assert other_secret.startswith("3.") and other_secret != db3
    assert get_event_namespace().startswith("5.")
