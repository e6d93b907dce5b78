"""Where skills live: folders found the way templates are, and a storage.

A skill is a folder named after the skill holding a ``SKILL.md``. Skills
are looked up, in this order, in:

1. each folder of ``MCP_SKILLS_DIRS`` (``<folder>/<name>/SKILL.md``);
2. the ``skills`` folder of every installed app, in ``INSTALLED_APPS``
   order (``<app>/skills/<name>/SKILL.md``);
3. the Django storage ``MCP_SKILLS_STORAGE`` names, when it is set
   (``<name>/SKILL.md`` from the storage's root: give the alias its own
   location or prefix).

The first folder with a given name wins, so a project overrides an app's
skill by shipping one of the same name, exactly as with templates. Every
source is a Django ``Storage`` (a ``FileSystemStorage`` for a folder), so
listing and reading are one code path whatever holds the files. Names
starting with ``.`` or ending with ``~`` and ``__pycache__`` folders are
not part of a skill (version-control, editor and interpreter droppings),
and a folder nested more than ``MAX_DEPTH`` levels deep is refused (a
symbolic link loop). On disk, a skill's folder, and every file and folder in
it, must really be inside that folder once symbolic links are followed
(``SkillSource.outside``): a ``ref.md`` linked to the project's ``.env``
would publish whatever it points at, so listing a skill with one raises
``LeavesFolder``. A storage's files are where the storage says. Folders of
``MCP_SKILLS_DIRS`` that do not exist are skipped here and reported by
``manage.py check`` (``django_mcp.E028``).

Under ``runserver`` the autoreloader watches every skill folder on disk,
so editing a skill restarts the server, which then serves the new digests
(``watch_skill_folders``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import FileSystemStorage, InvalidStorageError, Storage, storages
from django.dispatch import receiver
from django.utils.autoreload import autoreload_started

from django_mcp.conf import get_setting

__all__ = [
    "MAX_DEPTH",
    "SKILL_FILE",
    "LeavesFolder",
    "SkillSource",
    "TooDeep",
    "find_skill",
    "found_skills",
    "is_ignored",
    "skill_sources",
    "watch_skill_folders",
]

SKILL_FILE: Final = "SKILL.md"
"""The file every skill folder holds at its root."""

MAX_DEPTH: Final = 32
"""Folder levels a skill may nest."""


class TooDeep(ValueError):
    """A skill's folders nest deeper than ``MAX_DEPTH`` levels."""


class LeavesFolder(ValueError):
    """A file or folder of a skill really lies outside the skill's folder (a symbolic link)."""

    def __init__(self, path: str, real: str) -> None:
        super().__init__(f"{path} leads to {real}, outside the skill's folder")
        #: The path as listed, from the source's root (``good/ref.md``).
        self.path = path
        #: Where it really is, symbolic links followed.
        self.real = real

    def __repr__(self) -> str:
        return f"LeavesFolder(path={self.path!r}, real={self.real!r})"


def is_ignored(name: str) -> bool:
    """Return True for a file or folder name that is never part of a skill."""
    return name.startswith(".") or name.endswith("~") or name == "__pycache__"


