"""System checks for django_mcp settings and registered servers.

Every message has a stable ID, is listed in ``docs/settings-and-checks.md``
and carries a hint. IDs are never renumbered or reused.

Settings (``check_settings``):

- ``E001`` a limit or duration setting has the wrong type
- ``E002`` a limit or duration setting is zero or negative
  (``MCP_QUEUE_TIMEOUT``: negative)
- ``E003`` ``MCP_DEFAULT_PAGE_SIZE`` is larger than ``MCP_MAX_PAGE_SIZE``
- ``E004`` ``MCP_ALLOWED_ORIGINS`` is not a list of strings
- ``E005`` an ``MCP_ALLOWED_ORIGINS`` entry is not an origin
- ``E006`` an ``MCP_*`` setting django_mcp does not know (a typo)
- ``E007`` ``MCP_SESSION_CACHE`` is not an alias in ``CACHES``
- ``E008`` ``MCP_EVENT_BACKEND`` cannot be imported
- ``E009`` ``MCP_EVENT_BACKEND`` is not an ``EventBackend`` subclass
- ``E010`` ``MCP_EVENT_BACKEND`` cannot be created
- ``E011`` ``MCP_AUTHENTICATION_BACKENDS`` is not a list of dotted paths
- ``E012`` an ``MCP_AUTHENTICATION_BACKENDS`` entry cannot be imported
- ``E013`` an ``MCP_AUTHENTICATION_BACKENDS`` entry has no ``authenticate()``
- ``E014`` ``MCP_RATE_LIMIT`` is not ``None`` or a rate such as ``"60/m"``
- ``E016`` ``MCP_RESOURCE_METADATA`` is malformed
- ``E017`` ``MCP_CLIENT_IP`` is not None, a callable or an importable dotted
  path
- ``E022`` ``MCP_EVENT_NAMESPACE`` is not None or a string without spaces
- ``E032`` ``MCP_TASK_RATE_LIMIT`` is not ``None`` or a rate such as ``"120/m"``
- ``E033`` ``MCP_TASK_BACKEND`` is not None or a string (a ``TASKS`` alias)
- ``W012`` ``MCP_TASK_LEASE_TIMEOUT`` is under ``MIN_LEASE_TIMEOUT`` seconds: a
  busy worker may miss a renewal, and its task be failed while it runs
- ``E028`` ``MCP_SKILLS_DIRS`` is not a list of existing folders, or
  ``MCP_SKILLS_STORAGE`` is not None or an alias in ``STORAGES``
- ``E034`` ``MCP_AUDIT`` is not None, "off", "writes" or "all"
- ``E035`` ``MCP_AUDIT_REDACT`` is not a list of regular expressions
- ``E036`` ``MCP_AUDIT_RETENTION_DAYS`` is not None or a positive number
- ``E037`` ``MCP_TELEMETRY`` is not True or False
- ``E040`` ``MCP_TASKS_EXTENSION`` or ``MCP_SKILLS_EXTENSION`` is not True
  or False

The event backend's own ``check()`` messages are added to these
(``RedisEventBackend`` reports ``E020`` and ``E021``).

Servers (``check_servers``):

- ``E015`` a registered server, or one mounted with ``as_view()``, does not
  compile
- ``E018`` a server needs the caller's identity but ``django.contrib.auth``
  is not installed
- ``W003`` a ``local()`` server sets ``login_required`` (STDIO does not enforce it)
- ``E023`` a tool runs as a task but Django's Tasks framework is missing
- ``E024`` a tool runs as a task but ``MCP_TASK_BACKEND`` is unusable
- ``E025`` a server serves ``ViewSetTools`` but Django REST framework is not
  installed or ``rest_framework`` is not in ``INSTALLED_APPS``
- ``E026`` a server serves ``ModelAdminTools`` but ``django.contrib.admin``
  is not in ``INSTALLED_APPS``
- ``E029`` a server serves skills but PyYAML (the ``skills`` extra) is missing
- ``E030`` a skill a server serves is invalid (its ``SKILL.md``, its name,
  its limits)
- ``E031`` a server names a skill no skill folder holds (``E029``-``E031``
  replace ``E015`` for that server)
- ``E038`` a skill's folder, or a file or folder in it, really lies outside
  the skill's folder (a symbolic link): the skill is not served
- ``W009`` a skill file is too large to be read within ``MCP_MAX_RESPONSE_SIZE``
- ``W010`` a skill's frontmatter ``metadata`` uses the ``io.modelcontextprotocol/``
  prefix MCP extensions reserve
- ``W014`` ``AdminSiteTools()`` left out a ModelAdmin whose tools it could
  not build (its forms fail, or its primary key is a secret)
- ``W016`` a server's ``instructions`` is not a constant string (a property,
  a callable, a descriptor): text computed at run time reaches the model
- ``E039`` an MCP App's template (``AppResource.template_name``) is missing
  or does not compile

MCP Apps (``check_app_origins``):

- ``W015`` an App's template loads from an external origin its ``csp`` does
  not declare (the host's Content Security Policy will block it)

Deployment (``manage.py check --deploy``):

- ``W001`` ``MCP_ALLOWED_ORIGINS`` is empty while ``ALLOWED_HOSTS`` names a
  public host
- ``W002`` ``MCP_EVENT_BACKEND`` is the in-process memory backend
- ``W004`` ``MCP_SESSION_CACHE`` shares the rate-limit counters' culling cache
- ``W005`` ``MCP_SESSION_CACHE`` is a per-process (or dummy) cache
- ``W006`` tasks run on an immediate (in the request) or dummy (never) backend
- ``W011`` tasks run in the in-process thread pool (no ``TASKS`` setting): a
  stopped process loses its queued and running tasks (they fail)
- ``W013`` ``CommonMiddleware`` would answer a disallowed ``Host`` with HTML
  (``handler400`` is not ``django_mcp.views.bad_request``)
"""

from __future__ import annotations

