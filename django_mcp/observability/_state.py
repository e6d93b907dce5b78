"""Whether anything observes requests: decided when something changes, read by each request chain.

It is False only when nothing would see a request: no OpenTelemetry
provider (or ``MCP_TELEMETRY = False``), no audit (``MCP_AUDIT``), the
``django_mcp.calls`` logger not enabled for ``INFO`` and no receiver of
``mcp_request_finished``. Each dispatcher builds its request chain once
from this decision (the observing link only while ``OBSERVATION.active``)
and registers with ``watch()``. ``reconsider()`` marks the decision stale (a
dispatcher was built, a setting changed, a signal receiver came or went)
and has every watched dispatcher build its chain again on its next request,
which decides again first (``django_mcp.observability.refresh``). This
module imports nothing of the package, so anything may tell it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Final, Protocol

__all__ = ["OBSERVATION", "ChainOwner", "Observation", "reconsider"]


class ChainOwner(Protocol):
    """What builds a request chain from the decision (a ``Dispatcher``)."""

    def unload_chain(self) -> None:
        """Build the chain again on the next request."""


class Observation:
    """What observes requests now, as decided by the last ``refresh()``."""

    __slots__ = ("_owners", "active", "audit", "calls", "epoch", "generation", "lock", "stale", "telemetry")

    def __init__(self) -> None:
        #: False only when nothing observes requests.
        self.active = True
        #: True until a request has decided again what observes.
        self.stale = True
        #: Bumped by ``reconsider()``: a refresh that ran meanwhile stays stale.
        self.generation = 0
        #: Bumped by every change: a chain built meanwhile is not kept.
        self.epoch = 0
        #: Guards ``epoch`` against a chain installed while another change unloads it.
        self.lock = threading.Lock()
        #: The ``Telemetry`` of the configured providers, or None.
        self.telemetry: Any = None
        #: ``MCP_AUDIT``: "writes", "all" or None.
        self.audit: str | None = None
        #: True when the ``django_mcp.calls`` logger is enabled for ``INFO``.
        self.calls = False
        self._owners: weakref.WeakSet[Any] = weakref.WeakSet()

    def __repr__(self) -> str:
        return f"Observation(active={self.active}, stale={self.stale})"

    def watch(self, owner: ChainOwner) -> None:
        """Have ``owner`` (held weakly) build its chain again after each change."""
        with self.lock:
            self._owners.add(owner)

    def reconsider(self) -> None:
        """Have the next request decide again what observes it."""
        self.generation += 1
        self.stale = True
        self.active = True
        self.changed()

    def changed(self) -> None:
        """Have every watched owner build its chain again on its next request."""
        with self.lock:
            self.epoch += 1
            owners = list(self._owners)
        for owner in owners:
            owner.unload_chain()


OBSERVATION: Final = Observation()
"""The process-wide decision every dispatcher reads."""


def reconsider() -> None:
    """Have the next request decide again what observes it."""
    OBSERVATION.reconsider()
