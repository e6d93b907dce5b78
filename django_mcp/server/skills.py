"""Skills: folders of instructions a server serves (``io.modelcontextprotocol/skills``).

A server lists the skills it serves in ``skills``: skill names, ``Skill``
subclasses (to guard a skill or give it a URI prefix), or ``"__all__"``
for every skill the finders locate (``_skill_sources``: the folders of
``MCP_SKILLS_DIRS``, then each installed app's ``skills/`` folder, then
the ``MCP_SKILLS_STORAGE`` storage). With ``"__all__"`` a skill folder
dropped into an installed app's ``skills/`` is served at the next start
with no other change.

When the server compiles, ``compile_skills()`` reads every file of every
skill once and validates it (SEP-2640 "Skill Format", "Limits"):

* ``SKILL.md`` is UTF-8 text opening with YAML frontmatter that follows the
  Agent Skills rules (``_frontmatter``), and its ``name`` equals the
  folder's name;
* a skill has at most ``MAX_FILES`` (512) files and ``MAX_TOTAL_SIZE``
  (16 MiB) of them, ``SKILL.md`` included.

Each file's SHA-256 digest and size are computed then and published for the
life of the process; a file that changes on disk afterwards is refused when
read, until the next start (``runserver`` restarts when a skill file of a
folder changes, as it does for code). A problem with a skill's files is
collected and, once every skill was looked at, all are raised together as
one ``SkillError`` whose problems carry their check ids (``E029`` PyYAML
missing, ``E030`` invalid skill, ``E031`` no such skill). Declaration
mistakes (a bad name or prefix, a duplicate) are plain
``ImproperlyConfigured``, as for every other component.

A skill on disk whose folder, or any file or folder in it, really lies
outside the skill's folder once symbolic links are followed (a ``ref.md``
linked to the project's ``.env``) is refused whole: none of its files is
served, its URIs answer like unknown ones, the refusal is logged and kept
in ``SkillCatalog.refused``, and ``manage.py check`` reports it (``E038``).
The other skills of the server are served as usual. A file swapped for
such a link after the server compiled is refused when read
(``dispatcher/skills.py``).

URIs (SEP-2640 "Resource Mapping"): a skill's root is
``skill://<prefix>/<name>`` (``skill://<name>`` without a prefix), its
``SKILL.md`` is ``<root>/SKILL.md`` and every other file ``<root>/<path>``,
each path segment percent-encoded (RFC 3986). The root, each folder inside
it and each level of the prefix are directory resources
(``inode/directory``). ``SKILL.md`` is ``text/markdown``; other files get
the MIME type of their extension (the standard library's own table, so the
same on every machine), else ``text/plain`` for UTF-8 text and
``application/octet-stream`` for anything else. A file is served as text
when it is UTF-8 without NUL bytes, otherwise as a Base64 blob: either way a
host's digest of the bytes it receives matches the published one.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import mimetypes
import posixpath
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final

import msgspec
from django.core.exceptions import ImproperlyConfigured

from django_mcp.exceptions import SkillError, SkillProblem
from django_mcp.protocol.definitions import ResourceDefinition
from django_mcp.protocol.skills import DIRECTORY_MIME_TYPE, SkillDefinition, SkillResource
from django_mcp.server._frontmatter import (
    INSTALL_HINT,
    NAME_RE,
    FrontmatterError,
    YamlMissing,
    check_fields,
    parse_frontmatter,
)
from django_mcp.server._skill_sources import (
    SKILL_FILE,
    LeavesFolder,
    SkillSource,
    TooDeep,
    find_skill,
    found_skills,
    skill_sources,
)
from django_mcp.server.primitives import CacheHint

__all__ = [
    "ALL_SKILLS",
    "EMPTY_CATALOG",
    "MAX_FILES",
    "MAX_TOTAL_SIZE",
    "SKILL_MIME_TYPE",
    "CompiledSkill",
    "DirectoryChild",
    "RefusedSkill",
    "Skill",
    "SkillCatalog",
    "SkillDeclaration",
    "SkillDirectory",
    "SkillFile",
    "check_prefix",
    "check_skill_name",
    "compile_skills",
    "skill_root",
]

logger = logging.getLogger(__name__)

ALL_SKILLS: Final = "__all__"
"""``Server.skills`` value serving every skill the finders locate."""

MAX_FILES: Final = 512
"""Files one skill may have, ``SKILL.md`` included (SEP-2640 "Limits")."""

MAX_TOTAL_SIZE: Final = 16 * 1024 * 1024
"""Bytes all files of one skill may total (SEP-2640 "Limits")."""

SKILL_MIME_TYPE: Final = "text/markdown"
"""The MIME type of every ``SKILL.md`` (SEP-2640 "Resource Metadata")."""

# The first prefix segment is the URI's authority: a lowercase reg-name
# (RFC 3986 section 3.2.2) so that no URI normalization changes it.
_PREFIX_FIRST = re.compile(r"^[a-z0-9][a-z0-9._~-]*$")
_PREFIX_SEGMENT = re.compile(r"^[A-Za-z0-9._~-]+$")
# RFC 3986 pchar besides the unreserved characters urllib keeps anyway.
_PCHAR = "!$&'()*+,;=:@"
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\]")
_EXTENSION_TYPES: Final = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
}
_encoder = msgspec.json.Encoder()


class Skill:
    """A skill a server serves: a folder holding a ``SKILL.md``.

    The folder is the one the skill finders locate for ``name`` (the
    kebab-case class name without ``Skill`` unless set). List a plain name
    in ``Server.skills`` instead when the skill needs nothing below.
    ``prefix`` puts the skill under an organizational path
    (``"acme/billing"`` serves ``skill://acme/billing/refunds/SKILL.md``).
    ``permissions`` and an optional ``authorize(self, request)`` hook decide
    who sees it, as for resources: a hidden skill, its files and folders
    answer exactly like unknown ones. ``cache`` is the hint sent with
    ``skills/get`` and with reads of its files.
    """

    name: ClassVar[str | None] = None
    prefix: ClassVar[str | None] = None
    #: Django permission codenames ("app.codename") the caller must hold.
    permissions: ClassVar[Iterable[str]] = ()
    cache: ClassVar[CacheHint | None] = None


@dataclasses.dataclass(frozen=True, slots=True)
class SkillDeclaration:
    """What a server declares about one skill, checked by the compiler."""

    component: type[Skill]
    name: str
    prefix: str | None = None
    permissions: tuple[str, ...] = ()
    has_authorize: bool = False
    cache: CacheHint = CacheHint()

    @property
    def root(self) -> str:
        """Return the URI of the skill's folder."""
        return skill_root(self.prefix, self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a compiled skill."""

    uri: str
    #: The path inside the skill's folder (``references/FORMS.md``).
    path: str
    size: int
    #: ``sha256:`` and the 64 lowercase hex digits of its bytes.
    digest: str
    mime_type: str
    #: True when served as text (UTF-8 without NUL bytes), else as a blob.
    text: bool


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CompiledSkill:
    """A skill ready to serve: its entry, its files and where they are read."""

    component: type[Skill]
    name: str
    permissions: tuple[str, ...]
    has_authorize: bool
    cache: CacheHint
    source: SkillSource
    #: The URI of its ``SKILL.md``.
    uri: str
    #: The URI of its folder (a directory resource).
    root: str
    #: The ``skills/list``/``skills/get`` entry.
    definition: SkillDefinition
    #: ``SKILL.md`` as ``resources/list`` and directory reads show it.
    resource: ResourceDefinition
    #: Every file by URI, ``SKILL.md`` first.
    files: Mapping[str, SkillFile]
    #: Bytes the encoded entry takes in a ``skills/list`` page.
    encoded_size: int

    @property
    def total_size(self) -> int:
        """Return the bytes all its files total."""
        return sum(file.size for file in self.files.values())


@dataclasses.dataclass(frozen=True, slots=True)
class DirectoryChild:
    """One direct child of a directory resource and the skills it belongs to."""

    definition: ResourceDefinition
    #: The child is shown to a caller who may use any of these.
    skills: tuple[CompiledSkill, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class SkillDirectory:
    """A directory resource: a skill's folder, a folder in it, a prefix level."""

    uri: str
    #: The directory exists for a caller who may use any of these.
    skills: tuple[CompiledSkill, ...]
    #: Direct children sorted by URI.
    children: tuple[DirectoryChild, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RefusedSkill:
    """A skill not served because a path of it leads outside its folder."""

    name: str
    #: The source it was found in (``MCP_SKILLS_DIRS[0] (/srv/skills)``).
    source: str
    #: The offending path from the source's root (``good/ref.md``).
    path: str
    #: Where that path really is, symbolic links followed.
    real: str


@dataclasses.dataclass(frozen=True, slots=True)
class SkillCatalog:
    """Everything a server serves for the skills extension."""

    #: By ``SKILL.md`` URI, in declaration order.
    skills: Mapping[str, CompiledSkill]
    #: Every file of every skill by URI.
    files: Mapping[str, tuple[CompiledSkill, SkillFile]]
    #: Every directory resource by URI.
    directories: Mapping[str, SkillDirectory]
    #: True when ``resources/directory/read`` is served.
    directory_read: bool
    #: Skills found but not served: a path of theirs leaves their folder.
    refused: tuple[RefusedSkill, ...] = ()

    @property
    def settings(self) -> dict[str, Any]:
        """Return the extension's settings object in the capabilities."""
        return {"directoryRead": True} if self.directory_read else {}


EMPTY_CATALOG: Final = SkillCatalog(
    skills=MappingProxyType({}),
    files=MappingProxyType({}),
    directories=MappingProxyType({}),
    directory_read=False,
)
"""The catalog of a server that serves no skills."""


def skill_root(prefix: str | None, name: str) -> str:
    """Return the URI of the folder of skill ``name`` under ``prefix``."""
    return f"skill://{prefix}/{name}" if prefix else f"skill://{name}"


def check_skill_name(name: Any, label: str) -> str:
    """Return ``name`` if it is a valid skill name, else raise ``ImproperlyConfigured``."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ImproperlyConfigured(
            f"{label}: skill name {name!r} is invalid: use 1-64 characters from a-z, 0-9 and '-', "
            "with no '-' at either end and no '--' (Agent Skills naming rules)"
        )
    return name


def check_prefix(prefix: Any, label: str) -> str | None:
    """Return ``prefix`` if it is None or a valid URI prefix, else raise."""
    if prefix is None:
        return None
    segments = prefix.split("/") if isinstance(prefix, str) else []
    valid = bool(segments) and bool(_PREFIX_FIRST.match(segments[0]))
    valid = valid and all(_PREFIX_SEGMENT.match(s) and s not in (".", "..") for s in segments[1:])
    if not valid:
        raise ImproperlyConfigured(
            f"{label}.prefix {prefix!r} is invalid: use '/'-separated segments of letters, digits "
            "and - . _ ~, the first one lowercase (it is the URI's authority)"
        )
    return str(prefix)


# ------------------------------------------------------------------ compile


class _Invalid(Exception):
    """A skill's files break a rule; the message says which."""


def compile_skills(
    declarations: list[SkillDeclaration] | None, label: str, *, directory_read: bool
) -> SkillCatalog:
    """Return the catalog of ``declarations`` (None: every skill found).

    Raises:
        ImproperlyConfigured: two skills share a URI, or a skills setting
            is malformed.
        SkillError: a skill is not found, or its files are invalid.
    """
    if declarations is not None and not declarations:
        return EMPTY_CATALOG
    sources = skill_sources()
    located: list[tuple[SkillDeclaration, SkillSource | None]]
    if declarations is None:
        located = [(SkillDeclaration(Skill, name), source) for name, source in found_skills(sources).items()]
    else:
        located = [(declaration, find_skill(declaration.name, sources)) for declaration in declarations]
    roots: dict[str, SkillDeclaration] = {}
    for declaration, _source in located:
        other = roots.setdefault(declaration.root, declaration)
        if other is not declaration:
            raise ImproperlyConfigured(f"{label}: skill {declaration.root!r} is declared twice")
    problems: list[SkillProblem] = []
    skills: dict[str, CompiledSkill] = {}
    refused: list[RefusedSkill] = []
    for declaration, source in located:
        if source is None:
            problems.append(_not_found(declaration, sources))
            continue
        try:
            skill = _load(declaration, source)
        except LeavesFolder as exc:
            # Refused whole, never failing the server: the rest of its
            # skills stay served, and manage.py check reports it (E038).
            refused.append(RefusedSkill(declaration.name, source.label, exc.path, exc.real))
            logger.error("%s: skill %r in %s is not served: %s", label, declaration.name, source.label, exc)
            continue
        except YamlMissing as exc:
            problems.append(SkillProblem("django_mcp.E029", str(exc), f"Install it: {INSTALL_HINT}"))
            break
        except _Invalid as exc:
            problems.append(
                SkillProblem(
                    "django_mcp.E030",
                    f"skill {declaration.name!r} in {source.label} is invalid: {exc}",
                    "Fix the skill's folder as the message says; the server cannot answer any "
                    "request until every skill it serves is valid.",
                )
            )
            continue
        skills[skill.uri] = skill
    if problems:
        raise SkillError(label, problems)
    return _catalog(skills, label, directory_read=directory_read, refused=tuple(refused))


def _not_found(declaration: SkillDeclaration, sources: tuple[SkillSource, ...]) -> SkillProblem:
    searched = "; ".join(source.label for source in sources) or "no skill folders exist"
    return SkillProblem(
        "django_mcp.E031",
        f"no skill named {declaration.name!r} was found (searched: {searched})",
        f"Create {declaration.name}/{SKILL_FILE} in an installed app's skills/ folder, in a folder "
        "of MCP_SKILLS_DIRS or in the MCP_SKILLS_STORAGE storage, or correct the name.",
    )


def _load(declaration: SkillDeclaration, source: SkillSource) -> CompiledSkill:
    """Read, check and digest the files of one skill.

    Raises ``_Invalid``, or ``LeavesFolder`` for a path outside its folder.
    """
    name = declaration.name
    try:
        found = sorted(source.files(name))
    except TooDeep as exc:
        raise _Invalid(str(exc)) from None
    except OSError as exc:
        raise _Invalid(f"its folder cannot be listed ({exc})") from None
    paths = [SKILL_FILE, *(path for path in found if path != SKILL_FILE)]
    if len(paths) > MAX_FILES:
        raise _Invalid(
            f"it has {len(paths)} files; a skill may have at most {MAX_FILES}, {SKILL_FILE} included"
        )
    for path in paths:
        if _UNSAFE_NAME.search(path):
            raise _Invalid(f"the file name {path!r} holds a backslash or a control character")
    root = declaration.root
    total = 0
    files: dict[str, SkillFile] = {}
    frontmatter: dict[str, Any] = {}
    for path in paths:
        try:
            data = source.read(f"{name}/{path}", MAX_TOTAL_SIZE - total)
        except OSError as exc:
            raise _Invalid(f"{path} cannot be read ({exc})") from None
        total += len(data)
        if total > MAX_TOTAL_SIZE:
            raise _Invalid(
                f"its files total more than {MAX_TOTAL_SIZE} bytes (16 MiB), the most a skill may have"
            )
        text = _as_text(data)
        if path == SKILL_FILE:
            if text is None:
                raise _Invalid(f"{SKILL_FILE} is not UTF-8 text")
            frontmatter = _frontmatter(text, name)
        uri = root + "/" + urllib.parse.quote(path, safe="/" + _PCHAR)
        files[uri] = SkillFile(
            uri=uri,
            path=path,
            size=len(data),
            digest="sha256:" + hashlib.sha256(data).hexdigest(),
            mime_type=SKILL_MIME_TYPE if path == SKILL_FILE else _mime_type(path, text=text is not None),
            text=text is not None,
        )
    uri = f"{root}/{SKILL_FILE}"
    definition = SkillDefinition(
        uri=uri,
        frontmatter=frontmatter,
        resources=tuple(SkillResource(uri=f.uri, digest=f.digest, size=f.size) for f in files.values()),
    )
    return CompiledSkill(
        component=declaration.component,
        name=name,
        permissions=declaration.permissions,
        has_authorize=declaration.has_authorize,
        cache=declaration.cache,
        source=source,
        uri=uri,
        root=root,
        definition=definition,
        resource=ResourceDefinition(
            uri=uri,
            name=name,
            description=frontmatter["description"],
            mime_type=SKILL_MIME_TYPE,
            size=files[uri].size,
        ),
        files=MappingProxyType(files),
        encoded_size=len(_encoder.encode(definition)),
    )


def _frontmatter(text: str, folder: str) -> dict[str, Any]:
    try:
        frontmatter = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise _Invalid(str(exc)) from None
    problems = check_fields(frontmatter)
    if problems:
        raise _Invalid(f"{SKILL_FILE}: " + "; ".join(problems))
    if frontmatter["name"] != folder:
        raise _Invalid(
            f"{SKILL_FILE} names the skill {frontmatter['name']!r} but its folder is {folder!r}: "
            "they must be equal (rename one)"
        )
    return frontmatter


def _as_text(data: bytes) -> str | None:
    """Return ``data`` decoded when it is UTF-8 text without NUL bytes, else None."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@functools.cache
def _standard_types() -> mimetypes.MimeTypes:
    # A MimeTypes instance holds the standard library's table only, not the
    # machine's /etc/mime.types: a file's type is the same everywhere.
    return mimetypes.MimeTypes()


def _mime_type(path: str, *, text: bool) -> str:
    extension = posixpath.splitext(path)[1].lower()
    known = _EXTENSION_TYPES.get(extension) or _standard_types().guess_type(path, strict=False)[0]
    if known:
        return known
    return "text/plain" if text else "application/octet-stream"


# --------------------------------------------------------------- catalog


def _catalog(
    skills: dict[str, CompiledSkill],
    label: str,
    *,
    directory_read: bool,
    refused: tuple[RefusedSkill, ...] = (),
) -> SkillCatalog:
    files: dict[str, tuple[CompiledSkill, SkillFile]] = {}
    for skill in skills.values():
        for uri, file in skill.files.items():
            other = files.setdefault(uri, (skill, file))[0]
            if other is not skill:
                raise ImproperlyConfigured(
                    f"{label}: skills {other.uri!r} and {skill.uri!r} both serve {uri!r}"
                )
    # directory URI -> child URI -> (definition, skills it belongs to)
    tree: dict[str, dict[str, tuple[ResourceDefinition, list[CompiledSkill]]]] = {}
    for skill in skills.values():
        for file in skill.files.values():
            definition = skill.resource if file.path == SKILL_FILE else _file_definition(file)
            _add_child(tree, posixpath.dirname(file.uri), definition, skill, label)
        folders = {posixpath.dirname(file.uri) for file in skill.files.values()}
        for folder in sorted(folders):
            # Each folder inside the skill, and each prefix level above it.
            while folder.count("/") > 2:
                parent = posixpath.dirname(folder)
                _add_child(tree, parent, _folder_definition(folder), skill, label)
                folder = parent
    directories = {
        uri: SkillDirectory(
            uri=uri,
            skills=tuple(_unique(skill for _, owners in children.values() for skill in owners)),
            children=tuple(
                DirectoryChild(definition, tuple(owners))
                for _, (definition, owners) in sorted(children.items())
            ),
        )
        for uri, children in tree.items()
    }
    return SkillCatalog(
        skills=MappingProxyType(skills),
        files=MappingProxyType(files),
        directories=MappingProxyType(directories),
        directory_read=directory_read,
        refused=refused,
    )


def _add_child(
    tree: dict[str, dict[str, tuple[ResourceDefinition, list[CompiledSkill]]]],
    parent: str,
    definition: ResourceDefinition,
    skill: CompiledSkill,
    label: str,
) -> None:
    children = tree.setdefault(parent, {})
    known, owners = children.setdefault(definition.uri, (definition, []))
    if (known.mime_type == DIRECTORY_MIME_TYPE) != (definition.mime_type == DIRECTORY_MIME_TYPE):
        raise ImproperlyConfigured(f"{label}: {definition.uri!r} is both a skill file and a folder")
    if skill not in owners:
        owners.append(skill)


def _file_definition(file: SkillFile) -> ResourceDefinition:
    return ResourceDefinition(
        uri=file.uri, name=posixpath.basename(file.path), mime_type=file.mime_type, size=file.size
    )


def _folder_definition(uri: str) -> ResourceDefinition:
    return ResourceDefinition(
        uri=uri, name=urllib.parse.unquote(posixpath.basename(uri)), mime_type=DIRECTORY_MIME_TYPE
    )


def _unique(skills: Iterable[CompiledSkill]) -> list[CompiledSkill]:
    return list(dict.fromkeys(skills))
