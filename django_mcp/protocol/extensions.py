"""The extensions this package knows: their stage and the revisions it speaks.

The extension lifecycle (SEP-3392, "Stages" and "Identifiers and
compatibility") gives every extension a stage: Experimental, Beta, Stable
or Core. A Beta extension may change incompatibly under the same
identifier and then adds or increments a ``revision`` string in its
settings object (the object a peer declares under
``capabilities.extensions[<id>]``); an absent ``revision`` means the
initial revision, and a peer that sees a ``revision`` it does not know
should not enable the extension.

This package declares the ``revision`` of the text it implements for each
Beta extension it serves (``REVISIONS``, newest last) and reads the
client's with ``client_revision``: absent is the initial revision, a known
one is answered as it is, and an unknown one (or one that is not a string)
leaves the extension disabled for that request. Nothing here imports
Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from django_mcp.protocol.skills import EXTENSION as SKILLS
from django_mcp.protocol.tasks import EXTENSION as TASKS
from django_mcp.protocol.ui import EXTENSION as UI  # MCP Apps (Stable): no revision

__all__ = [
    "INITIAL_REVISION",
    "REVISIONS",
    "STAGES",
    "UI",
    "Stage",
    "client_revision",
    "declares_unknown_revision",
    "revision_of",
]

Stage = Literal["experimental", "beta", "stable", "core"]
"""An extension's stage in the lifecycle (SEP-3392 "Stages")."""

STAGES: Final[Mapping[str, Stage]] = {
    TASKS: "beta",
    SKILLS: "beta",
    UI: "stable",
}
"""The stage of each extension this package knows (SEP-3392 "Transition")."""

INITIAL_REVISION: Final = "1"
"""The revision an absent ``revision`` means: the extension's first text."""

REVISIONS: Final[Mapping[str, tuple[str, ...]]] = {
    # SEP-2663 as specified against base revision 2026-07-28.
    TASKS: (INITIAL_REVISION,),
    # SEP-2640 as specified against base revision 2026-07-28.
    SKILLS: (INITIAL_REVISION,),
}
"""The revisions of each Beta extension this package implements, oldest first.

The last one is what the server declares; a client declaring any of them
is answered in that revision.
"""


def revision_of(extension: str) -> str:
    """Return the revision the server declares for Beta ``extension``."""
    return REVISIONS[extension][-1]


def client_revision(capabilities: Mapping[str, Any], extension: str) -> str | None:
    """Return the revision of ``extension`` the client declared, if known.

    None when the client does not declare the extension (its settings
    object is not an object), or declares a ``revision`` this package does
    not implement. An absent ``revision`` is the initial one.
    """
    declared = _declared(capabilities, extension)
    if declared is None:
        return None
    revision = declared.get("revision", INITIAL_REVISION)
    known = REVISIONS.get(extension, (INITIAL_REVISION,))
    return revision if isinstance(revision, str) and revision in known else None


def declares_unknown_revision(capabilities: Mapping[str, Any], extension: str) -> bool:
    """Return True when the client declares ``extension`` with a ``revision`` not implemented here."""
    return _declared(capabilities, extension) is not None and client_revision(capabilities, extension) is None


def _declared(capabilities: Mapping[str, Any], extension: str) -> Mapping[str, Any] | None:
    """Return the settings object the client declares for ``extension``, None when it is not one."""
    extensions = capabilities.get("extensions")
    declared = extensions.get(extension) if isinstance(extensions, Mapping) else None
    return declared if isinstance(declared, Mapping) else None