@dataclasses.dataclass(frozen=True, slots=True)
class SkillSource:
    """One place skills are looked up in: a storage and how to name it."""

    #: Names the source in messages: ``app 'demo' (/srv/demo/skills)``.
    label: str
    storage: Storage

    def has(self, name: str) -> bool:
        """Return True when this source holds the skill folder ``name``."""
        return bool(self.storage.exists(f"{name}/{SKILL_FILE}"))

    def names(self) -> list[str]:
        """Return the skill folders this source holds, sorted."""
        folders, _files = self.storage.listdir("")
        return sorted(name for name in folders if not is_ignored(name) and self.has(name))

    def files(self, name: str) -> Iterator[str]:
        """Yield the paths of the files of skill ``name``, relative to its folder.

        The order is the storage's; callers sort. Raises ``TooDeep`` past
        ``MAX_DEPTH`` levels, and ``LeavesFolder`` for the skill's folder, a
        file or a folder that really lies outside the skill's folder.
        """
        self._inside(name, "")
        yield from self._walk(name, "", 0)

    def outside(self, name: str, path: str = "") -> str | None:
        """Return where ``path`` of skill ``name`` really is when that is outside its folder, else None.

        ``path`` is relative to the skill's folder ("" is the folder
        itself). The skill's folder is ``<source>/<name>`` with the source's
        own links resolved: a skill folder that is itself a link elsewhere
        is outside too. Only a folder on disk has links; for any other
        storage the answer is None.
        """
        storage = self.storage
        if not isinstance(storage, FileSystemStorage):
            return None
        folder = os.path.join(os.path.realpath(storage.location), name)
        real = os.path.realpath(storage.path(f"{name}/{path}" if path else name))
        if real == folder or real.startswith(folder + os.sep):
            return None
        return real

    def _inside(self, name: str, path: str) -> None:
        real = self.outside(name, path)
        if real is not None:
            raise LeavesFolder(f"{name}/{path}" if path else name, real)

    def _walk(self, root: str, relative: str, depth: int) -> Iterator[str]:
        if depth > MAX_DEPTH:
            raise TooDeep(f"folders nest more than {MAX_DEPTH} levels deep below {root}/")
        folders, files = self.storage.listdir(f"{root}/{relative}" if relative else root)
        for file in files:
            if not is_ignored(file):
                path = f"{relative}/{file}" if relative else file
                self._inside(root, path)
                yield path
        for folder in folders:
            if not is_ignored(folder):
                path = f"{relative}/{folder}" if relative else folder
                # Before descending: a link to / is refused, not walked.
                self._inside(root, path)
                yield from self._walk(root, path, depth + 1)

    def read(self, path: str, limit: int) -> bytes:
        """Return the bytes of ``path``, at most ``limit`` plus one of them."""
        with self.storage.open(path, "rb") as handle:
            data = handle.read(limit + 1)
        return bytes(data)


def skill_sources() -> tuple[SkillSource, ...]:
    """Return the places skills are looked up in, in lookup order.

    Raises:
        ImproperlyConfigured: ``MCP_SKILLS_DIRS`` is not a list of paths,
            or ``MCP_SKILLS_STORAGE`` names no usable storage.
    """
    sources: list[SkillSource] = []
    folders = get_setting("MCP_SKILLS_DIRS")
    if isinstance(folders, str | bytes) or not isinstance(folders, list | tuple):
        raise ImproperlyConfigured(f"MCP_SKILLS_DIRS must be a list of folder paths, got {folders!r}")
    for index, folder in enumerate(folders):
        if not isinstance(folder, str | os.PathLike):
            raise ImproperlyConfigured(f"MCP_SKILLS_DIRS[{index}] must be a path, got {folder!r}")
        if os.path.isdir(folder):
            sources.append(_folder(f"MCP_SKILLS_DIRS[{index}] ({os.fspath(folder)})", folder))
    for config in apps.get_app_configs():
        folder = os.path.join(config.path, "skills")
        if os.path.isdir(folder):
            sources.append(_folder(f"app {config.label!r} ({folder})", folder))
    alias = get_setting("MCP_SKILLS_STORAGE")
    if alias is not None:
        sources.append(SkillSource(f"storage {alias!r}", _storage(alias)))
    return tuple(sources)


def _folder(label: str, path: Any) -> SkillSource:
    return SkillSource(label, FileSystemStorage(location=os.fspath(path)))


def _storage(alias: Any) -> Storage:
    if not isinstance(alias, str) or not alias:
        raise ImproperlyConfigured(f"MCP_SKILLS_STORAGE must be None or a STORAGES alias, got {alias!r}")
    try:
        return storages[alias]
    except InvalidStorageError as exc:
        raise ImproperlyConfigured(f"MCP_SKILLS_STORAGE {alias!r} is not a usable storage: {exc}") from None


def find_skill(name: str, sources: tuple[SkillSource, ...]) -> SkillSource | None:
    """Return the first of ``sources`` holding the skill ``name``, else None."""
    for source in sources:
        if source.has(name):
            return source
    return None


def found_skills(sources: tuple[SkillSource, ...]) -> dict[str, SkillSource]:
    """Return every skill name ``sources`` hold with the source that wins it."""
    found: dict[str, SkillSource] = {}
    for source in sources:
        for name in source.names():
            found.setdefault(name, source)
    return found


@receiver(autoreload_started, dispatch_uid="django_mcp.skills.watch")
def watch_skill_folders(sender: Any, **kwargs: Any) -> None:
    """Have the autoreloader restart the server when a skill file changes.

    Digests are computed once per process, so a change must start a new
    one, exactly as for code. A malformed skills setting watches nothing
    (``manage.py check`` reports it).
    """
    try:
        sources = skill_sources()
    except ImproperlyConfigured:
        return
    for source in sources:
        if isinstance(source.storage, FileSystemStorage):
            sender.watch_dir(Path(source.storage.location), "**/*")
