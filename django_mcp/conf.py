"""Settings for django_mcp: defaults, lazy access, reload on change.

This is the only module that reads ``django.conf.settings`` for the request
path: the ``MCP_*`` settings (``McpSettings``) and the few Django settings
the HTTP endpoint applies itself (``DjangoSettings``). Every setting is
a top-level ``MCP_*`` name; values are read when first needed (never at
import time) and re-read after ``setting_changed`` so ``override_settings``
and pytest-django's ``settings`` fixture work.

Limits (all enforced per request, exceeding one gives a specific error):

=============================== ======= ====================================
Setting                         Default Bound
=============================== ======= ====================================
``MCP_MAX_REQUEST_SIZE``        1 MiB   bytes of one incoming message
``MCP_MAX_RESPONSE_SIZE``       4 MiB   bytes of one encoded response
``MCP_MAX_METADATA_SIZE``       64 KiB  bytes of a result's encoded ``_meta``
``MCP_DEFAULT_PAGE_SIZE``       50      list items per page
``MCP_MAX_PAGE_SIZE``           100     upper bound for any page
``MCP_MAX_CONCURRENT_REQUESTS`` 32      requests in flight per process
``MCP_MAX_JSON_DEPTH``          64      nesting levels of one message
=============================== ======= ====================================

Past ``MCP_MAX_CONCURRENT_REQUESTS`` a request waits for a slot up to
``MCP_QUEUE_TIMEOUT`` (10 seconds; 0 refuses at once). ``MCP_MAX_STREAMS``
(1000) bounds the ``subscriptions/listen`` and 2025-11-25 GET streams open
in one process; each holds at most ``MCP_STREAM_BUFFER`` (1000) change events
not yet sent, and one that falls further behind ends (its client re-lists).

Tasks (``io.modelcontextprotocol/tasks``) run on the Tasks framework backend
``MCP_TASK_BACKEND`` names (an alias of Django's ``TASKS``; None, the
default: ``"default"`` when the project sets ``TASKS``, else
``MCP_TASK_THREADS`` (4) threads inside the server process), are kept
``MCP_TASK_TTL`` seconds once their work ends (3600; None: unlimited) and
suggest polling every ``MCP_TASK_POLL_INTERVAL`` seconds (1; None: no
suggestion). A running task's worker renews its lease; one not renewed for
``MCP_TASK_LEASE_TIMEOUT`` seconds (30) means the worker stopped; a
queued job no worker started within ``MCP_TASK_CLAIM_TIMEOUT`` seconds
(600; None: no limit) fails. One
caller may have ``MCP_MAX_TASKS_PER_CLIENT`` unfinished tasks (100; None:
unlimited), an anonymous one also at most
``MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT`` (10; None: no limit of its own), and
create ``MCP_TASK_RATE_LIMIT`` of them ("120/m"; None: unlimited).

Both are Beta extensions (SEP-3392): ``MCP_TASKS_EXTENSION`` and
``MCP_SKILLS_EXTENSION`` (True) serve each; False stops advertising it and
its methods answer -32601 (a task-capable tool's calls then run directly;
skill files stay readable as resources).

Skills (``io.modelcontextprotocol/skills``) are looked up in the folders of
``MCP_SKILLS_DIRS``, then in each installed app's ``skills/`` folder, then
in the storage ``MCP_SKILLS_STORAGE`` names (an alias of ``STORAGES``).

Observability (``django_mcp.observability``): ``MCP_TELEMETRY`` (True)
lets OpenTelemetry spans and metrics out when a provider is configured;
``MCP_AUDIT`` (None: off; "writes" or "all") chooses the calls the audit
trail records, with the argument keys matching ``MCP_AUDIT_REDACT``
replaced and the arguments cut past ``MCP_AUDIT_MAX_ARGUMENTS_SIZE`` bytes
(4 KiB), kept ``MCP_AUDIT_RETENTION_DAYS`` days (90; None: forever).

Idempotency keys (``Tool.idempotency_keys``) are remembered
``MCP_IDEMPOTENCY_KEY_TTL`` seconds (86400, a day): a retry within it gets
the first call's result, a later one runs again.

2025-11-25 sessions over HTTP are bounded too: ``MCP_MAX_SESSION_SIZE``
(16 KiB, bytes a session stores) and ``MCP_MAX_SESSIONS_PER_CLIENT`` (100
sessions opened per caller per ``MCP_SESSION_TIMEOUT`` window).
"""

