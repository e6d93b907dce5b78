"""Wire types of the skills extension ``io.modelcontextprotocol/skills`` (SEP-2640).

A ``Skill`` entry (here ``SkillDefinition``: this package's component class
is ``django_mcp.Skill``) is the same in ``skills/list`` and ``skills/get``:
the URI of the skill's ``SKILL.md``, its YAML frontmatter rendered verbatim
as a JSON object, and ``resources``, the complete manifest of its files
(``SKILL.md`` included), each with the SHA-256 digest (``sha256:`` and 64
lowercase hex digits) and the size in bytes of its raw content. Both
results are cacheable (``ttlMs``/``cacheScope``); ``skills/get`` carries no
cursor. ``resources/directory/read`` answers the direct children of a
directory resource (``mimeType: "inode/directory"``), paginated like
``resources/list``. The extension is specified against base revision
2026-07-28; it does not exist for 2025-11-25 clients. This module imports
nothing from Django and holds no behaviour.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from django_mcp.protocol._base import UNSET, Meta, UnsetType, WireStruct
from django_mcp.protocol.definitions import ResourceDefinition
from django_mcp.protocol.results import CacheScope

__all__ = [
    "DIRECTORY_MIME_TYPE",
    "EXTENSION",
    "GetSkillResult",
    "ListSkillsResult",
    "ReadResourceDirectoryResult",
    "SkillDefinition",
    "SkillResource",
]

EXTENSION: Final = "io.modelcontextprotocol/skills"
"""The extension's identifier in ``capabilities.extensions`` (SEP-2640)."""

DIRECTORY_MIME_TYPE: Final = "inode/directory"
"""The MIME type of a directory resource (SEP-2640 "Directory Resources")."""


class SkillResource(WireStruct, frozen=True):
    """One file of a skill: its URI, digest and size."""

    uri: str
    #: ``sha256:`` and the 64 lowercase hex digits of the file's raw bytes.
    digest: str
    #: Bytes of the raw content, the same bytes the digest covers.
    size: int


class SkillDefinition(WireStruct, frozen=True):
    """A skill as ``skills/list`` and ``skills/get`` describe it."""

    #: The URI of the skill's ``SKILL.md``.
    uri: str
    #: The ``SKILL.md`` YAML frontmatter, verbatim (keys are never renamed).
    frontmatter: dict[str, Any]
    #: Every file of the skill, or "dynamic" when no stable digests exist.
    resources: tuple[SkillResource, ...] | Literal["dynamic"]


class _SkillsResult(WireStruct, omit_defaults=False, frozen=True):
    """Fields every 2026-07-28 result shares (``resultType``, ``_meta``)."""

    result_type: str | UnsetType = "complete"
    meta: Meta | UnsetType = msgspec.field(default=UNSET, name="_meta")


class ListSkillsResult(_SkillsResult, frozen=True):
    """One page of ``skills/list``."""

    skills: tuple[SkillDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET
    ttl_ms: int | UnsetType = UNSET
    cache_scope: CacheScope | UnsetType = UNSET


class GetSkillResult(_SkillsResult, frozen=True):
    """The result of ``skills/get``: one entry, never a cursor."""

    skill: SkillDefinition | UnsetType = UNSET
    ttl_ms: int | UnsetType = UNSET
    cache_scope: CacheScope | UnsetType = UNSET


class ReadResourceDirectoryResult(_SkillsResult, frozen=True):
    """One page of ``resources/directory/read``: a directory's direct children."""

    resources: tuple[ResourceDefinition, ...] = ()
    next_cursor: str | UnsetType = UNSET
