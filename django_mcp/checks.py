"""System checks for django_mcp settings and registered servers.

Every message has a stable ID, is listed in ``docs/settings-and-checks.md``
and carries a hint. IDs are never renumbered or reused.

Settings (``check_settings``):

``E001`` a limit or duration setting has the wrong type
``E002`` a limit or duration setting is zero or negative
``E003`` ``MCP_DEFAULT_PAGE_SIZE`` is larger than ``MCP_MAX_PAGE_SIZE``
``E004`` ``MCP_ALLOWED_ORIGINS`` is not a list of strings
``E005`` an ``MCP_ALLOWED_ORIGINS`` entry is not an origin
``E006`` an ``MCP_*`` setting django_mcp does not know (a typo)
``E007`` ``MCP_SESSION_CACHE`` is not an alias in ``CACHES``
``E008`` ``MCP_EVENT_BACKEND`` cannot be imported
``E009`` ``MCP_EVENT_BACKEND`` is not an ``EventBackend`` subclass
``E010`` ``MCP_EVENT_BACKEND`` cannot be created
``E011`` ``MCP_AUTHENTICATION_BACKENDS`` is not a list of dotted paths
``E012`` an ``MCP_AUTHENTICATION_BACKENDS`` entry cannot be imported
``E013`` an ``MCP_AUTHENTICATION_BACKENDS`` entry has no ``authenticate()``
``E014`` ``MCP_RATE_LIMIT`` is not ``None`` or a rate such as ``"60/m"``
``E016`` ``MCP_RESOURCE_METADATA`` is malformed

The event backend's own ``check()`` messages are added to these
(``RedisEventBackend`` reports ``E020`` and ``E021``).

Servers (``check_servers``): ``E015`` a registered server does not compile;
``W003`` a ``local()`` server sets ``login_required`` (STDIO has no user).

Deployment (``manage.py check --deploy``):

``W001`` ``MCP_ALLOWED_ORIGINS`` is empty while ``ALLOWED_HOSTS`` names a
         public host
``W002`` ``MCP_EVENT_BACKEND`` is the in-process memory backend
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from django_mcp.conf import DEFAULTS, get_setting
from django_mcp.transports._origin import is_loopback_host, normalize_origin

__all__ = ["check_deploy", "check_servers", "check_settings"]

#: Limits counted in bytes or items: positive integers.
_INT_SETTINGS = (
    "MCP_MAX_REQUEST_SIZE",
    "MCP_MAX_RESPONSE_SIZE",
    "MCP_MAX_METADATA_SIZE",
    "MCP_DEFAULT_PAGE_SIZE",
    "MCP_MAX_PAGE_SIZE",
    "MCP_MAX_CONCURRENT_REQUESTS",
)
#: Durations in seconds: positive integers or floats.
_SECONDS_SETTINGS = ("MCP_REQUEST_STATE_MAX_AGE", "MCP_SESSION_TIMEOUT", "MCP_SSE_KEEPALIVE")

_MEMORY_BACKEND = "django_mcp.events.memory.MemoryEventBackend"
_REDIS_BACKEND = "django_mcp.events.redis.RedisEventBackend"
# Django's test runner appends "testserver" to ALLOWED_HOSTS; no browser uses it.
_TEST_HOSTS = frozenset({"testserver"})


# ---------------------------------------------------------------- settings


@register("django_mcp")
def check_settings(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return the errors found in the ``MCP_*`` settings."""
    messages: list[CheckMessage] = []
    messages += _check_numbers()
    messages += _check_origins()
    messages += _check_unknown()
    messages += _check_session_cache()
    messages += _check_event_backend()
    messages += _check_authentication_backends()
    messages += _check_rate_limit()
    messages += _check_resource_metadata()
    return messages


def _check_numbers() -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    valid: dict[str, Any] = {}
    for name in (*_INT_SETTINGS, *_SECONDS_SETTINGS):
        value = get_setting(name)
        seconds = name in _SECONDS_SETTINGS
        kind = "a number of seconds" if seconds else "an integer"
        allowed: tuple[type, ...] = (int, float) if seconds else (int,)
        wrong_type = (
            isinstance(value, bool)
            or not isinstance(value, allowed)
            or (isinstance(value, float) and not math.isfinite(value))
        )
        if wrong_type:
            messages.append(
                Error(
                    f"{name} must be {kind}, got {value!r} ({type(value).__name__}).",
                    hint=f"Set {name} to a positive {'number' if seconds else 'integer'}; "
                    f"the default is {DEFAULTS[name]!r}.",
                    id="django_mcp.E001",
                )
            )
        elif value <= 0:
            messages.append(
                Error(
                    f"{name} must be greater than zero, got {value!r}.",
                    hint=f"Set {name} to a positive value; the default is {DEFAULTS[name]!r}.",
                    id="django_mcp.E002",
                )
            )
        else:
            valid[name] = value
    default, maximum = valid.get("MCP_DEFAULT_PAGE_SIZE"), valid.get("MCP_MAX_PAGE_SIZE")
    if default is not None and maximum is not None and default > maximum:
        messages.append(
            Error(
                f"MCP_DEFAULT_PAGE_SIZE ({default}) is larger than MCP_MAX_PAGE_SIZE ({maximum}).",
                hint="Lower MCP_DEFAULT_PAGE_SIZE or raise MCP_MAX_PAGE_SIZE; "
                "pages never hold more than MCP_MAX_PAGE_SIZE items.",
                id="django_mcp.E003",
            )
        )
    return messages