from __future__ import annotations

import dataclasses
import functools
import urllib.parse
from collections.abc import Callable
from typing import Any, Final

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.crypto import salted_hmac
from django.utils.module_loading import import_string

from django_mcp.protocol.skills import EXTENSION as SKILLS_EXTENSION
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION

__all__ = [
    "AUDIT_MODES",
    "DEFAULT_LIMITS",
    "DEFAULTS",
    "DjangoSettings",
    "Limits",
    "McpSettings",
    "get_client_ip",
    "get_django_settings",
    "get_event_namespace",
    "get_limits",
    "get_setting",
    "get_settings",
]

KiB: Final = 1024
MiB: Final = 1024 * KiB


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """Resource bounds applied to every request."""

    max_request_size: int = 1 * MiB  # bytes
    max_response_size: int = 4 * MiB  # bytes
    max_metadata_size: int = 64 * KiB  # bytes
    default_page_size: int = 50  # items
    max_page_size: int = 100  # items
    max_concurrent_requests: int = 32  # per process
    max_json_depth: int = 64  # levels of nested arrays/objects in one message


DEFAULT_LIMITS: Final = Limits()
"""The limits used when no ``MCP_*`` limit setting is given."""

DEFAULTS: Final[dict[str, Any]] = {
    "MCP_MAX_REQUEST_SIZE": DEFAULT_LIMITS.max_request_size,
    "MCP_MAX_RESPONSE_SIZE": DEFAULT_LIMITS.max_response_size,
    "MCP_MAX_METADATA_SIZE": DEFAULT_LIMITS.max_metadata_size,
    "MCP_DEFAULT_PAGE_SIZE": DEFAULT_LIMITS.default_page_size,
    "MCP_MAX_PAGE_SIZE": DEFAULT_LIMITS.max_page_size,
    "MCP_MAX_CONCURRENT_REQUESTS": DEFAULT_LIMITS.max_concurrent_requests,
    "MCP_MAX_JSON_DEPTH": DEFAULT_LIMITS.max_json_depth,
    # Seconds a request over MCP_MAX_CONCURRENT_REQUESTS waits for a slot.
    "MCP_QUEUE_TIMEOUT": 10,
    # Long-lived streams (subscriptions/listen, legacy GET) open per process.
    "MCP_MAX_STREAMS": 1000,
    # Origins allowed besides loopback ones, e.g. ["https://app.example.com"].
    "MCP_ALLOWED_ORIGINS": [],
    # Seconds a signed requestState (multi round-trip) stays valid.
    "MCP_REQUEST_STATE_MAX_AGE": 600,
    # Cache alias holding 2025-11-25 sessions, and their idle lifetime (s).
    "MCP_SESSION_CACHE": "default",
    "MCP_SESSION_TIMEOUT": 3600,
    # Bytes a 2025-11-25 session may store (capabilities, clientInfo and
    # subscribed URIs, encoded as JSON).
    "MCP_MAX_SESSION_SIZE": 16 * KiB,
    # 2025-11-25 sessions one caller may open per MCP_SESSION_TIMEOUT window.
    "MCP_MAX_SESSIONS_PER_CLIENT": 100,
    # Dotted path of the change-notification backend.
    "MCP_EVENT_BACKEND": "django_mcp.events.memory.MemoryEventBackend",
    # Redis URL for django_mcp.events.redis.RedisEventBackend.
    "MCP_REDIS_URL": "redis://127.0.0.1:6379/0",
    # Name separating this deployment's Redis channels from any other
    # project's on the same server (None: derived, see get_event_namespace).
    "MCP_EVENT_NAMESPACE": None,
    # Change events one stream may hold unsent; past it the stream ends.
    "MCP_STREAM_BUFFER": 1000,
    # Dotted paths of request authenticators tried in order (bearer tokens).
    "MCP_AUTHENTICATION_BACKENDS": [],
    # OAuth 2.0 Protected Resource Metadata (RFC 9728) for 401 challenges.
    "MCP_RESOURCE_METADATA": None,
    # Tool calls per identity, e.g. "60/m" (None: unlimited).
    "MCP_RATE_LIMIT": None,
    # Dotted path of func(request) -> str | None giving the client address
    # the rate limit counts (None: REMOTE_ADDR).
    "MCP_CLIENT_IP": None,
    # Seconds between SSE keep-alive comments on long-lived streams.
    "MCP_SSE_KEEPALIVE": 20,
    # Put io.modelcontextprotocol/serverInfo in every result's _meta.
    "MCP_SERVER_INFO": True,
    # Alias in Django's TASKS setting that runs tool calls turned into
    # tasks (the io.modelcontextprotocol/tasks extension). None: "default"
    # when the project sets TASKS, else a thread pool in the server process.
    "MCP_TASK_BACKEND": None,
    # Threads of that in-process pool (per process).
    "MCP_TASK_THREADS": 4,
    # Seconds a task is kept once its work ends (None: unlimited).
    "MCP_TASK_TTL": 3600,
    # Serve the io.modelcontextprotocol/tasks extension (Beta) to servers
    # with a task-capable tool.
    "MCP_TASKS_EXTENSION": True,
    # Serve the io.modelcontextprotocol/skills extension (Beta) to servers
    # with skills.
    "MCP_SKILLS_EXTENSION": True,
    # Seconds clients are asked to wait between tasks/get polls (None: no hint).
    "MCP_TASK_POLL_INTERVAL": 1,
    # Seconds a running task's lease lasts unless its worker renews it; a
    # task whose lease lapses has lost its worker.
    "MCP_TASK_LEASE_TIMEOUT": 30,
    # Seconds a queued task's job may wait for a worker to start it; one
    # that waits longer (a job the backend discarded, a queue no worker
    # serves) fails (None: it may wait forever).
    "MCP_TASK_CLAIM_TIMEOUT": 600,
    # Unfinished (working or input_required) tasks one caller may have
    # (None: unlimited).
    "MCP_MAX_TASKS_PER_CLIENT": 100,
    # Unfinished tasks one anonymous caller (no user; counted by address) may
    # have, on top of the limit above (None: no limit of its own).
    "MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT": 10,
    # Tasks one caller may create, e.g. "120/m" (None: unlimited).
    "MCP_TASK_RATE_LIMIT": "120/m",
    # Folders searched for skills (<folder>/<name>/SKILL.md) before the
    # installed apps' skills/ folders.
    "MCP_SKILLS_DIRS": [],
    # STORAGES alias searched for skills (<name>/SKILL.md) after them (None: none).
    "MCP_SKILLS_STORAGE": None,
    # OpenTelemetry spans and metrics (django_mcp.observability) when the
    # opentelemetry-api package is installed and a provider is configured;
    # False: never, whatever is configured.
    "MCP_TELEMETRY": True,
    # Which calls the audit trail (McpAuditEntry) records: None or "off"
    # (none), "writes" (tools/call of tools not marked readOnlyHint) or "all".
    "MCP_AUDIT": None,
    # Regular expressions (case-insensitive, searched) naming argument keys
    # whose values an audit entry replaces with "[redacted]". The second one
    # finds one-time passwords (otp, otp_code, userOtp, totp) but not the
    # letters inside a word (footprint).
    "MCP_AUDIT_REDACT": [
        r"password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
        r"|authorization|cookie|credential|signature",
        r"(?:^|[^a-z])t?otp|(?-i:[a-z](?:T?Otp|T?OTP|Totp))",
    ],
    # Bytes of compact JSON an audit entry keeps of a call's redacted
    # arguments; larger ones are stored cut and marked "[truncated]".
    "MCP_AUDIT_MAX_ARGUMENTS_SIZE": 4 * KiB,
    # Days audit entries are kept; manage.py mcp_prune_audit deletes older
    # ones (None: kept forever).
    "MCP_AUDIT_RETENTION_DAYS": 90,
    # Seconds an idempotency key (and the result stored with it) is kept;
    # manage.py mcp_prune_idempotency_keys deletes older ones.
    "MCP_IDEMPOTENCY_KEY_TTL": 86400,
    # Model fields the generated admin and DRF tools never show, besides
    # the credentials they always hide (django_mcp.contrib.secrets): a name
    # ("api_key", hidden on every model) or "app_label.model.field".
    "MCP_HIDDEN_FIELDS": [],
}
"""Every ``MCP_*`` setting with its default."""


