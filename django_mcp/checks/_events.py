"""Checks of the change-notification backend (``MCP_EVENT_BACKEND``, ``MCP_EVENT_NAMESPACE``).

- ``E008`` ``MCP_EVENT_BACKEND`` cannot be imported
- ``E009`` ``MCP_EVENT_BACKEND`` is not an ``EventBackend`` subclass
- ``E010`` ``MCP_EVENT_BACKEND`` cannot be created
- ``E022`` ``MCP_EVENT_NAMESPACE`` is not None or a string without spaces

The backend's own ``check()`` messages are added to these
(``RedisEventBackend`` reports ``E020`` and ``E021``).

Deployment (``manage.py check --deploy``):

- ``W002`` ``MCP_EVENT_BACKEND`` is the in-process memory backend
"""

from __future__ import annotations

from django.core.checks import CheckMessage, Error
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext as _

from django_mcp.checks._loading import import_dotted
from django_mcp.conf import get_setting
from django_mcp.events import EventBackend, get_backend
from django_mcp.events.memory import MemoryEventBackend

__all__ = ["check_event_backend", "check_event_backend_deploy", "check_event_namespace"]

_MEMORY_BACKEND = "django_mcp.events.memory.MemoryEventBackend"
_REDIS_BACKEND = "django_mcp.events.redis.RedisEventBackend"


def check_event_backend() -> list[CheckMessage]:
    """Report an event backend that cannot be used; add its own ``check()`` messages."""
    path = get_setting("MCP_EVENT_BACKEND")
    backend_cls, problem = import_dotted(path)
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


def check_event_namespace() -> list[CheckMessage]:
    """Report an ``MCP_EVENT_NAMESPACE`` that is not None or one word."""
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


def check_event_backend_deploy() -> list[CheckMessage]:
    """Warn when change notifications stay inside one worker process."""
    backend_cls, problem = import_dotted(get_setting("MCP_EVENT_BACKEND"))
    if not (
        problem is None and isinstance(backend_cls, type) and issubclass(backend_cls, MemoryEventBackend)
    ):
        return []
    return [
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
    ]
