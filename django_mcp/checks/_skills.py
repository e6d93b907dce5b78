"""Checks of skills: where they are read from, and each skill a server serves.

- ``E028`` ``MCP_SKILLS_DIRS`` is not a list of existing folders, or
  ``MCP_SKILLS_STORAGE`` is not None or an alias in ``STORAGES``

For each server (``check_servers``, which also reports the compiler's
``E029``-``E031`` in place of ``E015``):

- ``E038`` a skill's folder, or a file or folder in it, really lies outside
  the skill's folder (a symbolic link): the skill is not served
- ``W009`` a skill file is too large to be read within ``MCP_MAX_RESPONSE_SIZE``
- ``W010`` a skill's frontmatter ``metadata`` uses the ``io.modelcontextprotocol/``
  prefix MCP extensions reserve
"""

from __future__ import annotations

import math
import os
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error
from django.core.checks import Warning as CheckWarning
from django.utils.translation import gettext as _

from django_mcp.conf import get_setting
from django_mcp.server._frontmatter import reserved_metadata_keys

__all__ = ["check_skill_sources", "check_skills"]


def check_skill_sources() -> list[CheckMessage]:
    """Report skill folders and a skill storage that do not exist."""
    folders = get_setting("MCP_SKILLS_DIRS")
    messages: list[CheckMessage] = []
    if isinstance(folders, str | bytes) or not isinstance(folders, list | tuple):
        messages.append(
            Error(
                _("MCP_SKILLS_DIRS must be a list of folder paths, got {folders!r}.").format(folders=folders),
                hint=_('Write it as a list, e.g. MCP_SKILLS_DIRS = [BASE_DIR / "skills"].'),
                id="django_mcp.E028",
            )
        )
        folders = []
    for index, folder in enumerate(folders):
        if not isinstance(folder, str | os.PathLike) or not os.path.isdir(folder):
            messages.append(
                Error(
                    _("MCP_SKILLS_DIRS[{index}] ({folder!r}) is not an existing folder.").format(
                        index=index, folder=folder
                    ),
                    hint=_(
                        "Each entry is a folder holding one sub-folder per skill "
                        "(<folder>/<name>/SKILL.md); create it or remove the entry."
                    ),
                    id="django_mcp.E028",
                )
            )
    alias = get_setting("MCP_SKILLS_STORAGE")
    if alias is not None and not (isinstance(alias, str) and alias in settings.STORAGES):
        known = ", ".join(repr(name) for name in settings.STORAGES) or _("none")
        messages.append(
            Error(
                _("MCP_SKILLS_STORAGE {alias!r} is not an alias in STORAGES.").format(alias=alias),
                hint=_(
                    "Set it to None or to one of the configured storages ({known}), whose "
                    "root holds one folder per skill (<name>/SKILL.md)."
                ).format(known=known),
                id="django_mcp.E028",
            )
        )
    return messages


def check_skills(where: str, compiled: Any) -> list[CheckMessage]:
    """Report refused skills; warn about files no read can carry and reserved metadata keys."""
    limit = get_setting("MCP_MAX_RESPONSE_SIZE")
    messages: list[CheckMessage] = [
        Error(
            _(
                "{where}: skill {refused_name!r} in {refused_source} is not served: "
                "{refused_path} leads to {refused_real}, outside the skill's folder."
            ).format(
                where=where,
                refused_name=refused.name,
                refused_source=refused.source,
                refused_path=refused.path,
                refused_real=refused.real,
            ),
            hint=_(
                "A skill's files must really be inside its folder: replace the "
                "symbolic link with a copy of what it points at, or remove it. To "
                "serve a skill kept elsewhere, add the folder holding it to "
                "MCP_SKILLS_DIRS."
            ),
            obj=compiled.server,
            id="django_mcp.E038",
        )
        for refused in compiled.skills.refused
    ]
    for skill in compiled.skills.skills.values():
        for file in skill.files.values():
            # A blob travels as Base64: four bytes for every three.
            carried = file.size if file.text else 4 * math.ceil(file.size / 3)
            if isinstance(limit, int) and carried > limit:
                messages.append(
                    CheckWarning(
                        _(
                            "{where}: skill file {file_uri} is {file_size} bytes; a read of it "
                            "needs more than MCP_MAX_RESPONSE_SIZE ({limit} bytes) and fails."
                        ).format(where=where, file_uri=file.uri, file_size=file.size, limit=limit),
                        hint=_("Raise MCP_MAX_RESPONSE_SIZE, or split or shrink the file."),
                        obj=compiled.server,
                        id="django_mcp.W009",
                    )
                )
        reserved = reserved_metadata_keys(skill.definition.frontmatter)
        if reserved:
            messages.append(
                CheckWarning(
                    _(
                        "{where}: skill {skill_uri} uses the reserved metadata keys {join_map_repr_reserved}."
                    ).format(
                        where=where,
                        skill_uri=skill.uri,
                        join_map_repr_reserved=", ".join(map(repr, reserved)),
                    ),
                    hint=_(
                        "Keys starting with io.modelcontextprotocol/ are reserved for MCP "
                        "extensions, which define none yet: rename them."
                    ),
                    obj=compiled.server,
                    id="django_mcp.W010",
                )
            )
    return messages
