"""Checks of the tasks extension: its settings, the Tasks framework and backend it runs on.

- ``E032`` ``MCP_TASK_RATE_LIMIT`` is not ``None`` or a rate such as ``"120/m"``
- ``E033`` ``MCP_TASK_BACKEND`` is not None or a string (a ``TASKS`` alias)
- ``W012`` ``MCP_TASK_LEASE_TIMEOUT`` is under ``MIN_LEASE_TIMEOUT`` seconds: a
  busy worker may miss a renewal, and its task be failed while it runs

For the servers a tool of which runs as a task (``check_servers``):

- ``E023`` Django's Tasks framework is missing
- ``E024`` ``MCP_TASK_BACKEND`` is unusable

Deployment (``manage.py check --deploy``):

- ``W006`` tasks run on an immediate (in the request) or dummy (never) backend
- ``W011`` tasks run in the in-process thread pool (no ``TASKS`` setting): a
  stopped process loses its queued and running tasks (they fail)
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext as _

from django_mcp.conf import DEFAULTS, get_setting, get_settings
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.ratelimit import parse_rate
from django_mcp.registry import registry
from django_mcp.tasks.backend import task_backend, task_decorator

__all__ = ["MIN_LEASE_TIMEOUT", "check_task_backend_deploy", "check_task_settings", "check_task_tools"]

MIN_LEASE_TIMEOUT = 5
"""Seconds under which ``MCP_TASK_LEASE_TIMEOUT`` is warned about (``W012``)."""


def check_task_settings() -> list[CheckMessage]:
    """Report a malformed task rate limit or backend alias; warn about a short lease."""
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


def check_task_tools(task_servers: list[str]) -> list[CheckMessage]:
    """Report a missing Tasks framework or backend when some tool runs as a task.

    With no ``TASKS`` alias to use (the in-process pool), nothing is needed.
    """
    if not task_servers or not isinstance(get_setting("MCP_TASK_BACKEND"), str | None):
        return []
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


def check_task_backend_deploy() -> list[CheckMessage]:
    """Warn when tasks run on a backend that runs jobs in the request or never."""
    servers = [*registry.web_servers().values(), *registry.local_servers().values()]
    if not any(_offers_tasks(server) for server in servers):
        return []
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
