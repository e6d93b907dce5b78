"""The registered check of the ``MCP_*`` settings, and the limits and names it checks itself.

``check_settings`` runs every settings check, topic by topic (each
module of this package checks its own settings); this module adds:

- ``E001`` a limit or duration setting has the wrong type
- ``E002`` a limit or duration setting is zero or negative
  (``MCP_QUEUE_TIMEOUT``: negative)
- ``E003`` ``MCP_DEFAULT_PAGE_SIZE`` is larger than ``MCP_MAX_PAGE_SIZE``
- ``E006`` an ``MCP_*`` setting django_mcp does not know (a typo)
- ``E040`` ``MCP_TASKS_EXTENSION`` or ``MCP_SKILLS_EXTENSION`` is not True
  or False
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register
from django.utils.translation import gettext as _

from django_mcp.checks._auth import check_authentication_backends, check_rate_limit, check_resource_metadata
from django_mcp.checks._events import check_event_backend, check_event_namespace
from django_mcp.checks._http import check_client_ip, check_origins
from django_mcp.checks._observability import check_observability
from django_mcp.checks._sessions import check_session_cache
from django_mcp.checks._skills import check_skill_sources
from django_mcp.checks._tasks import check_task_settings
from django_mcp.conf import DEFAULTS, get_setting

__all__ = ["check_settings"]

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
    "MCP_TASK_CLAIM_TIMEOUT",
)
#: Settings where zero is meaningful (0 seconds of queueing: refuse at once).
_ZERO_ALLOWED = frozenset({"MCP_QUEUE_TIMEOUT"})
#: Settings where None is meaningful (no task expiry, no polling hint, no task quota).
_NONE_ALLOWED = frozenset(
    {
        "MCP_TASK_TTL",
        "MCP_TASK_POLL_INTERVAL",
        "MCP_TASK_CLAIM_TIMEOUT",
        "MCP_MAX_TASKS_PER_CLIENT",
        "MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT",
    }
)


@register("django_mcp")
def check_settings(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return the errors found in the ``MCP_*`` settings."""
    messages: list[CheckMessage] = []
    messages += _check_numbers()
    messages += check_origins()
    messages += _check_unknown()
    messages += check_session_cache()
    messages += check_event_backend()
    messages += check_event_namespace()
    messages += check_authentication_backends()
    messages += check_rate_limit()
    messages += check_task_settings()
    messages += check_resource_metadata()
    messages += check_client_ip()
    messages += check_skill_sources()
    messages += check_observability()
    messages += _check_extension_switches()
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


def _check_extension_switches() -> list[CheckMessage]:
    """Report each Beta extension switch that is not a bool."""
    messages: list[CheckMessage] = []
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
