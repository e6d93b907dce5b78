"""System checks: each django_mcp check ID, as exact lists of messages.

Settings are changed with pytest-django's ``settings`` fixture; servers are
put straight into ``registry._registry`` (between ``snapshot()`` and
``restore()``) because ``web()``/``local()`` refuse servers that do not
compile.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import Error, Warning, run_checks
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from django_mcp import AppResource, Csp, McpResponse, Resource, Server, Tool
from django_mcp.checks import check_app_origins, check_deploy, check_servers, check_settings
from django_mcp.events.base import EventBackend
from django_mcp.events.memory import MemoryEventBackend
from django_mcp.registry import registry
from django_mcp.server._json_schema import INSTALL_HINT
from django_mcp.server.compiler import compile_server

HERE = __name__  # importable: pytest registers this module in sys.modules

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


# ------------------------------------------------------------- fixtures


class SilentBackend(EventBackend):
    """An event backend that is not the in-process one (for W002)."""


class ReportingBackend(EventBackend):
    """An event backend with a check message of its own."""

    def check(self, **kwargs: Any) -> list[Any]:
        return [Warning("Reporting backend says hi.", hint="Nothing to do.", id="tests.W001")]


class BrokenBackend(EventBackend):
    """An event backend that cannot be created."""

    def __init__(self) -> None:
        raise ImproperlyConfigured("BrokenBackend needs a service that is not configured")


class TokenAuthenticator:
    def authenticate(self, request: Any) -> Any:
        return None


class NotAnAuthenticator:
    pass


@pytest.fixture(autouse=True)
def servers() -> Iterator[None]:
    """Give every test an empty registry it may fill freely, restored afterwards.

    Empty, so that the test project's own servers (the demo library has task
    tools: W006, E023, E024) never add messages to a test's, and servers a
    URLconf mounted with ``as_view()`` are set aside meanwhile.
    """
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}, "view": {}})
    try:
        yield
    finally:
        registry.restore(saved)


def _compile_error(server: type[Server]) -> str:
    with pytest.raises(ImproperlyConfigured) as info:
        compile_server(server)
    return str(info.value)


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


# ------------------------------------------------------------------ E007


def test_session_cache_missing_from_caches_is_e007(settings: Any) -> None:
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_settings() == [
        Error(
            "MCP_SESSION_CACHE 'sessions' is not an alias in CACHES.",
            hint="Set MCP_SESSION_CACHE to one of the configured caches ('default'), "
            "or add that alias to CACHES.",
            id="django_mcp.E007",
        )
    ]


def test_session_cache_naming_a_configured_alias_passes(settings: Any) -> None:
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "sessions": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "s"},
    }
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_settings() == []


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


@pytest.mark.parametrize("name", ["NotAnAuthenticator", "_compile_error"])
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


# ------------------------------------------------------------------ E015


class EchoTool(Tool):
    name = "echo"

    def handle(self) -> McpResponse:
        return McpResponse.text("echo")


class OtherEchoTool(Tool):
    name = "echo"

    def handle(self) -> McpResponse:
        return McpResponse.text("another echo")


class DuplicateToolServer(Server):
    tools = (EchoTool, OtherEchoTool)


class NoHandlerTool(Tool):
    name = "no-handler"


class MissingHandlerServer(Server):
    tools = (NoHandlerTool,)


class BadTemplateResource(Resource):
    uri_template = "demo://items/{id"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable
        return McpResponse.text(id)


class BadTemplateServer(Server):
    resources = (BadTemplateResource,)


class BadSchemaTool(Tool):
    name = "bad-schema"
    input = {"type": "array"}

    def handle(self) -> McpResponse:
        return McpResponse.text("never")


class BadSchemaServer(Server):
    tools = (BadSchemaTool,)


class GoodServer(Server):
    tools = (EchoTool,)


@pytest.mark.parametrize(
    ("kind", "server"),
    [
        ("web", DuplicateToolServer),
        ("web", MissingHandlerServer),
        ("local", BadTemplateServer),
        ("local", BadSchemaServer),
    ],
)
def test_registered_server_that_does_not_compile_is_e015(
    servers: None, kind: str, server: type[Server]
) -> None:
    registry._registry[kind]["broken"] = server
    registry._registry["web"]["good"] = GoodServer
    detail = _compile_error(server)
    assert check_servers() == [
        Error(
            f"{kind} server 'broken' ({HERE}.{server.__qualname__}) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=server,
            id="django_mcp.E015",
        )
    ]


class RawSchemaTool(Tool):
    name = "raw-schema"
    input = {"type": "object", "properties": {"q": {"type": "string"}}}

    def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text("never")


def test_raw_json_schema_tool_without_the_jsonschema_extra_is_e015(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # as if the extra were not installed
    server = type("RawSchemaServer", (Server,), {"tools": (RawSchemaTool,), "__module__": HERE})
    registry._registry["web"]["raw"] = server
    detail = _compile_error(server)
    assert f"{HERE}.RawSchemaTool.input" in detail
    assert INSTALL_HINT in detail
    assert check_servers() == [
        Error(
            f"web server 'raw' ({HERE}.RawSchemaServer) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=server,
            id="django_mcp.E015",
        )
    ]


class IdentityServer(Server):
    name = "identity"
    login_required = True
    tools = (EchoTool,)


def _without_auth_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.apps import apps

    installed = apps.is_installed
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "django.contrib.auth" and installed(name))


def test_a_server_needing_identity_without_the_auth_app_is_e018(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_auth_app(monkeypatch)
    registry._registry["web"]["identity"] = IdentityServer
    registry._registry["web"]["good"] = GoodServer  # needs no identity: fine

    flagged = {message.obj for message in check_servers() if message.id == "django_mcp.E018"}
    assert IdentityServer in flagged
    assert GoodServer not in flagged


def test_registered_object_that_is_not_a_server_is_e015(servers: None) -> None:
    registry._registry["local"]["tool"] = EchoTool  # type: ignore[assignment]  # deliberately wrong
    assert check_servers() == [
        Error(
            f"local server 'tool' is {EchoTool!r}, not a Server subclass.",
            hint="Register a subclass of django_mcp.Server.",
            obj=EchoTool,
            id="django_mcp.E015",
        )
    ]


def test_servers_registered_normally_pass(servers: None) -> None:
    registry.web("good", GoodServer)
    registry.local("good", GoodServer)
    assert check_servers() == []


# ----------------------------------------------------------- W001 / W002


W001_HINT = (
    "List the origins of browser clients you trust, e.g. "
    'MCP_ALLOWED_ORIGINS = ["https://app.example.com"]; clients that send no '
    "Origin header are not affected."
)


#: Sessions in a cache of their own that every worker shares (no W004/W005).
SHARED_CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "mcp-sessions": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/1",
    },
}


@pytest.fixture
def shared_sessions(settings: Any) -> None:
    """Keep sessions in a shared cache of their own, so W004 and W005 stay quiet."""
    settings.CACHES = SHARED_CACHES
    settings.MCP_SESSION_CACHE = "mcp-sessions"


@pytest.fixture
def shared_backend(settings: Any, shared_sessions: None) -> None:
    """Use an event backend that is not in-process, so only W001 is tested."""
    settings.MCP_EVENT_BACKEND = f"{HERE}.SilentBackend"


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


def test_deploy_checks_only_run_with_deploy() -> None:
    assert [m.id for m in run_checks(tags=["django_mcp"]) if m.id == "django_mcp.W002"] == []
    ids = [m.id for m in run_checks(tags=["django_mcp"], include_deployment_checks=True)]
    assert "django_mcp.W002" in ids


# ----------------------------------------------------------- W004 / W005

LOCMEM = "django.core.cache.backends.locmem.LocMemCache"
W005_HINT = (
    "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, Memcached, the database cache); "
    'with a single process, add "django_mcp.W005" to SILENCED_SYSTEM_CHECKS.'
)


def w004(alias: str, backend: str) -> Warning:
    return Warning(
        f"MCP_SESSION_CACHE {alias!r} is stored with the rate-limit counters (cache 'default') in "
        f"{backend}, which culls entries past MAX_ENTRIES: creating sessions can evict rate-limit "
        "counters and other sessions.",
        hint='Give sessions a cache alias of their own, e.g. CACHES["mcp-sessions"] on a shared Redis '
        'or Memcached server and MCP_SESSION_CACHE = "mcp-sessions".',
        id="django_mcp.W004",
    )


def w005(alias: str) -> Warning:
    return Warning(
        f"MCP_SESSION_CACHE {alias!r} uses LocMemCache: each worker process has its own, so a "
        "2025-11-25 session is unknown (404) on every worker but the one that created it.",
        hint=W005_HINT,
        id="django_mcp.W005",
    )


@pytest.fixture
def quiet_events(settings: Any) -> None:
    """Leave the sessions as the test sets them; silence W001 and W002."""
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.MCP_EVENT_BACKEND = f"{HERE}.SilentBackend"


def test_sessions_in_the_default_local_memory_cache_are_w004_and_w005(
    settings: Any, quiet_events: None
) -> None:
    settings.CACHES = {"default": {"BACKEND": LOCMEM}}
    settings.MCP_SESSION_CACHE = "default"
    assert check_deploy() == [w004("default", "LocMemCache"), w005("default")]


def test_alias_sharing_the_default_local_memory_store_is_w004(settings: Any, quiet_events: None) -> None:
    # Two LocMemCache aliases with one LOCATION ("" unless set) are one store.
    settings.CACHES = {"default": {"BACKEND": LOCMEM}, "sessions": {"BACKEND": LOCMEM}}
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [w004("sessions", "LocMemCache"), w005("sessions")]


@pytest.mark.parametrize(
    ("backend", "name"),
    [
        ("django.core.cache.backends.filebased.FileBasedCache", "FileBasedCache"),
        ("django.core.cache.backends.db.DatabaseCache", "DatabaseCache"),
    ],
)
def test_sessions_in_a_culling_shared_default_cache_are_w004(
    settings: Any, quiet_events: None, backend: str, name: str
) -> None:
    settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": "mcp_cache"}}
    settings.MCP_SESSION_CACHE = "default"
    assert check_deploy() == [w004("default", name)]


def test_sessions_in_a_local_memory_cache_of_their_own_are_w005(settings: Any, quiet_events: None) -> None:
    settings.CACHES = {"default": {"BACKEND": LOCMEM}, "sessions": {"BACKEND": LOCMEM, "LOCATION": "s"}}
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [w005("sessions")]


def test_sessions_in_a_dummy_cache_are_w005(settings: Any, quiet_events: None) -> None:
    settings.CACHES = {
        "default": {"BACKEND": LOCMEM},
        "sessions": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
    }
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [
        Warning(
            "MCP_SESSION_CACHE 'sessions' uses DummyCache: it stores nothing, so every 2025-11-25 "
            "session is unknown (404) right after initialize.",
            hint="Point MCP_SESSION_CACHE at a cache every worker shares (Redis, Memcached, "
            "the database cache).",
            id="django_mcp.W005",
        )
    ]


def test_sessions_in_a_shared_cache_of_their_own_pass(
    settings: Any, quiet_events: None, shared_sessions: None
) -> None:
    assert check_deploy() == []


# ---------------------------------------------------------- call_command


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_command_fails_on_django_mcp_errors(settings: Any) -> None:
    settings.MCP_MAX_PAGE_SIZE = -1
    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    assert "(django_mcp.E002) MCP_MAX_PAGE_SIZE must be greater than zero, got -1." in str(info.value)
    assert "HINT: Set MCP_MAX_PAGE_SIZE to a positive value; the default is 100." in str(info.value)


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_command_reports_compile_errors(servers: None) -> None:
    registry._registry["web"]["broken"] = DuplicateToolServer
    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    assert "(django_mcp.E015) web server 'broken'" in str(info.value)


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_deploy_command_prints_warnings(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["mcp.example.com"]
    stderr = io.StringIO()
    call_command("check", "--deploy", "--tag", "django_mcp", stdout=io.StringIO(), stderr=stderr)
    assert "(django_mcp.W001)" in stderr.getvalue()
    assert "(django_mcp.W002)" in stderr.getvalue()
    assert "(django_mcp.W004)" in stderr.getvalue()
    assert "(django_mcp.W005)" in stderr.getvalue()


# ------------------------------------------------------------------ W003


class LoginServer(Server):
    tools = (EchoTool,)
    login_required = True


def test_local_server_requiring_login_is_w003(servers: None) -> None:
    registry.local("guarded", LoginServer)
    registry.web("guarded", LoginServer)  # over HTTP login_required works: no warning
    assert check_servers() == [
        Warning(
            f"local server 'guarded' ({HERE}.LoginServer) sets login_required, "
            "but STDIO does not enforce it (it is an HTTP rule).",
            hint="Whoever can start `manage.py mcp_stdio` uses every component; run it with "
            "--user USERNAME so that user's permissions apply, or publish the server with "
            "web() only.",
            obj=LoginServer,
            id="django_mcp.W003",
        )
    ]


# ------------------------------------------------------------------ W016


class PropertyInstructionsServer(Server):
    tools = (EchoTool,)

    @property
    def instructions(self) -> str:  # type: ignore[override]
        return "built at run time"


class CallableInstructionsServer(Server):
    tools = (EchoTool,)
    instructions = staticmethod(lambda: "from the database")  # type: ignore[assignment]


class ConstantInstructionsServer(Server):
    tools = (EchoTool,)
    instructions = "Use the echo tool."


def test_instructions_that_are_not_a_constant_string_are_w016(servers: None) -> None:
    registry.web("property", PropertyInstructionsServer)
    registry.web("callable", CallableInstructionsServer)
    registry.web("constant", ConstantInstructionsServer)

    messages = [message for message in check_servers() if message.id == "django_mcp.W016"]

    assert [(message.msg, message.obj) for message in messages] == [
        (
            f"web server 'property' ({HERE}.PropertyInstructionsServer) declares instructions as a "
            "property, not a constant string.",
            PropertyInstructionsServer,
        ),
        (
            f"web server 'callable' ({HERE}.CallableInstructionsServer) declares instructions as a "
            "staticmethod, not a constant string.",
            CallableInstructionsServer,
        ),
    ]
    assert "prompt-injection" in messages[0].hint


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
    import django_mcp.tasks

    def missing() -> Any:
        raise ImproperlyConfigured("no framework")

    monkeypatch.setattr(django_mcp.tasks, "framework", missing)
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


class AdminToolsServer(Server):
    from django_mcp.contrib.admin import ModelAdminTools
    from testproject.demo.admin import AuthorAdmin

    tools = ModelAdminTools(AuthorAdmin, actions=("list",))


def test_admin_tools_without_the_admin_app_are_e026(servers: None, settings: Any) -> None:
    registry.restore({"web": {"books": AdminToolsServer}, "local": {}})
    registry._registry["web"]["good"] = GoodServer
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "django.contrib.admin"]

    assert check_servers() == [
        Error(
            "web server 'books' serves author-list, which need 'django.contrib.admin', but it is not in "
            "INSTALLED_APPS.",
            hint="Add 'django.contrib.admin' (and the apps it needs) to INSTALLED_APPS: the tools run the "
            "admin's code and log their writes in its LogEntry table.",
            obj=AdminToolsServer,
            id="django_mcp.E026",
        )
    ]


def test_viewset_tools_without_rest_framework_are_e025(
    servers: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")
    import importlib.util

    from django_mcp.contrib.drf import ViewSetTools
    from testproject.shelf.api import VolumeViewSet

    class ApiServer(Server):
        tools = ViewSetTools(VolumeViewSet, actions=("list", "retrieve"))

    registry.restore({"web": {"api": ApiServer}, "local": {}})
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "rest_framework"]
    hint = "pip install 'django-mcp-toolkit[drf]' and add 'rest_framework' to INSTALLED_APPS."
    not_listed = check_servers()
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "rest_framework" else find_spec(name, *a),
    )
    not_installed = check_servers()

    message = "web server 'api' serves volume-list, volume-retrieve, which need 'rest_framework', but it is "
    assert not_listed == [
        Error(message + "not in INSTALLED_APPS.", hint=hint, obj=ApiServer, id="django_mcp.E025")
    ]
    assert not_installed == [
        Error(message + "not installed.", hint=hint, obj=ApiServer, id="django_mcp.E025")
    ]


def test_viewset_tools_refuse_to_build_without_rest_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from django_mcp.contrib.drf import ViewSetTools

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ImproperlyConfigured, match=r"needs Django REST framework: pip install"):
        ViewSetTools(object)


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
    import django_mcp.tasks
    from django_mcp import conf

    def missing() -> Any:
        raise ImproperlyConfigured("no framework")

    monkeypatch.setattr(conf, "_task_alias", lambda: None)  # as with no TASKS setting
    monkeypatch.setattr(django_mcp.tasks, "framework", missing)
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


# ------------------------------------------------- servers mounted with as_view()


def test_a_server_mounted_with_as_view_that_does_not_compile_is_e015(servers: None) -> None:
    registry.mount(DuplicateToolServer)  # what a URLconf's DuplicateToolServer.as_view() does
    detail = _compile_error(DuplicateToolServer)
    key = f"{HERE}.DuplicateToolServer"

    assert check_servers() == [
        Error(
            f"as_view() server {key!r} ({key}) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=DuplicateToolServer,
            id="django_mcp.E015",
        )
    ]


@pytest.mark.django_db
def test_check_command_reports_a_broken_as_view_server(servers: None) -> None:
    registry.mount(DuplicateToolServer)

    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())

    assert f"(django_mcp.E015) as_view() server '{HERE}.DuplicateToolServer'" in str(info.value)


def test_a_mounted_server_gets_the_checks_a_registered_one_gets(servers: None, monkeypatch: Any) -> None:
    from django.apps import apps

    installed = apps.is_installed
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "django.contrib.auth" and installed(name))
    registry.mount(IdentityServer)

    assert [message.id for message in check_servers() if message.obj is IdentityServer] == ["django_mcp.E018"]


# ------------------------------------------------------------------ W013


def test_commonmiddleware_without_the_json_handler400_is_w013(settings: Any) -> None:
    from testproject.conformance.mcp import ConformanceServer

    settings.ROOT_URLCONF = "tests.test_checks_urls_without_handler400"
    # What loading that URLconf does, done again: the fixture emptied the registry.
    registry.mount(ConformanceServer)

    assert [m.id for m in check_deploy() if m.id == "django_mcp.W013"] == ["django_mcp.W013"]


def test_the_json_handler400_silences_w013() -> None:
    # testproject.urls sets handler400 = "django_mcp.views.bad_request".
    assert [m.id for m in check_deploy() if m.id == "django_mcp.W013"] == []


# --------------------------------------------- skills (E028-E031, E038, W009, W010)


def test_skills_dirs_that_is_not_a_list_is_e028(settings: Any) -> None:
    settings.MCP_SKILLS_DIRS = "skills"
    assert check_settings() == [
        Error(
            "MCP_SKILLS_DIRS must be a list of folder paths, got 'skills'.",
            hint='Write it as a list, e.g. MCP_SKILLS_DIRS = [BASE_DIR / "skills"].',
            id="django_mcp.E028",
        )
    ]


def test_each_skills_dir_that_is_not_a_folder_is_e028(settings: Any, tmp_path: Any) -> None:
    settings.MCP_SKILLS_DIRS = [tmp_path, tmp_path / "missing", 7]
    hint = (
        "Each entry is a folder holding one sub-folder per skill "
        "(<folder>/<name>/SKILL.md); create it or remove the entry."
    )
    assert check_settings() == [
        Error(
            f"MCP_SKILLS_DIRS[1] ({tmp_path / 'missing'!r}) is not an existing folder.",
            hint=hint,
            id="django_mcp.E028",
        ),
        Error("MCP_SKILLS_DIRS[2] (7) is not an existing folder.", hint=hint, id="django_mcp.E028"),
    ]


def test_skills_storage_that_is_not_an_alias_is_e028(settings: Any) -> None:
    settings.MCP_SKILLS_STORAGE = "bucket"
    assert check_settings() == [
        Error(
            "MCP_SKILLS_STORAGE 'bucket' is not an alias in STORAGES.",
            hint="Set it to None or to one of the configured storages ('default', 'staticfiles'), "
            "whose root holds one folder per skill (<name>/SKILL.md).",
            id="django_mcp.E028",
        )
    ]


def test_skills_storage_naming_a_storage_passes(settings: Any) -> None:
    settings.MCP_SKILLS_STORAGE = "default"
    assert check_settings() == []


def _skills_server(skills: Any) -> type[Server]:
    return type("SkillsServer", (Server,), {"skills": skills, "__module__": HERE})


SKILL_HINT = (
    "Fix the skill's folder as the message says; the server cannot answer any request until every "
    "skill it serves is valid."
)


def test_invalid_and_unknown_skills_are_e030_and_e031_instead_of_e015(
    servers: None, settings: Any, tmp_path: Any
) -> None:
    from tests.skill_folders import skill_md, write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    write_skill(tmp_path, "renamed", skill_md_text=skill_md("other"))
    server = _skills_server(("renamed", "absent"))
    registry._registry["web"]["skills"] = server

    [invalid, unknown] = check_servers()

    where = f"web server 'skills' ({HERE}.SkillsServer)"
    assert invalid == Error(
        f"{where}: skill 'renamed' in MCP_SKILLS_DIRS[0] ({tmp_path}) is invalid: SKILL.md names the skill "
        "'other' but its folder is 'renamed': they must be equal (rename one).",
        hint=SKILL_HINT,
        obj=server,
        id="django_mcp.E030",
    )
    assert (unknown.id, unknown.obj) == ("django_mcp.E031", server)
    assert unknown.msg.startswith(f"{where}: no skill named 'absent' was found (searched: MCP_SKILLS_DIRS[0]")
    assert unknown.hint == (
        "Create absent/SKILL.md in an installed app's skills/ folder, in a folder of MCP_SKILLS_DIRS or in "
        "the MCP_SKILLS_STORAGE storage, or correct the name."
    )


def test_skills_without_pyyaml_are_e029(servers: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from django_mcp.server import _frontmatter

    _frontmatter._loader.cache_clear()
    monkeypatch.setattr(_frontmatter, "_import", _missing_module)
    server = _skills_server(("release-notes",))
    registry._registry["web"]["skills"] = server
    try:
        messages = check_servers()
    finally:
        monkeypatch.undo()
        _frontmatter._loader.cache_clear()

    assert messages == [
        Error(
            f"web server 'skills' ({HERE}.SkillsServer): Parsing SKILL.md frontmatter needs PyYAML: "
            'pip install "django-mcp-toolkit[skills]".',
            hint='Install it: pip install "django-mcp-toolkit[skills]"',
            obj=server,
            id="django_mcp.E029",
        )
    ]


def _missing_module(name: str) -> Any:
    raise ImportError(name)


def test_skill_files_too_large_to_read_are_w009(servers: None, settings: Any, tmp_path: Any) -> None:
    from tests.skill_folders import write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    settings.MCP_MAX_RESPONSE_SIZE = 1000
    write_skill(tmp_path, "heavy", {"text.md": "x" * 1000, "long.md": "x" * 1001, "blob.bin": b"\xff" * 751})
    server = _skills_server(("heavy",))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Warning(
            f"web server 'skills': skill file skill://heavy/{path} is {size} bytes; a read of it needs more "
            "than MCP_MAX_RESPONSE_SIZE (1000 bytes) and fails.",
            hint="Raise MCP_MAX_RESPONSE_SIZE, or split or shrink the file.",
            obj=server,
            id="django_mcp.W009",
        )
        for path, size in (("blob.bin", 751), ("long.md", 1001))
    ]


def test_a_skill_with_a_link_outside_its_folder_is_e038(servers: None, settings: Any, tmp_path: Any) -> None:
    import os

    from tests.skill_folders import write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    skills = tmp_path / "skills"
    settings.MCP_SKILLS_DIRS = [skills]
    folder = write_skill(skills, "good")
    write_skill(skills, "fine")
    (tmp_path / ".env").write_text("SECRET_KEY=x\n")
    os.symlink(tmp_path / ".env", folder / "ref.md")
    server = _skills_server(("good", "fine"))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Error(
            f"web server 'skills': skill 'good' in MCP_SKILLS_DIRS[0] ({skills}) is not served: good/ref.md "
            f"leads to {tmp_path / '.env'}, outside the skill's folder.",
            hint="A skill's files must really be inside its folder: replace the symbolic link with a copy "
            "of what it points at, or remove it. To serve a skill kept elsewhere, add the folder holding it "
            "to MCP_SKILLS_DIRS.",
            obj=server,
            id="django_mcp.E038",
        )
    ]


def test_reserved_metadata_keys_are_w010(servers: None, settings: Any, tmp_path: Any) -> None:
    from tests.skill_folders import skill_md, write_skill

    pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    extra = 'metadata:\n  io.modelcontextprotocol/trust: "high"\n  team: docs\n'
    write_skill(tmp_path, "claims", skill_md_text=skill_md("claims", extra=extra))
    server = _skills_server(("claims",))
    registry._registry["web"]["skills"] = server

    assert check_servers() == [
        Warning(
            "web server 'skills': skill skill://claims/SKILL.md uses the reserved metadata keys "
            "'io.modelcontextprotocol/trust'.",
            hint="Keys starting with io.modelcontextprotocol/ are reserved for MCP extensions, which "
            "define none yet: rename them.",
            obj=server,
            id="django_mcp.W010",
        )
    ]


# ------------------------------------------------------------- MCP Apps


def test_an_app_loading_from_an_undeclared_origin_is_w015(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "board.html").write_text(
        '<script src="https://cdn.example.com/chart.js"></script><img src="https://img.example.com/a.png">'
        '<script>fetch("https://api.example.com/orders")</script>',
        encoding="utf-8",
    )
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]

    class BoardApp(AppResource):
        name = "board"
        template_name = "board.html"
        csp = Csp(resource_domains=("https://img.example.com",))

    class BoardTool(Tool):
        name = "board"
        app = BoardApp

        def handle(self) -> McpResponse:
            return McpResponse.text("board")

    class BoardServer(Server):
        name = "boards"
        tools = [BoardTool]

    registry._registry["web"]["boards"] = BoardServer

    assert check_app_origins() == [
        Warning(
            f"The MCP App {HERE}.{BoardApp.__qualname__} loads from https://cdn.example.com (board.html), "
            "which its csp does not declare: hosts block it.",
            hint="Add 'https://cdn.example.com' to the App's Csp(resource_domains=...), or inline the file "
            "with {% mcp_inline_static %}.",
            obj=BoardApp,
            id="django_mcp.W015",
        ),
        Warning(
            f"The MCP App {HERE}.{BoardApp.__qualname__} loads from https://api.example.com (board.html), "
            "which its csp does not declare: hosts block it.",
            hint="Add 'https://api.example.com' to the App's Csp(connect_domains=...), or inline the file "
            "with {% mcp_inline_static %}.",
            obj=BoardApp,
            id="django_mcp.W015",
        ),
    ]


def _app_server(template_name: str, *, listed: bool) -> tuple[type[Server], type[AppResource]]:
    class LedgerApp(AppResource):
        pass

    LedgerApp.template_name = template_name

    class LedgerTool(Tool):
        app = LedgerApp

        def handle(self) -> McpResponse:
            return McpResponse.text("ledger")

    class LedgerServer(Server):
        name = "ledgers"
        tools = (LedgerTool,)
        resources = (LedgerApp,) if listed else ()

    return LedgerServer, LedgerApp


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "linked-only"])
def test_an_app_whose_template_is_missing_is_e039(settings: Any, tmp_path: Any, listed: bool) -> None:  # noqa: FBT001
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger/missing.html", listed=listed)
    registry._registry["web"]["ledgers"] = server

    assert check_servers() == [
        Error(
            f"web server 'ledgers': App ui://ledgers/ledger ({HERE}.{app.__qualname__}) renders template "
            "'ledger/missing.html', which does not exist.",
            hint="Create the template in an app's templates/ folder (or a TEMPLATES DIRS folder), or fix "
            "template_name; `manage.py startmcpapp` writes one to start from.",
            obj=app,
            id="django_mcp.E039",
        )
    ]


def test_an_app_whose_template_does_not_compile_is_e039(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "ledger.html").write_text("<p>{% if %}</p>", encoding="utf-8")
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger.html", listed=False)
    registry._registry["web"]["ledgers"] = server

    [error] = check_servers()
    assert error.id == "django_mcp.E039"
    assert error.obj is app
    assert error.msg.startswith(
        f"web server 'ledgers': App ui://ledgers/ledger ({HERE}.{app.__qualname__}) renders template "
        "'ledger.html', which does not compile ("
    )


def test_an_app_whose_template_loads_passes_and_is_not_rendered(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "ledger.html").write_text("<!DOCTYPE html><p>{{ missing.value }}</p>", encoding="utf-8")
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger.html", listed=True)

    def explode(self: Any) -> dict[str, Any]:
        raise AssertionError("checks must not render an App")

    app.get_context_data = explode  # type: ignore[method-assign]
    registry._registry["web"]["ledgers"] = server

    assert check_servers() == []


# ------------------------------------------------- E015 from manage.py check

BROKEN_APP = """
import os