def _check_origins() -> list[CheckMessage]:
    origins = get_setting("MCP_ALLOWED_ORIGINS")
    if not isinstance(origins, list | tuple) or not all(isinstance(item, str) for item in origins):
        return [
            Error(
                f"MCP_ALLOWED_ORIGINS must be a list of strings, got {origins!r}.",
                hint='Write it as a list, e.g. MCP_ALLOWED_ORIGINS = ["https://app.example.com"].',
                id="django_mcp.E004",
            )
        ]
    messages: list[CheckMessage] = []
    for origin in origins:
        if normalize_origin(origin) is None:
            messages.append(
                Error(
                    f"MCP_ALLOWED_ORIGINS entry {origin!r} is not an origin.",
                    hint="Write an origin as scheme://host[:port] with an http or https scheme "
                    'and no path, e.g. "https://app.example.com".',
                    id="django_mcp.E005",
                )
            )
    return messages


def _check_unknown() -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for name in sorted(dir(settings)):
        if not name.startswith("MCP_") or name in DEFAULTS:
            continue
        close = difflib.get_close_matches(name, DEFAULTS, n=1)
        if close:
            hint = f"Did you mean {close[0]}?"
        else:
            hint = "Remove it, or see the list of django_mcp settings in the documentation."
        messages.append(Error(f"{name} is not a django_mcp setting.", hint=hint, id="django_mcp.E006"))
    return messages


def _check_session_cache() -> list[CheckMessage]:
    alias = get_setting("MCP_SESSION_CACHE")
    caches = settings.CACHES
    if isinstance(alias, str) and alias in caches:
        return []
    known = ", ".join(repr(name) for name in caches) or "none"
    return [
        Error(
            f"MCP_SESSION_CACHE {alias!r} is not an alias in CACHES.",
            hint=f"Set MCP_SESSION_CACHE to one of the configured caches ({known}), "
            "or add that alias to CACHES.",
            id="django_mcp.E007",
        )
    ]


def _import(path: Any) -> tuple[Any, str | None]:
    """Return ``(object, None)`` or ``(None, reason it cannot be imported)``."""
    if not isinstance(path, str) or not path:
        return None, f"expected a dotted path string, got {path!r}"
    try:
        return import_string(path), None
    except ImportError as exc:
        return None, str(exc)


def _check_event_backend() -> list[CheckMessage]:
    from django_mcp.events import EventBackend, get_backend

    path = get_setting("MCP_EVENT_BACKEND")
    backend_cls, problem = _import(path)
    if problem is not None:
        return [
            Error(
                f"MCP_EVENT_BACKEND {path!r} cannot be imported: {problem}.",
                hint=f"Use {_MEMORY_BACKEND!r} (one process) or {_REDIS_BACKEND!r} (many workers).",
                id="django_mcp.E008",
            )
        ]
    if not (isinstance(backend_cls, type) and issubclass(backend_cls, EventBackend)):
        return [
            Error(
                f"MCP_EVENT_BACKEND {path!r} is not an EventBackend subclass.",
                hint=f"Point it at a subclass of django_mcp.events.EventBackend, e.g. {_MEMORY_BACKEND!r}.",
                id="django_mcp.E009",
            )
        ]
    try:
        backend = get_backend()
    except (ImproperlyConfigured, ImportError) as exc:
        return [
            Error(
                f"MCP_EVENT_BACKEND {path!r} cannot be created: {exc}",
                hint="Install what the backend needs and check its settings (e.g. MCP_REDIS_URL).",
                id="django_mcp.E010",
            )
        ]
    return list(backend.check())


def _check_authentication_backends() -> list[CheckMessage]:
    paths = get_setting("MCP_AUTHENTICATION_BACKENDS")
    if not isinstance(paths, list | tuple):
        return [
            Error(
                f"MCP_AUTHENTICATION_BACKENDS must be a list of dotted paths, got {paths!r}.",
                hint='Write it as a list, e.g. ["myapp.auth.TokenAuthenticator"].',
                id="django_mcp.E011",
            )
        ]
    messages: list[CheckMessage] = []
    for path in paths:
        backend, problem = _import(path)
        if problem is not None:
            messages.append(
                Error(
                    f"MCP_AUTHENTICATION_BACKENDS entry {path!r} cannot be imported: {problem}.",
                    hint="Check the dotted path: module path, then the class name.",
                    id="django_mcp.E012",
                )
            )
        elif not (isinstance(backend, type) and callable(getattr(backend, "authenticate", None))):
            messages.append(
                Error(
                    f"MCP_AUTHENTICATION_BACKENDS entry {path!r} is not a class with an "
                    "authenticate(request) method.",
                    hint="Each entry names a class; django_mcp instantiates it without "
                    "arguments and calls authenticate(request), which returns a user or None.",
                    id="django_mcp.E013",
                )
            )
    return messages


