"""Protocol revisions this package speaks and how a request picks one.

Modern (2026-07-28) requests name their revision in ``params._meta`` on
every request; legacy (2025-11-25 and older) clients negotiate once with
``initialize``. Newest first, as ``server/discover`` lists them.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "LATEST",
    "LEGACY_VERSIONS",
    "MODERN_VERSIONS",
    "SUPPORTED_VERSIONS",
    "is_legacy",
    "negotiate_legacy",
]

LATEST: Final = "2026-07-28"
"""The revision this package implements natively."""

MODERN_VERSIONS: Final[tuple[str, ...]] = (LATEST,)
"""Stateless revisions: per-request ``_meta``, ``server/discover``."""

LEGACY_VERSIONS: Final[tuple[str, ...]] = ("2025-11-25", "2025-06-18", "2025-03-26")
"""Handshake revisions served through ``initialize`` sessions."""

SUPPORTED_VERSIONS: Final[tuple[str, ...]] = MODERN_VERSIONS + LEGACY_VERSIONS
"""Every revision served, newest first."""

_DATED_LEGACY: Final = frozenset({*LEGACY_VERSIONS, "2024-11-05"})


def is_legacy(version: str) -> bool:
    """Return True for a dated revision from the ``initialize`` era."""
    return version in _DATED_LEGACY


def negotiate_legacy(requested: object) -> str:
    """Return the legacy revision to answer an ``initialize`` with.

    The requested one when served, else the newest legacy revision
    (2025-11-25 lifecycle: the server proposes a version it supports).
    """
    if isinstance(requested, str) and requested in LEGACY_VERSIONS:
        return requested
    return LEGACY_VERSIONS[0]
