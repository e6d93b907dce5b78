"""Parse and check the YAML frontmatter of a ``SKILL.md`` (Agent Skills format).

A ``SKILL.md`` begins with a line ``---``, the YAML frontmatter, and another
line ``---`` (trailing spaces allowed on that one); a UTF-8 byte order mark
before it is ignored. The block must be a YAML mapping. It is parsed with PyYAML (the
``skills`` extra: ``pip install "django-mcp-toolkit[skills]"``) restricted
to the YAML 1.2 core schema, the one hosts' own YAML parsers apply: plain
``true``/``false``, ``null``/``~``/empty, decimal, ``0o`` octal and ``0x``
hexadecimal integers and floats are typed, every other plain scalar (a date,
``yes``, ``on``, ``1:20``) stays a string. SEP-2640 requires the frontmatter
a server publishes to be identical in content to what a host parses from
the file, so whatever two YAML parsers could read differently is refused
instead of guessed: keys that are not strings, duplicate keys, values JSON
cannot carry (``!!binary``, ``!!set``, ``!!timestamp``, infinities, NaN) and
self-referencing aliases.

``check_fields()`` applies the Agent Skills specification to the parsed
mapping: ``name`` (required; 1-64 characters of ``a-z``, ``0-9`` and ``-``,
no hyphen at either end, no two in a row), ``description`` (required,
non-empty, at most 1024 characters), ``license`` (a string),
``compatibility`` (a string of at most 500 characters), ``metadata`` (a
mapping of strings to strings) and ``allowed-tools`` (a string). Other
fields pass through unchanged: the extension publishes the frontmatter
verbatim, fields of future revisions included.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Final

__all__ = [
    "INSTALL_HINT",
    "MAX_COMPATIBILITY_LENGTH",
    "MAX_DESCRIPTION_LENGTH",
    "NAME_RE",
    "RESERVED_METADATA_PREFIX",
    "FrontmatterError",
    "YamlMissing",
    "check_fields",
    "parse_frontmatter",
    "reserved_metadata_keys",
]

INSTALL_HINT: Final = 'pip install "django-mcp-toolkit[skills]"'
"""The command that installs the YAML parser skills need."""

#: Agent Skills "name": lowercase alphanumerics and single inner hyphens, 1-64.
NAME_RE: Final = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_DESCRIPTION_LENGTH: Final = 1024
"""Characters a skill's ``description`` may have (Agent Skills)."""
MAX_COMPATIBILITY_LENGTH: Final = 500
"""Characters a skill's ``compatibility`` may have (Agent Skills)."""
RESERVED_METADATA_PREFIX: Final = "io.modelcontextprotocol/"
"""``metadata`` keys reserved for MCP extensions (SEP-2640 "Frontmatter")."""

_BLOCK = re.compile(r"^---\r?\n(?P<yaml>.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|$)", re.DOTALL | re.MULTILINE)

# YAML 1.2 core schema (yaml.org/spec/1.2.2 section 10.3.2): tag, pattern,
# the characters a matching scalar may start with ("" for the empty one).
_CORE_RESOLVERS: Final = (
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
)


class FrontmatterError(ValueError):
    """A ``SKILL.md`` has no frontmatter, or frontmatter that cannot be served."""


class YamlMissing(ImportError):
    """PyYAML, which parses frontmatter, is not installed."""


def _import(name: str) -> ModuleType:
    """Return module ``name``; a seam so tests can simulate it missing."""
    return importlib.import_module(name)


@functools.cache
def _loader() -> Any:
    """Return a PyYAML SafeLoader restricted to the YAML 1.2 core schema."""
    try:
        yaml = _import("yaml")
    except ImportError:
        raise YamlMissing(f"Parsing SKILL.md frontmatter needs PyYAML: {INSTALL_HINT}") from None

    # Built with type(): yaml is imported by name, so its classes are
    # values here, not something a class statement can be checked against.
    loader: Any = type(
        "CoreLoader", (yaml.SafeLoader,), {"__doc__": "SafeLoader with YAML 1.2 core resolvers."}
    )
    # The class's own table: SafeLoader's YAML 1.1 resolvers (yes/no booleans,
    # sexagesimal numbers, timestamps, merge keys) must not apply.
    loader.yaml_implicit_resolvers = {}
    for tag, pattern, first in _CORE_RESOLVERS:
        loader.add_implicit_resolver(tag, re.compile(pattern), first)

    def construct_int(loader: Any, node: Any) -> int:
        text = loader.construct_scalar(node)
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text, 10)  # YAML 1.2: a leading zero is not octal

    def construct_mapping(loader: Any, node: Any) -> dict[str, Any]:
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(
                    None, None, f"keys must be strings, found {key!r}", key_node.start_mark
                )
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            mapping[key] = loader.construct_object(value_node, deep=True)
        return mapping

    loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    loader.add_constructor("tag:yaml.org,2002:map", construct_mapping)
    return loader


