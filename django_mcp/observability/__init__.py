"""Observability of MCP requests: traces and metrics, signals, the call log, the audit trail.

Four observers see every request a dispatcher answers (HTTP on every way
to serve, STDIO, the admin playground, ``McpTestClient``) from one link of
the dispatcher's request chain (``_hooks.observing``, built into the chain
only while something observes), and every task run from one hook in
``django_mcp.tasks.run``:

* OpenTelemetry spans and the ``mcp.server.operation.duration`` histogram
  (``telemetry``), when ``opentelemetry-api`` is installed (the ``otel``
  extra), a tracer or meter provider is configured and ``MCP_TELEMETRY`` is
  True;
* ``django_mcp.signals.mcp_request_finished`` and
  ``mcp_task_status_changed``, when they have receivers;
* the call log (``calls``), when the ``django_mcp.calls`` logger is enabled
  for ``INFO``;
* the audit trail (``audit``), when ``MCP_AUDIT`` is ``"writes"`` or
  ``"all"``.

When none of them would see a request, the chain has no observing link
and a request pays nothing. What observes is decided again (and each
dispatcher's chain built again) on the next request after a dispatcher is
built, a setting changes (``setting_changed``, ``LOGGING``
included) or a receiver connects to or disconnects from the signals. A
provider configured, or a logger level changed, after requests have been
served is seen after ``refresh()``.

``instrument(tracer_provider=..., meter_provider=...)`` uses providers of
your own instead of the global ones (as OpenTelemetry instrumentations
accept them); ``instrument()`` goes back to the global ones.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver

from django_mcp.conf import get_settings
from django_mcp.observability import calls, telemetry
from django_mcp.observability._state import OBSERVATION, reconsider
from django_mcp.signals import mcp_request_finished, mcp_task_status_changed

__all__ = ["instrument", "reconsider", "refresh"]

#: Providers given to ``instrument()`` (None: the global ones).
_providers: dict[str, Any] = {"tracer": None, "meter": None}


def refresh() -> None:
    """Decide now what observes requests (telemetry, call log, signals, audit).

    Every dispatcher builds its request chain again on its next request.
    """
    state = OBSERVATION
    generation = state.generation
    settings = get_settings()
    built = telemetry.build(_providers["tracer"], _providers["meter"]) if settings.telemetry else None
    state.telemetry = built
    state.audit = settings.audit
    state.calls = calls.logger.isEnabledFor(logging.INFO)
    if state.generation == generation:
        state.stale = False
    state.active = bool(
        state.stale or built is not None or state.calls or state.audit or mcp_request_finished.receivers
    )
    state.changed()


def instrument(*, tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Trace and measure requests with these OpenTelemetry providers instead of the global ones.

    Without arguments, go back to the global providers. Takes effect at
    once.
    """
    _providers["tracer"] = tracer_provider
    _providers["meter"] = meter_provider
    reconsider()
    refresh()


@receiver(setting_changed)
def _reconsider_settings(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith("MCP_") or setting == "LOGGING":
        reconsider()


# A receiver coming or going changes what observes requests.
mcp_request_finished.watchers.append(reconsider)
mcp_task_status_changed.watchers.append(reconsider)
