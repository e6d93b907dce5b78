"""Whether anything observes requests: one flag a request reads, decided when something changes.

``OBSERVATION.active`` is the one attribute ``Dispatcher.respond`` tests.
It is False only when nothing would see a request: no OpenTelemetry
provider (or ``MCP_TELEMETRY = False``), no audit (``MCP_AUDIT``), the
``django_mcp.calls`` logger not enabled for ``INFO`` and no receiver of
``mcp_request_finished``. ``reconsider()`` marks the decision stale (a
dispatcher was built, a setting changed, a signal receiver came or went):
the flag turns True and the next request decides again
(``django_mcp.observability.refresh``). This module imports nothing of the
package, so anything may tell it.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["OBSERVATION", "Observation", "reconsider"]


class Observation:
    """What observes requests now, as decided by the last ``refresh()``."""

    __slots__ = ("active", "audit", "calls", "generation", "stale", "telemetry")

    def __init__(self) -> None:
        #: False only when nothing observes requests (``Dispatcher.respond``'s test).
        self.active = True
        #: True until a request has decided again what observes.
        self.stale = True
        #: Bumped by ``reconsider()``: a refresh that ran meanwhile stays stale.
        self.generation = 0
        #: The ``Telemetry`` of the configured providers, or None.
        self.telemetry: Any = None
        #: ``MCP_AUDIT``: "writes", "all" or None.
        self.audit: str | None = None
        #: True when the ``django_mcp.calls`` logger is enabled for ``INFO``.
        self.calls = False

    def __repr__(self) -> str:
        return f"Observation(active={self.active}, stale={self.stale})"

    def reconsider(self) -> None:
        """Have the next request decide again what observes it."""
        self.generation += 1
        self.stale = True
        self.active = True


OBSERVATION: Final = Observation()
"""The process-wide decision every dispatcher reads."""


def reconsider() -> None:
    """Have the next request decide again what observes it."""
    OBSERVATION.reconsider()