import difflib
import importlib.util
import inspect
import math
import os
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from django_mcp.conf import DEFAULTS, get_setting
from django_mcp.exceptions import SkillError
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.transports._origin import is_loopback_host, normalize_origin
from django_mcp.ui.origins import undeclared_origins
from django_mcp.ui.resource import is_app

__all__ = [
    "MIN_LEASE_TIMEOUT",
    "check_admin_site_tools",
    "check_app_origins",
    "check_deploy",
    "check_servers",
    "check_settings",
]

MIN_LEASE_TIMEOUT = 5
"""Seconds under which ``MCP_TASK_LEASE_TIMEOUT`` is warned about (``W012``)."""

#: Limits counted in bytes or items: positive integers.
_INT_SETTINGS = (
    "MCP_MAX_REQUEST_SIZE",
    "MCP_MAX_RESPONSE_SIZE",
    "MCP_MAX_METADATA_SIZE",
    "MCP_DEFAULT_PAGE_SIZE",
    "MCP_MAX_PAGE_SIZE",
    "MCP_MAX_CONCURRENT_REQUESTS",
    "MCP_MAX_JSON_DEPTH",
    "MCP_MAX_SESSION_SIZE",
    "MCP_MAX_SESSIONS_PER_CLIENT",
    "MCP_MAX_STREAMS",
    "MCP_STREAM_BUFFER",
    "MCP_TASK_THREADS",
    "MCP_MAX_TASKS_PER_CLIENT",
    "MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT",
    "MCP_AUDIT_MAX_ARGUMENTS_SIZE",
)
#: Durations in seconds: positive integers or floats.
_SECONDS_SETTINGS = (
    "MCP_REQUEST_STATE_MAX_AGE",
    "MCP_SESSION_TIMEOUT",
    "MCP_SSE_KEEPALIVE",
    "MCP_QUEUE_TIMEOUT",
    "MCP_TASK_TTL",
    "MCP_TASK_POLL_INTERVAL",
    "MCP_TASK_LEASE_TIMEOUT",
)
#: Settings where zero is meaningful (0 seconds of queueing: refuse at once).
_ZERO_ALLOWED = frozenset({"MCP_QUEUE_TIMEOUT"})
#: Settings where None is meaningful (no task expiry, no polling hint, no task quota).
_NONE_ALLOWED = frozenset(
    {
        "MCP_TASK_TTL",
        "MCP_TASK_POLL_INTERVAL",
        "MCP_MAX_TASKS_PER_CLIENT",
        "MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT",
    }
)

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
    messages += _check_event_namespace()
    messages += _check_authentication_backends()
    messages += _check_rate_limit()
    messages += _check_task_settings()
    messages += _check_resource_metadata()
    messages += _check_client_ip()
    messages += _check_skill_sources()
    messages += _check_observability()
    return messages


def _check_numbers() -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    valid: dict[str, Any] = {}
    for name in (*_INT_SETTINGS, *_SECONDS_SETTINGS):
        value = get_setting(name)
        if value is None and name in _NONE_ALLOWED:
            continue
        seconds = name in _SECONDS_SETTINGS
        kind = _("a number of seconds") if seconds else _("an integer")
        allowed: tuple[type, ...] = (int, float) if seconds else (int,)
        wrong_type = (
            isinstance(value, bool)
            or not isinstance(value, allowed)
            or (isinstance(value, float) and not math.isfinite(value))
        )
        if wrong_type:
            messages.append(
                Error(
                    _("{name} must be {kind}, got {value!r} ({type_value_name}).").format(
                        name=name, kind=kind, value=value, type_value_name=type(value).__name__
                    ),
                    hint=_("Set {name} to a positive {what}; the default is {defaults_name!r}.").format(
                        name=name,
                        what=(_("number") if seconds else _("integer")),
                        defaults_name=DEFAULTS[name],
                    ),
                    id="django_mcp.E001",
                )
            )
        elif value < 0 or (value == 0 and name not in _ZERO_ALLOWED):
            zero = name in _ZERO_ALLOWED
            messages.append(
                Error(
                    _("{name} must be {what}, got {value!r}.").format(
                        name=name, what=(_("zero or more") if zero else _("greater than zero")), value=value
                    ),
                    hint=_("Set {name} to a {what} value; the default is {defaults_name!r}.").format(
                        name=name,
                        what=(_("non-negative") if zero else _("positive")),
                        defaults_name=DEFAULTS[name],
                    ),
                    id="django_mcp.E002",
                )
            )
        else:
            valid[name] = value
    default, maximum = valid.get("MCP_DEFAULT_PAGE_SIZE"), valid.get("MCP_MAX_PAGE_SIZE")
    if default is not None and maximum is not None and default > maximum:
        messages.append(
            Error(
                _("MCP_DEFAULT_PAGE_SIZE ({default}) is larger than MCP_MAX_PAGE_SIZE ({maximum}).").format(
                    default=default, maximum=maximum
                ),
                hint=_(
                    "Lower MCP_DEFAULT_PAGE_SIZE or raise MCP_MAX_PAGE_SIZE; pages never "
                    "hold more than MCP_MAX_PAGE_SIZE items."
                ),
                id="django_mcp.E003",
            )
        )
    return messages