import django_mcp
from django_mcp import McpResponse, Server, Tool


class PingTool(Tool):
    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("a")


class OtherPingTool(Tool):
    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("b")


class BrokenServer(Server):
    tools = (PingTool, OtherPingTool)


if os.environ["BROKEN"] == "web":
    django_mcp.web("broken", BrokenServer)
"""
BROKEN_URLS = """
import os

from django.urls import include, path

from brokenapp.mcp import BrokenServer

urlpatterns = [path("mcp/", include("django_mcp.urls"))]
if os.environ["BROKEN"] == "view":
    urlpatterns.append(path("broken", BrokenServer.as_view()))
"""
BROKEN_SETTINGS = """
SECRET_KEY = "checks-test"
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django_mcp", "brokenapp"]
ROOT_URLCONF = "brokenurls"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
"""


@pytest.mark.parametrize("how", ["web", "view"])
def test_manage_py_check_reports_a_broken_server_once_without_a_traceback(tmp_path: Path, how: str) -> None:
    (tmp_path / "brokenapp").mkdir()
    (tmp_path / "brokenapp" / "__init__.py").write_text("")
    (tmp_path / "brokenapp" / "mcp.py").write_text(BROKEN_APP)
    (tmp_path / "brokenurls.py").write_text(BROKEN_URLS)
    (tmp_path / "brokensettings.py").write_text(BROKEN_SETTINGS)
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "BROKEN": how,
        "DJANGO_SETTINGS_MODULE": "brokensettings",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "django", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr

    assert done.returncode == 1
    assert "Traceback" not in output
    assert output.count("duplicate tool 'ping'") == 1
    assert output.count("(django_mcp.E015)") == 1