def get_setting(name: str) -> Any:
    """Return the value of setting ``name`` (project value or default)."""
    if name not in DEFAULTS:
        raise KeyError(f"unknown django_mcp setting {name!r}")
    return _read(name)


@functools.cache
def _read(name: str) -> Any:
    return getattr(settings, name, DEFAULTS[name])


@functools.cache
def get_limits() -> Limits:
    """Return the configured ``Limits`` (cached until a setting changes)."""
    return Limits(
        max_request_size=get_setting("MCP_MAX_REQUEST_SIZE"),
        max_response_size=get_setting("MCP_MAX_RESPONSE_SIZE"),
        max_metadata_size=get_setting("MCP_MAX_METADATA_SIZE"),
        default_page_size=get_setting("MCP_DEFAULT_PAGE_SIZE"),
        max_page_size=get_setting("MCP_MAX_PAGE_SIZE"),
        max_concurrent_requests=get_setting("MCP_MAX_CONCURRENT_REQUESTS"),
        max_json_depth=get_setting("MCP_MAX_JSON_DEPTH"),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class McpSettings:
    """Every setting the request path reads, as one value.

    The dispatcher and the transports receive this value instead of reading
    Django's settings on each request; ``get_settings()`` builds it once and
    again after ``setting_changed``.
    """

    limits: Limits = DEFAULT_LIMITS
    allowed_origins: tuple[str, ...] = ()
    request_state_max_age: int = 600  # seconds
    session_cache: str = "default"
    session_timeout: int = 3600  # seconds
    max_session_size: int = 16 * KiB  # bytes
    max_sessions_per_client: int = 100  # per MCP_SESSION_TIMEOUT window
    authentication_backends: tuple[str, ...] = ()
    rate_limit: str | None = None
    sse_keepalive: float = 20  # seconds
    server_info: bool = True
    queue_timeout: float = 10  # seconds a request waits for a slot
    max_streams: int = 1000  # open streams per process
    #: The alias in Django's TASKS that runs tasks (``MCP_TASK_BACKEND``, or
    #: "default" when the project sets TASKS); None: the in-process pool.
    task_backend: str | None = None
    task_threads: int = 4  # threads of the in-process task pool
    task_ttl: float | None = 3600  # seconds a task is kept once done; None: unlimited
    task_poll_interval: float | None = 1  # seconds between polls; None: no hint
    task_lease_timeout: float = 30  # seconds a running task's lease lasts
    task_claim_timeout: float | None = 600  # seconds a queued job may wait for a worker; None: forever
    max_tasks_per_client: int | None = 100  # unfinished tasks per caller; None: unlimited
    max_tasks_per_anonymous_client: int | None = 10  # per anonymous caller too; None: no own limit
    task_rate_limit: str | None = "120/m"  # task creations per caller; None: unlimited
    #: The Beta extensions served (``MCP_TASKS_EXTENSION``, ``MCP_SKILLS_EXTENSION``).
    beta_extensions: frozenset[str] = frozenset({TASKS_EXTENSION, SKILLS_EXTENSION})
    #: Emit OpenTelemetry spans and metrics when a provider is configured.
    telemetry: bool = True
    #: Which calls are audited: None (none), "writes" or "all".
    audit: str | None = None
    #: The argument keys an audit entry redacts, as regular expressions.
    audit_redact: tuple[str, ...] = ()
    audit_max_arguments_size: int = 4 * KiB  # bytes of an audit entry's arguments
    idempotency_key_ttl: float = 86400  # seconds an idempotency key is kept


@functools.cache
def get_settings() -> McpSettings:
    """Return the configured ``McpSettings`` (cached until a setting changes)."""
    return McpSettings(
        limits=get_limits(),
        allowed_origins=tuple(get_setting("MCP_ALLOWED_ORIGINS")),
        request_state_max_age=get_setting("MCP_REQUEST_STATE_MAX_AGE"),
        session_cache=get_setting("MCP_SESSION_CACHE"),
        session_timeout=get_setting("MCP_SESSION_TIMEOUT"),
        max_session_size=get_setting("MCP_MAX_SESSION_SIZE"),
        max_sessions_per_client=get_setting("MCP_MAX_SESSIONS_PER_CLIENT"),
        authentication_backends=tuple(get_setting("MCP_AUTHENTICATION_BACKENDS")),
        rate_limit=get_setting("MCP_RATE_LIMIT"),
        sse_keepalive=get_setting("MCP_SSE_KEEPALIVE"),
        server_info=bool(get_setting("MCP_SERVER_INFO")),
        queue_timeout=get_setting("MCP_QUEUE_TIMEOUT"),
        max_streams=get_setting("MCP_MAX_STREAMS"),
        task_backend=_task_alias(),
        task_threads=get_setting("MCP_TASK_THREADS"),
        task_ttl=get_setting("MCP_TASK_TTL"),
        task_poll_interval=get_setting("MCP_TASK_POLL_INTERVAL"),
        task_lease_timeout=get_setting("MCP_TASK_LEASE_TIMEOUT"),
        task_claim_timeout=get_setting("MCP_TASK_CLAIM_TIMEOUT"),
        max_tasks_per_client=get_setting("MCP_MAX_TASKS_PER_CLIENT"),
        max_tasks_per_anonymous_client=get_setting("MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT"),
        task_rate_limit=get_setting("MCP_TASK_RATE_LIMIT"),
        beta_extensions=frozenset(
            extension
            for extension, setting in (
                (TASKS_EXTENSION, "MCP_TASKS_EXTENSION"),
                (SKILLS_EXTENSION, "MCP_SKILLS_EXTENSION"),
            )
            if get_setting(setting) is not False
        ),
        telemetry=bool(get_setting("MCP_TELEMETRY")),
        audit=_audit_mode(),
        audit_redact=tuple(_strings(get_setting("MCP_AUDIT_REDACT"))),
        audit_max_arguments_size=get_setting("MCP_AUDIT_MAX_ARGUMENTS_SIZE"),
        idempotency_key_ttl=get_setting("MCP_IDEMPOTENCY_KEY_TTL"),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class DjangoSettings:
    """The Django settings the HTTP endpoint applies itself, as one value.

    ``McpASGIApp`` and ``McpWSGIApp`` serve MCP requests without Django's
    handler: these are the rules of Django's they apply in its place
    (``ALLOWED_HOSTS`` as ``request.get_host()`` does, the proxy headers, the
    session cookie ``SessionMiddleware`` and ``AuthenticationMiddleware``
    read).
    """

    #: ``ALLOWED_HOSTS``, or what Django allows under ``DEBUG`` when it is empty.
    allowed_hosts: tuple[str, ...] = ()
    use_x_forwarded_host: bool = False
    use_x_forwarded_port: bool = False
    #: ``SECURE_PROXY_SSL_HEADER`` as (lowercase header name, value), or None.
    secure_proxy_ssl_header: tuple[str, str] | None = None
    session_cookie_name: str = "sessionid"
    session_engine: str = "django.contrib.sessions.backends.db"
    #: Both session and authentication middleware are in ``MIDDLEWARE``:
    #: the session cookie identifies the caller, as it would under Django.
    session_auth: bool = False
    #: ``django.contrib.auth`` is installed: an unidentified caller is
    #: ``AnonymousUser`` (without it, there is no identity at all).
    auth_installed: bool = False
    #: ``DEBUG``: the admin's playground shows staff why a tool failed.
    debug: bool = False


_SESSION_MIDDLEWARE: Final = "django.contrib.sessions.middleware.SessionMiddleware"
_AUTH_MIDDLEWARE: Final = "django.contrib.auth.middleware.AuthenticationMiddleware"
#: What Django's ``get_host()`` allows under ``DEBUG`` with an empty ``ALLOWED_HOSTS``.
_DEBUG_HOSTS: Final = (".localhost", "127.0.0.1", "[::1]")


@functools.cache
def get_django_settings() -> DjangoSettings:
    """Return the ``DjangoSettings`` the endpoint applies (cached until a setting changes)."""
    allowed = tuple(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = _DEBUG_HOSTS
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy is not None:
        name, value = proxy
        # A META name (HTTP_X_FORWARDED_PROTO) as the header it stands for.
        proxy = (name.removeprefix("HTTP_").replace("_", "-").lower(), value)
    middleware = set(settings.MIDDLEWARE)
    return DjangoSettings(
        allowed_hosts=allowed,
        use_x_forwarded_host=bool(settings.USE_X_FORWARDED_HOST),
        use_x_forwarded_port=bool(settings.USE_X_FORWARDED_PORT),
        secure_proxy_ssl_header=proxy,
        session_cookie_name=settings.SESSION_COOKIE_NAME,
        session_engine=settings.SESSION_ENGINE,
        session_auth=_SESSION_MIDDLEWARE in middleware and _AUTH_MIDDLEWARE in middleware,
        auth_installed=apps.is_installed("django.contrib.auth"),
        debug=bool(settings.DEBUG),
    )


AUDIT_MODES: Final = ("writes", "all")
"""The values of ``MCP_AUDIT`` that record calls (None and "off" record none)."""


def _audit_mode() -> str | None:
    """Return ``MCP_AUDIT`` as "writes", "all" or None (off, or a value E034 reports)."""
    mode = get_setting("MCP_AUDIT")
    return mode if mode in AUDIT_MODES else None


def _strings(value: Any) -> list[str]:
    """Return the strings of a list setting (E035 reports anything else)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list | tuple) else []


def _task_alias() -> str | None:
    """Return the TASKS alias tasks run on, or None for the in-process pool."""
    alias = get_setting("MCP_TASK_BACKEND")
    if alias is not None:
        return str(alias)
    # Django 6 always has a TASKS setting (an immediate backend): only one
    # the project wrote itself says where its jobs should run.
    # django-stubs' plugin types `settings` as the settings module, without
    # LazySettings' own methods.
    return "default" if settings.is_overridden("TASKS") else None  # type: ignore[misc]


@functools.cache
def get_client_ip() -> Callable[[Any], str | None] | None:
    """Return the ``MCP_CLIENT_IP`` function, or None to use ``REMOTE_ADDR``.

    The setting is a callable or the dotted path of one, imported once.

    Raises:
        ImproperlyConfigured: the path cannot be imported or is not callable.
    """
    value = get_setting("MCP_CLIENT_IP")
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = import_string(value)
        except ImportError as exc:
            raise ImproperlyConfigured(f"MCP_CLIENT_IP: cannot import {value!r}: {exc}") from None
    if not callable(value):
        raise ImproperlyConfigured(f"MCP_CLIENT_IP must be a callable or its dotted path, got {value!r}")
    return value  # type: ignore[no-any-return]


@functools.cache
def get_event_namespace() -> str:
    """Return the name that keeps this deployment's Redis channels apart.

    ``MCP_EVENT_NAMESPACE`` when set; otherwise the database number of
    ``MCP_REDIS_URL`` (Redis pub/sub ignores databases, so two projects on
    one server would otherwise hear each other) and a short keyed hash of
    ``SECRET_KEY`` (of the settings module without one), which reveals
    nothing about the key. Every worker of one deployment shares both.
    """
    value = get_setting("MCP_EVENT_NAMESPACE")
    if value:
        return str(value)
    url = urllib.parse.urlsplit(str(get_setting("MCP_REDIS_URL")))
    db = url.path.strip("/") or urllib.parse.parse_qs(url.query).get("db", ["0"])[0]
    try:
        secret = settings.SECRET_KEY
    except ImproperlyConfigured:  # an empty SECRET_KEY
        secret = ""
    secret = secret or str(getattr(settings, "SETTINGS_MODULE", ""))
    digest = salted_hmac("django_mcp.events.namespace", "", secret=secret, algorithm="sha256").hexdigest()
    return f"{db}.{digest[:12]}"


#: Django settings ``get_django_settings()`` reads.
_DJANGO_NAMES: Final = frozenset(
    {
        "ALLOWED_HOSTS",
        "DEBUG",
        "USE_X_FORWARDED_HOST",
        "USE_X_FORWARDED_PORT",
        "SECURE_PROXY_SSL_HEADER",
        "SESSION_COOKIE_NAME",
        "SESSION_ENGINE",
        "MIDDLEWARE",
        "INSTALLED_APPS",
    }
)


@receiver(setting_changed)
def _reload(*, setting: str, **kwargs: Any) -> None:
    if setting in _DJANGO_NAMES:
        get_django_settings.cache_clear()
    if setting.startswith("MCP_") or setting in ("SECRET_KEY", "DEBUG", "TASKS"):
        _read.cache_clear()
        get_limits.cache_clear()
        get_settings.cache_clear()
        get_client_ip.cache_clear()
        get_event_namespace.cache_clear()