def _check_origins() -> list[CheckMessage]:
    origins = get_setting("MCP_ALLOWED_ORIGINS")
    if not isinstance(origins, list | tuple) or not all(isinstance(item, str) for item in origins):
        return [
            Error(
                _("MCP_ALLOWED_ORIGINS must be a list of strings, got {origins!r}.").format(origins=origins),
                hint=_('Write it as a list, e.g. MCP_ALLOWED_ORIGINS = ["https://app.example.com"].'),
                id="django_mcp.E004",
            )
        ]
    messages: list[CheckMessage] = []
    for origin in origins:
        if normalize_origin(origin) is None:
            messages.append(
                Error(
                    _("MCP_ALLOWED_ORIGINS entry {origin!r} is not an origin.").format(origin=origin),
                    hint=_(
                        "Write an origin as scheme://host[:port] with an http or https scheme "
                        'and no path, e.g. "https://app.example.com".'
                    ),
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
            hint = _("Did you mean {close}?").format(close=close[0])
        else:
            hint = _("Remove it, or see the list of django_mcp settings in the documentation.")
        messages.append(
            Error(_("{name} is not a django_mcp setting.").format(name=name), hint=hint, id="django_mcp.E006")
        )
    return messages


def _check_session_cache() -> list[CheckMessage]:
    alias = get_setting("MCP_SESSION_CACHE")
    caches = settings.CACHES
    if isinstance(alias, str) and alias in caches:
        return []
    known = ", ".join(repr(name) for name in caches) or _("none")
    return [
        Error(
            _("MCP_SESSION_CACHE {alias!r} is not an alias in CACHES.").format(alias=alias),
            hint=_(
                "Set MCP_SESSION_CACHE to one of the configured caches ({known}), or "
                "add that alias to CACHES."
            ).format(known=known),
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
                _("MCP_EVENT_BACKEND {path!r} cannot be imported: {problem}.").format(
                    path=path, problem=problem
                ),
                hint=_("Use {memory_backend!r} (one process) or {redis_backend!r} (many workers).").format(
                    memory_backend=_MEMORY_BACKEND, redis_backend=_REDIS_BACKEND
                ),
                id="django_mcp.E008",
            )
        ]
    if not (isinstance(backend_cls, type) and issubclass(backend_cls, EventBackend)):
        return [
            Error(
                _("MCP_EVENT_BACKEND {path!r} is not an EventBackend subclass.").format(path=path),
                hint=_(
                    "Point it at a subclass of django_mcp.events.EventBackend, e.g. {memory_backend!r}."
                ).format(memory_backend=_MEMORY_BACKEND),
                id="django_mcp.E009",
            )
        ]
    try:
        backend = get_backend()
    except (ImproperlyConfigured, ImportError) as exc:
        return [
            Error(
                _("MCP_EVENT_BACKEND {path!r} cannot be created: {exc}").format(path=path, exc=exc),
                hint=_("Install what the backend needs and check its settings (e.g. MCP_REDIS_URL)."),
                id="django_mcp.E010",
            )
        ]
    return list(backend.check())


def _check_event_namespace() -> list[CheckMessage]:
    value = get_setting("MCP_EVENT_NAMESPACE")
    if value is None or (isinstance(value, str) and value and not any(c.isspace() for c in value)):
        return []
    return [
        Error(
            _("MCP_EVENT_NAMESPACE must be None or a non-empty string without spaces, got {value!r}.").format(
                value=value
            ),
            hint=_(
                "Leave it unset (derived from MCP_REDIS_URL and SECRET_KEY), or set "
                "the same short name in every worker of one deployment, e.g. "
                '"shop-prod".'
            ),
            id="django_mcp.E022",
        )
    ]


def _check_authentication_backends() -> list[CheckMessage]:
    paths = get_setting("MCP_AUTHENTICATION_BACKENDS")
    if not isinstance(paths, list | tuple):
        return [
            Error(
                _("MCP_AUTHENTICATION_BACKENDS must be a list of dotted paths, got {paths!r}.").format(
                    paths=paths
                ),
                hint=_('Write it as a list, e.g. ["myapp.auth.TokenAuthenticator"].'),
                id="django_mcp.E011",
            )
        ]
    messages: list[CheckMessage] = []
    for path in paths:
        backend, problem = _import(path)
        if problem is not None:
            messages.append(
                Error(
                    _("MCP_AUTHENTICATION_BACKENDS entry {path!r} cannot be imported: {problem}.").format(
                        path=path, problem=problem
                    ),
                    hint=_("Check the dotted path: module path, then the class name."),
                    id="django_mcp.E012",
                )
            )
        elif not (isinstance(backend, type) and callable(getattr(backend, "authenticate", None))):
            messages.append(
                Error(
                    _(
                        "MCP_AUTHENTICATION_BACKENDS entry {path!r} is not a class with an "
                        "authenticate(request) method."
                    ).format(path=path),
                    hint=_(
                        "Each entry names a class; django_mcp instantiates it without "
                        "arguments and calls authenticate(request), which returns a user or "
                        "None."
                    ),
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
                _("MCP_RATE_LIMIT must be None or a rate like '60/m', got {rate!r}.").format(rate=rate),
                hint=_(
                    "Write a positive number of calls, a slash and a period: s (second), m "
                    "(minute), h (hour) or d (day); None means unlimited."
                ),
                id="django_mcp.E014",
            )
        ]
    return []


def _check_task_settings() -> list[CheckMessage]:
    from django_mcp.ratelimit import parse_rate

    messages: list[CheckMessage] = []
    rate = get_setting("MCP_TASK_RATE_LIMIT")
    if rate is not None:
        try:
            parse_rate(rate, setting="MCP_TASK_RATE_LIMIT")
        except ValueError:
            messages.append(
                Error(
                    _("MCP_TASK_RATE_LIMIT must be None or a rate like '120/m', got {rate!r}.").format(
                        rate=rate
                    ),
                    hint=_(
                        "Write a positive number of tasks, a slash and a period: s (second), m "
                        "(minute), h (hour) or d (day); None means unlimited."
                    ),
                    id="django_mcp.E032",
                )
            )
    alias = get_setting("MCP_TASK_BACKEND")
    if alias is not None and not isinstance(alias, str):
        messages.append(
            Error(
                _("MCP_TASK_BACKEND must be None or the name of a TASKS alias, got {alias!r}.").format(
                    alias=alias
                ),
                hint=_(
                    "Name an alias of Django's TASKS setting, e.g. 'default'; None runs "
                    "tasks on 'default' when TASKS is set, else in a thread pool inside "
                    "the server process."
                ),
                id="django_mcp.E033",
            )
        )
    lease = get_setting("MCP_TASK_LEASE_TIMEOUT")
    if isinstance(lease, int | float) and not isinstance(lease, bool) and 0 < lease < MIN_LEASE_TIMEOUT:
        messages.append(
            CheckWarning(
                _(
                    "MCP_TASK_LEASE_TIMEOUT is {lease!r} s: a worker renews its lease "
                    "every third of it, and one that misses a renewal (a long pause, a "
                    "slow database) has its task failed while it still runs."
                ).format(lease=lease),
                hint=_(
                    "Use {min_lease_timeout} seconds or more; the default is "
                    "{defaults_mcp_task_lease_timeout!r}."
                ).format(
                    min_lease_timeout=MIN_LEASE_TIMEOUT,
                    defaults_mcp_task_lease_timeout=DEFAULTS["MCP_TASK_LEASE_TIMEOUT"],
                ),
                id="django_mcp.W012",
            )
        )
    return messages


def _check_resource_metadata() -> list[CheckMessage]:
    from django_mcp.wellknown import resource_metadata_errors

    return [
        Error(
            _("MCP_RESOURCE_METADATA {problem}.").format(problem=problem),
            hint=_(
                "Give a dict with at least 'authorization_servers' (issuer URLs), or "
                "None to publish no protected resource metadata."
            ),
            id="django_mcp.E016",
        )
        for problem in resource_metadata_errors(get_setting("MCP_RESOURCE_METADATA"))
    ]


def _check_client_ip() -> list[CheckMessage]:
    value = get_setting("MCP_CLIENT_IP")
    if value is None or callable(value):
        return []
    function, problem = _import(value)
    if problem is None and callable(function):
        return []
    return [
        Error(
            (
                _("MCP_CLIENT_IP must be None or a function (or its dotted path), got {value!r}: {problem}.")
                if problem
                else _("MCP_CLIENT_IP must be None or a function (or its dotted path), got {value!r}.")
            ).format(value=value, problem=problem),
            hint=_(
                "Name a function taking the HttpRequest and returning the client "
                'address or None, e.g. "myproject.proxies.client_ip"; None uses '
                "REMOTE_ADDR."
            ),
            id="django_mcp.E017",
        )
    ]


def _check_skill_sources() -> list[CheckMessage]:
    folders = get_setting("MCP_SKILLS_DIRS")
    messages: list[CheckMessage] = []
    if isinstance(folders, str | bytes) or not isinstance(folders, list | tuple):
        messages.append(
            Error(
                _("MCP_SKILLS_DIRS must be a list of folder paths, got {folders!r}.").format(folders=folders),
                hint=_('Write it as a list, e.g. MCP_SKILLS_DIRS = [BASE_DIR / "skills"].'),
                id="django_mcp.E028",
            )
        )
        folders = []
    for index, folder in enumerate(folders):
        if not isinstance(folder, str | os.PathLike) or not os.path.isdir(folder):
            messages.append(
                Error(
                    _("MCP_SKILLS_DIRS[{index}] ({folder!r}) is not an existing folder.").format(
                        index=index, folder=folder
                    ),
                    hint=_(
                        "Each entry is a folder holding one sub-folder per skill "
                        "(<folder>/<name>/SKILL.md); create it or remove the entry."
                    ),
                    id="django_mcp.E028",
                )
            )
    alias = get_setting("MCP_SKILLS_STORAGE")
    if alias is not None and not (isinstance(alias, str) and alias in settings.STORAGES):
        known = ", ".join(repr(name) for name in settings.STORAGES) or _("none")
        messages.append(
            Error(
                _("MCP_SKILLS_STORAGE {alias!r} is not an alias in STORAGES.").format(alias=alias),
                hint=_(
                    "Set it to None or to one of the configured storages ({known}), whose "
                    "root holds one folder per skill (<name>/SKILL.md)."
                ).format(known=known),
                id="django_mcp.E028",
            )
        )
    return messages


def _check_observability() -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    mode = get_setting("MCP_AUDIT")
    if mode is not None and mode not in ("off", "writes", "all"):
        messages.append(
            Error(
                _("MCP_AUDIT must be None, 'off', 'writes' or 'all', got {mode!r}.").format(mode=mode),
                hint=_(
                    "'writes' records calls of tools not marked readOnlyHint, 'all' every "
                    "request; None or 'off' records nothing (the default)."
                ),
                id="django_mcp.E034",
            )
        )
    sources = get_setting("MCP_AUDIT_REDACT")
    if not isinstance(sources, list | tuple) or not all(isinstance(item, str) for item in sources):
        messages.append(
            Error(
                _("MCP_AUDIT_REDACT must be a list of regular expressions, got {sources!r}.").format(
                    sources=sources
                ),
                hint=_(
                    "Write it as a list of strings, e.g. MCP_AUDIT_REDACT = {defaults_mcp_audit_redact!r}."
                ).format(defaults_mcp_audit_redact=DEFAULTS["MCP_AUDIT_REDACT"]),
                id="django_mcp.E035",
            )
        )
    else:
        for source in sources:
            try:
                re.compile(source)
            except re.error as exc:
                messages.append(
                    Error(
                        _("MCP_AUDIT_REDACT entry {source!r} is not a regular expression: {exc}.").format(
                            source=source, exc=exc
                        ),
                        hint=_("Fix the expression (Python's re syntax); until then it redacts nothing."),
                        id="django_mcp.E035",
                    )
                )
    days = get_setting("MCP_AUDIT_RETENTION_DAYS")
    if days is not None and (
        isinstance(days, bool) or not isinstance(days, int | float) or not math.isfinite(days) or days <= 0
    ):
        messages.append(
            Error(
                _("MCP_AUDIT_RETENTION_DAYS must be None or a positive number of days, got {days!r}.").format(
                    days=days
                ),
                hint=_(
                    "manage.py mcp_prune_audit deletes audit entries older than this many "
                    "days; None keeps them forever. The default is "
                    "{defaults_mcp_audit_retention_days!r}."
                ).format(defaults_mcp_audit_retention_days=DEFAULTS["MCP_AUDIT_RETENTION_DAYS"]),
                id="django_mcp.E036",
            )
        )
    telemetry = get_setting("MCP_TELEMETRY")
    if not isinstance(telemetry, bool):
        messages.append(
            Error(
                _("MCP_TELEMETRY must be True or False, got {telemetry!r}.").format(telemetry=telemetry),
                hint=_(
                    "True (the default) emits OpenTelemetry spans and metrics when a "
                    "provider is configured; False never does."
                ),
                id="django_mcp.E037",
            )
        )
    for name in ("MCP_TASKS_EXTENSION", "MCP_SKILLS_EXTENSION"):
        enabled = get_setting(name)
        if not isinstance(enabled, bool):
            messages.append(
                Error(
                    _("{name} must be True or False, got {enabled!r}.").format(name=name, enabled=enabled),
                    hint=_(
                        "True (the default) serves this Beta extension to the servers that offer it; "
                        "False stops advertising it and answers its methods -32601."
                    ),
                    id="django_mcp.E040",
                )
            )
    return messages


# ----------------------------------------------------------------- servers


@register("django_mcp")
def check_servers(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return an error for every registered or mounted server that does not compile."""
    from django_mcp.registry import registry
    from django_mcp.server.compiler import compile_server
    from django_mcp.server.server import Server

    messages: list[CheckMessage] = []
    task_servers: list[str] = []
    try:
        _load_urlconf()
    except Exception:  # noqa: BLE001, S110 - Django's own URL checks report a broken URLconf
        pass
    registered = {*registry.web_servers().values(), *registry.local_servers().values()}
    # Servers mounted with as_view() in a URLconf (loaded by Django's own URL
    # checks, which run first) are covered like registered ones.
    mounted = {key: server for key, server in registry.mounted_servers().items() if server not in registered}
    registrations: Iterable[tuple[str, dict[str, Any]]] = (
        ("web", registry.web_servers()),
        ("local", registry.local_servers()),
        ("as_view()", mounted),
    )
    for kind, servers in registrations:
        for key, server in servers.items():
            where = _("{kind} server {key!r}").format(kind=kind, key=key)
            if not (isinstance(server, type) and issubclass(server, Server)):
                messages.append(
                    Error(
                        _("{where} is {server!r}, not a Server subclass.").format(where=where, server=server),
                        hint=_("Register a subclass of django_mcp.Server."),
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
                continue
            if kind == "local" and getattr(server, "login_required", False):
                messages.append(
                    CheckWarning(
                        _(
                            "{where} ({server_module}.{server_qualname}) sets login_required, but "
                            "STDIO does not enforce it (it is an HTTP rule)."
                        ).format(
                            where=where, server_module=server.__module__, server_qualname=server.__qualname__
                        ),
                        hint=_(
                            "Whoever can start `manage.py mcp_stdio` uses every component; run it "
                            "with --user USERNAME so that user's permissions apply, or publish the "
                            "server with web() only."
                        ),
                        obj=server,
                        id="django_mcp.W003",
                    )
                )
            messages += _check_instructions(where, server)
            try:
                compiled = compile_server(server)
            except SkillError as exc:
                messages += [
                    Error(
                        _("{where} ({exc_label}): {problem_message}.").format(
                            where=where, exc_label=exc.label, problem_message=problem.message
                        ),
                        hint=problem.hint,
                        obj=server,
                        id=problem.check_id,
                    )
                    for problem in exc.problems
                ]
                continue
            except ImproperlyConfigured as exc:
                messages.append(
                    Error(
                        _("{where} ({server_module}.{server_qualname}) is invalid: {exc}").format(
                            where=where,
                            server_module=server.__module__,
                            server_qualname=server.__qualname__,
                            exc=exc,
                        ),
                        hint=_(
                            "Fix the declaration named in the message; the server cannot answer "
                            "any request until it compiles."
                        ),
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
                continue
            if compiled.caller_dependent and not apps.is_installed("django.contrib.auth"):
                messages.append(
                    Error(
                        _(
                            "{where} ({compiled_key}) needs to know the caller (login_required, "
                            "permissions or authorize()), but django.contrib.auth is not installed."
                        ).format(where=where, compiled_key=compiled.key),
                        hint=_(
                            "Add 'django.contrib.auth' and 'django.contrib.contenttypes' to "
                            "INSTALLED_APPS (and AuthenticationMiddleware to MIDDLEWARE), or drop "
                            "the identity requirements from the server."
                        ),
                        obj=server,
                        id="django_mcp.E018",
                    )
                )
            if compiled.capabilities.extensions and TASKS_EXTENSION in compiled.capabilities.extensions:
                task_servers.append(where)
            messages += _check_contrib_apps(where, compiled)
            messages += _check_skills(where, compiled)
            messages += _check_apps(where, compiled)
    messages += _check_tasks(task_servers)
    return messages


@register("django_mcp")
def check_admin_site_tools(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn about each ModelAdmin ``AdminSiteTools()`` could not publish."""
    # Read only where a project called it: importing it loads the admin.
    site_tools = sys.modules.get("django_mcp.contrib.admin._site")
    if site_tools is None:
        return []
    return [
        CheckWarning(
            _(
                "AdminSiteTools() left out the {skipped_model} admin of the "
                "{skipped_site!r} site: {skipped_reason}"
            ).format(skipped_model=skipped.model, skipped_site=skipped.site, skipped_reason=skipped.reason),
            hint=_(
                "Pass exclude=({skipped_model!r},) to AdminSiteTools() to leave it out "
                "on purpose, or publish it with ModelAdminTools(..., model=...) once "
                "its forms build."
            ).format(skipped_model=skipped.model),
            id="django_mcp.W014",
        )
        for skipped in site_tools.skipped_admins()
    ]


def _check_instructions(where: str, server: type[Any]) -> list[CheckMessage]:
    """Warn when a server's ``instructions`` is not a constant string."""
    declared = inspect.getattr_static(server, "instructions", None)
    if declared is None or isinstance(declared, str):
        return []
    kind = type(declared).__name__
    return [
        CheckWarning(
            _(
                "{where} ({server_module}.{server_qualname}) declares instructions as a {kind}, "
                "not a constant string."
            ).format(
                where=where, server_module=server.__module__, server_qualname=server.__qualname__, kind=kind
            ),
            hint=_(
                "Clients put the instructions in the model's context: text computed at run time "
                "(a property, a callable, a template rendered from the database) is a prompt-injection "
                "path. Declare instructions = '...' as a literal string, or silence django_mcp.W016 "
                "once you have checked where the text comes from."
            ),
            obj=server,
            id="django_mcp.W016",
        )
    ]


@register("django_mcp")
def check_app_origins(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn about each external origin an App's templates load from undeclared.

    Hosts build the page's Content Security Policy from its ``_meta.ui.csp``
    and allow nothing else (SEP-1865), so such a script, style, image or
    connection fails in every host.
    """
    from django_mcp.registry import registry
    from django_mcp.server.compiler import compile_server

    app_classes: dict[type[Any], None] = {}
    for server in {*registry.web_servers().values(), *registry.local_servers().values()}:
        try:
            compiled = compile_server(server)
        except (ImproperlyConfigured, SkillError):  # E015 and the skill checks report it
            continue
        for resource in (*compiled.resources.values(), *compiled.unlisted_apps.values()):
            if is_app(resource.component):
                app_classes.setdefault(resource.component, None)
    return [
        CheckWarning(
            _(
                "The MCP App {app_module}.{app_qualname} loads from {found_origin} "
                "({found_source}), which its csp does not declare: hosts block it."
            ).format(
                app_module=app.__module__,
                app_qualname=app.__qualname__,
                found_origin=found.origin,
                found_source=found.source,
            ),
            hint=_(
                "Add {found_origin!r} to the App's Csp({found_field}=...), or inline the file "
                "with {{% mcp_inline_static %}}."
            ).format(found_origin=found.origin, found_field=found.field),
            obj=app,
            id="django_mcp.W015",
        )
        for app in app_classes
        for found in undeclared_origins(app)
    ]


#: The apps django_mcp.contrib tool factories need installed.
_CONTRIB_APPS = ("rest_framework", "django.contrib.admin")


def _check_contrib_apps(where: str, compiled: Any) -> list[CheckMessage]:
    """Report the apps the ``django_mcp.contrib`` tools of a server need but miss."""
    needed: dict[str, list[str]] = {}
    for name, tool in compiled.tools.items():
        app = getattr(tool.component, "_mcp_requires_app", None)
        if isinstance(app, str) and app in _CONTRIB_APPS:
            needed.setdefault(app, []).append(name)
    messages: list[CheckMessage] = []
    for app, tools in needed.items():
        missing = importlib.util.find_spec(app.partition(".")[0]) is None
        if not missing and apps.is_installed(app):
            continue
        text = (
            _("{where} serves {tools}, which need {app!r}, but it is not installed.")
            if missing
            else _("{where} serves {tools}, which need {app!r}, but it is not in INSTALLED_APPS.")
        ).format(where=where, tools=", ".join(tools), app=app)
        if app == "rest_framework":
            messages.append(
                Error(
                    text,
                    hint=_(
                        "pip install 'django-mcp-toolkit[drf]' and add 'rest_framework' to INSTALLED_APPS."
                    ),
                    obj=compiled.server,
                    id="django_mcp.E025",
                )
            )
        else:
            messages.append(
                Error(
                    text,
                    hint=_(
                        "Add 'django.contrib.admin' (and the apps it needs) to INSTALLED_APPS: "
                        "the tools run the admin's code and log their writes in its LogEntry "
                        "table."
                    ),
                    obj=compiled.server,
                    id="django_mcp.E026",
                )
            )
    return messages


def _check_apps(where: str, compiled: Any) -> list[CheckMessage]:
    """Report each MCP App whose template is missing or does not compile.

    The template is loaded, not rendered: ``get_context_data()`` may need a
    database that checks must not touch.
    """
    messages: list[CheckMessage] = []
    entries = (*compiled.resources.values(), *compiled.unlisted_apps.values())
    for entry in entries:
        if not is_app(entry.component):
            continue
        name = entry.component.template_name
        try:
            get_template(str(name))  # the compiler refuses a missing one
        except TemplateDoesNotExist:
            problem = _("does not exist")
        except TemplateSyntaxError as exc:
            problem = _("does not compile ({exc})").format(exc=exc)
        else:
            continue
        messages.append(
            Error(
                _(
                    "{where}: App {entry_uri} ({app_module}.{app_qualname}) renders template {name!r}, "
                    "which {problem}."
                ).format(
                    where=where,
                    entry_uri=entry.definition.uri,
                    app_module=entry.component.__module__,
                    app_qualname=entry.component.__qualname__,
                    name=name,
                    problem=problem,
                ),
                hint=_(
                    "Create the template in an app's templates/ folder (or a TEMPLATES DIRS folder), "
                    "or fix template_name; `manage.py startmcpapp` writes one to start from."
                ),
                obj=entry.component,
                id="django_mcp.E039",
            )
        )
    return messages


def _check_skills(where: str, compiled: Any) -> list[CheckMessage]:
    """Report refused skills; warn about files no read can carry and reserved metadata keys."""
    from django_mcp.server._frontmatter import reserved_metadata_keys

    limit = get_setting("MCP_MAX_RESPONSE_SIZE")
    messages: list[CheckMessage] = [
        Error(
            _(
                "{where}: skill {refused_name!r} in {refused_source} is not served: "
                "{refused_path} leads to {refused_real}, outside the skill's folder."
            ).format(
                where=where,
                refused_name=refused.name,
                refused_source=refused.source,
                refused_path=refused.path,
                refused_real=refused.real,
            ),
            hint=_(
                "A skill's files must really be inside its folder: replace the "
                "symbolic link with a copy of what it points at, or remove it. To "
                "serve a skill kept elsewhere, add the folder holding it to "
                "MCP_SKILLS_DIRS."
            ),
            obj=compiled.server,
            id="django_mcp.E038",
        )
        for refused in compiled.skills.refused
    ]
    for skill in compiled.skills.skills.values():
        for file in skill.files.values():
            # A blob travels as Base64: four bytes for every three.
            carried = file.size if file.text else 4 * math.ceil(file.size / 3)
            if isinstance(limit, int) and carried > limit:
                messages.append(
                    CheckWarning(
                        _(
                            "{where}: skill file {file_uri} is {file_size} bytes; a read of it "
                            "needs more than MCP_MAX_RESPONSE_SIZE ({limit} bytes) and fails."
                        ).format(where=where, file_uri=file.uri, file_size=file.size, limit=limit),
                        hint=_("Raise MCP_MAX_RESPONSE_SIZE, or split or shrink the file."),
                        obj=compiled.server,
                        id="django_mcp.W009",
                    )
                )
        reserved = reserved_metadata_keys(skill.definition.frontmatter)
        if reserved:
            messages.append(
                CheckWarning(
                    _(
                        "{where}: skill {skill_uri} uses the reserved metadata keys {join_map_repr_reserved}."
                    ).format(
                        where=where,
                        skill_uri=skill.uri,
                        join_map_repr_reserved=", ".join(map(repr, reserved)),
                    ),
                    hint=_(
                        "Keys starting with io.modelcontextprotocol/ are reserved for MCP "
                        "extensions, which define none yet: rename them."
                    ),
                    obj=compiled.server,
                    id="django_mcp.W010",
                )
            )
    return messages


def _check_tasks(task_servers: list[str]) -> list[CheckMessage]:
    """Report a missing Tasks framework or backend when some tool runs as a task.

    With no ``TASKS`` alias to use (the in-process pool), nothing is needed.
    """
    if not task_servers or not isinstance(get_setting("MCP_TASK_BACKEND"), str | None):
        return []
    from django_mcp.conf import get_settings
    from django_mcp.tasks.backend import task_backend, task_decorator

    if get_settings().task_backend is None:
        return []

    servers = ", ".join(task_servers)
    try:
        task_decorator()
    except ImproperlyConfigured:
        return [
            Error(
                _("Tools of {servers} run as tasks, but Django's Tasks framework is not installed.").format(
                    servers=servers
                ),
                hint=_(
                    "Use Django 6, or install the django-tasks backport: pip install "
                    "'django-mcp-toolkit[tasks]'."
                ),
                id="django_mcp.E023",
            )
        ]
    try:
        task_backend()
    except ImproperlyConfigured as exc:
        return [
            Error(
                _("Tools of {servers} run as tasks, but MCP_TASK_BACKEND is unusable: {exc}").format(
                    servers=servers, exc=exc
                ),
                hint=_(
                    "Name an alias of TASKS in MCP_TASK_BACKEND (None means 'default') "
                    "whose BACKEND imports, e.g. 'django_tasks_db.DatabaseBackend' with "
                    "django_tasks_db installed."
                ),
                id="django_mcp.E024",
            )
        ]
    return []


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
                _(
                    "MCP_ALLOWED_ORIGINS is empty but ALLOWED_HOSTS serves "
                    "{join_map_repr_public}: browser-based MCP clients on those hosts will "
                    "be refused (403)."
                ).format(join_map_repr_public=", ".join(map(repr, public))),
                hint=_(
                    "List the origins of browser clients you trust, e.g. "
                    'MCP_ALLOWED_ORIGINS = ["https://app.example.com"]; clients that send '
                    "no Origin header are not affected."
                ),
                id="django_mcp.W001",
            )
        )
    from django_mcp.events.memory import MemoryEventBackend

    backend_cls, problem = _import(get_setting("MCP_EVENT_BACKEND"))
    if problem is None and isinstance(backend_cls, type) and issubclass(backend_cls, MemoryEventBackend):
        messages.append(
            CheckWarning(
                _(
                    "MCP_EVENT_BACKEND is the in-process memory backend: change "
                    "notifications do not cross worker processes."
                ),
                hint=_(
                    "With more than one worker process, set MCP_EVENT_BACKEND = "
                    "{redis_backend!r} (pip install 'django-mcp-toolkit[redis]'); with a "
                    'single process, add "django_mcp.W002" to SILENCED_SYSTEM_CHECKS.'
                ).format(redis_backend=_REDIS_BACKEND),
                id="django_mcp.W002",
            )
        )
    messages += _check_session_cache_deploy()
    messages += _check_task_backend_deploy()
    messages += _check_host_errors_deploy()
    return messages


_COMMON_MIDDLEWARE = "django.middleware.common.CommonMiddleware"
_BAD_REQUEST = "django_mcp.views.bad_request"


def _check_host_errors_deploy() -> list[CheckMessage]:
    """Warn when Django's handler would answer an MCP client's disallowed Host with HTML."""
    from django.urls import get_resolver

    from django_mcp.registry import registry
    from django_mcp.views import bad_request

    if _COMMON_MIDDLEWARE not in settings.MIDDLEWARE:
        return []
    try:
        _load_urlconf()
        handler = get_resolver().resolve_error_handler(400)
    except Exception:  # noqa: BLE001 - Django's own URL checks report a broken URLconf
        return []
    if handler is bad_request or not (registry.web_servers() or registry.mounted_servers()):
        return []
    return [
        CheckWarning(
            _(
                "CommonMiddleware checks the Host header before the MCP endpoint runs: "
                "under Django's own handler an MCP client sending a disallowed Host "
                "gets Django's HTML 400 page, not a JSON-RPC error."
            ),
            hint=_(
                'Set handler400 = "{bad_request}" in the root URLconf, or serve MCP '
                "through django_mcp.asgi.McpASGIApp / django_mcp.wsgi.McpWSGIApp (no "
                "middleware runs there)."
            ).format(bad_request=_BAD_REQUEST),
            id="django_mcp.W013",
        )
    ]


def _load_urlconf() -> None:
    """Load the root URLconf, so ``Server.as_view()`` has registered what it mounts."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - loading is the point


def _check_task_backend_deploy() -> list[CheckMessage]:
    """Warn when tasks run on a backend that runs jobs in the request or never."""
    from django_mcp.registry import registry

    servers = [*registry.web_servers().values(), *registry.local_servers().values()]
    if not any(_offers_tasks(server) for server in servers):
        return []
    from django_mcp.tasks.backend import task_backend

    try:
        backend = task_backend()
    except ImproperlyConfigured:
        return []  # E023/E024 already say so
    if backend is None:
        return [
            CheckWarning(
                _(
                    "MCP tasks run in a thread pool inside each server process (no TASKS "
                    "setting): a process that stops takes its queued and running tasks "
                    "with it (they fail once their lease lapses), and a busy web process "
                    "also runs every tool."
                ),
                hint=_(
                    "For production, run tasks on a backend with workers, e.g. TASKS = "
                    "{'default': {'BACKEND': 'django_tasks_db.DatabaseBackend'}} and "
                    '`manage.py db_worker`; with one small process, add "django_mcp.W011" '
                    "to SILENCED_SYSTEM_CHECKS."
                ),
                id="django_mcp.W011",
            )
        ]
    name = type(backend).__name__
    if name not in ("ImmediateBackend", "DummyBackend"):
        return []
    return [
        CheckWarning(
            (
                _(
                    "MCP_TASK_BACKEND uses the {name}: a task's tool runs inside the request "
                    "that creates it, which waits for it."
                )
                if name == "ImmediateBackend"
                else _("MCP_TASK_BACKEND uses the {name}: tasks are stored but never run.")
            ).format(name=name),
            hint=_(
                "Point MCP_TASK_BACKEND at a backend with workers, e.g. "
                "django-tasks-db ('django_tasks_db.DatabaseBackend') and `manage.py "
                "db_worker`."
            ),
            id="django_mcp.W006",
        )
    ]


def _offers_tasks(server: Any) -> bool:
    try:
        extensions = server.compiled().capabilities.extensions
    except Exception:  # E015 reports servers that do not compile
        return False
    return bool(extensions) and TASKS_EXTENSION in extensions


def _check_session_cache_deploy() -> list[CheckMessage]:
    from django.core.cache.backends.db import DatabaseCache
    from django.core.cache.backends.dummy import DummyCache
    from django.core.cache.backends.filebased import FileBasedCache
    from django.core.cache.backends.locmem import LocMemCache

    from django_mcp.ratelimit import CACHE_ALIAS

    alias = get_setting("MCP_SESSION_CACHE")
    backend = _cache_backend(alias)
    if backend is None:
        return []  # E007 (or Django's own cache checks) report it
    messages: list[CheckMessage] = []
    # These three cull: past MAX_ENTRIES (300 unless set) a write deletes
    # other keys, so anonymous initialize calls could evict counters.
    if issubclass(backend, LocMemCache | FileBasedCache | DatabaseCache) and _same_storage(
        alias, CACHE_ALIAS
    ):
        messages.append(
            CheckWarning(
                _(
                    "MCP_SESSION_CACHE {alias!r} is stored with the rate-limit counters "
                    "(cache {cache_alias!r}) in {backend_name}, which culls entries past "
                    "MAX_ENTRIES: creating sessions can evict rate-limit counters and "
                    "other sessions."
                ).format(alias=alias, cache_alias=CACHE_ALIAS, backend_name=backend.__name__),
                hint=_(
                    'Give sessions a cache alias of their own, e.g. CACHES["mcp-sessions"] '
                    "on a shared Redis or Memcached server and MCP_SESSION_CACHE = "
                    '"mcp-sessions".'
                ),
                id="django_mcp.W004",
            )
        )
    if issubclass(backend, LocMemCache | DummyCache):
        dummy = issubclass(backend, DummyCache)
        problem = (
            _("it stores nothing, so every 2025-11-25 session is unknown (404) right after initialize")
            if dummy
            else _(
                "each worker process has its own, so a 2025-11-25 session is unknown (404) on "
                "every worker but the one that created it"
            )
        )
        messages.append(
            CheckWarning(
                _("MCP_SESSION_CACHE {alias!r} uses {backend_name}: {problem}.").format(
                    alias=alias, backend_name=backend.__name__, problem=problem
                ),
                hint=(
                    _(
                        "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, "
                        "Memcached, the database cache)."
                    )
                    if dummy
                    else _(
                        "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, "
                        'Memcached, the database cache); with a single process, add "django_mcp.W005" '
                        "to SILENCED_SYSTEM_CHECKS."
                    )
                ),
                id="django_mcp.W005",
            )
        )
    return messages


def _cache_backend(alias: Any) -> type | None:
    """Return the backend class of cache ``alias``, or None if unknown."""
    config = settings.CACHES.get(alias) if isinstance(alias, str) else None
    if not isinstance(config, dict):
        return None
    backend, problem = _import(config.get("BACKEND"))
    return backend if problem is None and isinstance(backend, type) else None


def _same_storage(alias: str, other: str) -> bool:
    """Return True when two cache aliases keep their entries in one store."""
    if alias == other:
        return True
    first, second = settings.CACHES.get(alias, {}), settings.CACHES.get(other, {})
    # Two LocMemCache (or file-based) aliases with one LOCATION share it.
    return bool(
        first.get("BACKEND") == second.get("BACKEND")
        and first.get("LOCATION", "") == second.get("LOCATION", "")
    )


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