def _check_rate_limit() -> list[CheckMessage]:
    from django_mcp.ratelimit import parse_rate

    rate = get_setting("MCP_RATE_LIMIT")
    if rate is None:
        return []
    try:
        parse_rate(rate)
    except ValueError:
        return [
            Error(
                f"MCP_RATE_LIMIT must be None or a rate like '60/m', got {rate!r}.",
                hint="Write a positive number of calls, a slash and a period: "
                "s (second), m (minute), h (hour) or d (day); None means unlimited.",
                id="django_mcp.E014",
            )
        ]
    return []


def _check_resource_metadata() -> list[CheckMessage]:
    from django_mcp.wellknown import resource_metadata_errors

    return [
        Error(
            f"MCP_RESOURCE_METADATA {problem}.",
            hint="Give a dict with at least 'authorization_servers' (issuer URLs), "
            "or None to publish no protected resource metadata.",
            id="django_mcp.E016",
        )
        for problem in resource_metadata_errors(get_setting("MCP_RESOURCE_METADATA"))
    ]


# ----------------------------------------------------------------- servers


@register("django_mcp")
def check_servers(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return an error for every registered server that does not compile."""
    from django_mcp.registry import registry
    from django_mcp.server.compiler import compile_server
    from django_mcp.server.server import Server

    messages: list[CheckMessage] = []
    registrations: Iterable[tuple[str, Callable[[], dict[str, Any]]]] = (
        ("web", registry.web_servers),
        ("local", registry.local_servers),
    )
    for kind, servers in registrations:
        for key, server in servers().items():
            where = f"{kind} server {key!r}"
            if not (isinstance(server, type) and issubclass(server, Server)):
                messages.append(
                    Error(
                        f"{where} is {server!r}, not a Server subclass.",
                        hint="Register a subclass of django_mcp.Server.",
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
                continue
            if kind == "local" and getattr(server, "login_required", False):
                messages.append(
                    CheckWarning(
                        f"{where} ({server.__module__}.{server.__qualname__}) sets login_required, "
                        "but STDIO requests carry no Django user.",
                        hint="Whoever can start `manage.py mcp_stdio` uses every component; take "
                        "credentials from the environment, or publish the server with web() only.",
                        obj=server,
                        id="django_mcp.W003",
                    )
                )
            try:
                compile_server(server)
            except ImproperlyConfigured as exc:
                messages.append(
                    Error(
                        f"{where} ({server.__module__}.{server.__qualname__}) is invalid: {exc}",
                        hint="Fix the declaration named in the message; the server cannot "
                        "answer any request until it compiles.",
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
    return messages


# -------------------------------------------------------------- deployment


@register("django_mcp", Tags.security, deploy=True)
def check_deploy(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return deployment warnings (``manage.py check --deploy``)."""
    messages: list[CheckMessage] = []
    origins = get_setting("MCP_ALLOWED_ORIGINS")
    public = [host for host in settings.ALLOWED_HOSTS if _is_public_host(host)]
    if not origins and public:
        messages.append(
            CheckWarning(
                f"MCP_ALLOWED_ORIGINS is empty but ALLOWED_HOSTS serves {', '.join(map(repr, public))}: "
                "browser-based MCP clients on those hosts will be refused (403).",
                hint="List the origins of browser clients you trust, e.g. "
                'MCP_ALLOWED_ORIGINS = ["https://app.example.com"]; clients that send no '
                "Origin header are not affected.",
                id="django_mcp.W001",
            )
        )
    from django_mcp.events.memory import MemoryEventBackend

    backend_cls, problem = _import(get_setting("MCP_EVENT_BACKEND"))
    if problem is None and isinstance(backend_cls, type) and issubclass(backend_cls, MemoryEventBackend):
        messages.append(
            CheckWarning(
                "MCP_EVENT_BACKEND is the in-process memory backend: change notifications "
                "do not cross worker processes.",
                hint=f"With more than one worker process, set MCP_EVENT_BACKEND = {_REDIS_BACKEND!r} "
                "(pip install 'django-mcp-toolkit[redis]'); with a single process, add "
                '"django_mcp.W002" to SILENCED_SYSTEM_CHECKS.',
                id="django_mcp.W002",
            )
        )
    return messages


def _is_public_host(host: Any) -> bool:
    if not isinstance(host, str) or not host or host in _TEST_HOSTS:
        return False
    if host == "*":
        return True
    name = host.lstrip(".")
    if name.startswith("[") and "]" in name:  # "[::1]" or "[::1]:8000"
        name = name[: name.index("]") + 1]
    elif name.count(":") == 1:  # "localhost:8000"
        name = name.split(":", 1)[0]
    return not is_loopback_host(name)