def parse_frontmatter(text: str) -> dict[str, Any]:
    """Return the frontmatter of a ``SKILL.md`` as JSON-ready builtins.

    Raises:
        FrontmatterError: no leading ``---`` block, invalid YAML, not a
            mapping, or a value JSON cannot carry exactly.
        YamlMissing: PyYAML is not installed.
    """
    loader = _loader()
    match = _BLOCK.match(text.removeprefix("\ufeff"))
    if match is None:
        raise FrontmatterError(
            "SKILL.md must begin with YAML frontmatter: a line '---', the fields, and a line '---'"
        )
    yaml = _import("yaml")
    try:
        value = yaml.load(match["yaml"], Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 2})" if mark is not None else ""  # + the opening '---'
        raise FrontmatterError(f"SKILL.md frontmatter is not valid YAML{where}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"SKILL.md frontmatter is not valid YAML: {exc}") from None
    if not isinstance(value, dict):
        kind = "empty" if value is None else f"a {type(value).__name__}"
        raise FrontmatterError(f"SKILL.md frontmatter must be a YAML mapping of fields, not {kind}")
    _check_json(value, "")
    return value


def _check_json(value: Any, path: str) -> None:
    """Refuse what JSON cannot carry as the same value."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_json(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise FrontmatterError(f"SKILL.md frontmatter field {path!r} is {value}, which JSON cannot carry")
    elif not isinstance(value, str | bool | int | float) and value is not None:
        raise FrontmatterError(
            f"SKILL.md frontmatter field {path!r} is a {type(value).__name__}, which JSON cannot "
            "carry: quote it to make it a string"
        )


def check_fields(frontmatter: Mapping[str, Any]) -> list[str]:
    """Return what breaks the Agent Skills rules for the known fields (empty if nothing)."""
    problems: list[str] = []
    name = frontmatter.get("name")
    if not isinstance(name, str) or not name:
        problems.append("the frontmatter needs a name (a non-empty string)")
    elif not NAME_RE.match(name):
        problems.append(
            f"name {name!r} breaks the Agent Skills naming rules: 1-64 characters from a-z, 0-9 "
            "and '-', no '-' at either end and no '--'"
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("the frontmatter needs a description (a non-empty string)")
    elif len(description) > MAX_DESCRIPTION_LENGTH:
        problems.append(
            f"description is {len(description)} characters; at most {MAX_DESCRIPTION_LENGTH} are allowed"
        )
    for field in ("license", "allowed-tools"):
        if field in frontmatter and not isinstance(frontmatter[field], str):
            problems.append(f"{field} must be a string")
    compatibility = frontmatter.get("compatibility")
    if "compatibility" in frontmatter and not isinstance(compatibility, str):
        problems.append("compatibility must be a string")
    elif isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY_LENGTH:
        problems.append(
            f"compatibility is {len(compatibility)} characters; at most {MAX_COMPATIBILITY_LENGTH} "
            "are allowed"
        )
    metadata = frontmatter.get("metadata")
    if "metadata" in frontmatter:
        if not isinstance(metadata, dict):
            problems.append("metadata must be a mapping of strings to strings")
        else:
            wrong = sorted(key for key, value in metadata.items() if not isinstance(value, str))
            if wrong:
                problems.append(
                    f"metadata values must be strings (quote them): {', '.join(map(repr, wrong))}"
                )
    return problems


def reserved_metadata_keys(frontmatter: Mapping[str, Any]) -> list[str]:
    """Return the ``metadata`` keys under the prefix MCP extensions reserve."""
    metadata = frontmatter.get("metadata")
    if not isinstance(metadata, dict):
        return []
    return sorted(key for key in metadata if key.startswith(RESERVED_METADATA_PREFIX))
