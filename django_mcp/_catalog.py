"""The published catalog of a server, for people and scripts.

``catalog_json(ServerClass)`` returns what a client would learn from the
server: ``serverInfo``, the advertised ``capabilities``, ``instructions``
when set, and the ``tools``, ``resources``, ``resourceTemplates`` and
``prompts`` arrays exactly as ``tools/list``, ``resources/list``,
``resources/templates/list`` and ``prompts/list`` encode them (MCP
2026-07-28), in declaration order; a server that serves skills adds
``skills``, the entries ``skills/list`` answers. Unlike those methods it is neither
paginated nor filtered by permissions or ``authorize()``: it shows every
declared component. ``catalog_text`` renders the same for reading.

``find_servers(name)`` resolves the ``manage.py mcp_catalog`` argument
against the registry: a web path or a local name, optionally prefixed with
``web:`` or ``local:`` when both kinds use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec
from django.utils.translation import gettext

from django_mcp.exceptions import NotRegistered
from django_mcp.registry import registry
from django_mcp.server.server import Server

__all__ = ["RegisteredServer", "catalog_json", "catalog_text", "find_servers"]

Kind = Literal["web", "local"]


@dataclasses.dataclass(frozen=True, slots=True)
class RegisteredServer:
    """A server and where the registry publishes it."""

    kind: Kind
    key: str
    server: type[Server]

    @property
    def label(self) -> str:
        """Return ``web "path"`` or ``local "name"``."""
        return f'{self.kind} "{self.key}"'


def catalog_json(server: type[Server]) -> dict[str, Any]:
    """Return the catalog of ``server`` as JSON-ready builtins."""
    compiled = server.compiled()
    result: dict[str, Any] = {
        "serverInfo": msgspec.to_builtins(compiled.info),
        "capabilities": msgspec.to_builtins(compiled.capabilities),
    }
    if server.instructions:
        result["instructions"] = server.instructions
    result["tools"] = _definitions(compiled.tools.values())
    # resources/list shows each skill's SKILL.md after the declared resources.
    result["resources"] = _definitions(compiled.resources.values()) + [
        msgspec.to_builtins(skill.resource) for skill in compiled.skills.skills.values()
    ]
    result["resourceTemplates"] = _definitions(compiled.templates.values())
    result["prompts"] = _definitions(compiled.prompts.values())
    if compiled.skills.skills:
        result["skills"] = _definitions(compiled.skills.skills.values())
    return result


def _definitions(entries: Iterable[Any]) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(entry.definition) for entry in entries]


def find_servers(name: str | None = None) -> list[RegisteredServer]:
    """Return the servers ``name`` designates; every server when None.

    Raises:
        NotRegistered: nothing, or two different servers, go by ``name``.
    """
    everything = [
        *(RegisteredServer("web", key, server) for key, server in registry.web_servers().items()),
        *(RegisteredServer("local", key, server) for key, server in registry.local_servers().items()),
    ]
    if name is None:
        return everything
    kind, _, key = name.partition(":")
    if kind in ("web", "local") and key:
        kinds: tuple[str, ...] = (kind,)
    else:
        kinds, key = ("web", "local"), name
    found = [
        entry
        for entry in everything
        if entry.kind in kinds and entry.key == (key.strip("/") if entry.kind == "web" else key)
    ]
    if not found:
        raise NotRegistered(
            gettext("No MCP server is registered as {name!r}. {known}").format(
                name=name, known=_known(everything)
            )
        )
    if len(found) > 1 and found[0].server is not found[1].server:
        raise NotRegistered(
            gettext("{name!r} names both a web and a local server: use web:{key} or local:{key}.").format(
                name=name, key=key
            )
        )
    return found[:1]


def _known(entries: list[RegisteredServer]) -> str:
    if not entries:
        return gettext("No servers are registered.")
    web = ", ".join(repr(e.key) for e in entries if e.kind == "web") or gettext("none")
    local = ", ".join(repr(e.key) for e in entries if e.kind == "local") or gettext("none")
    return gettext("Web paths: {web}. Local names: {local}.").format(web=web, local=local)


# ------------------------------------------------------------------ text


def catalog_text(server: type[Server], *, label: str | None = None) -> str:
    """Return a readable listing of the catalog of ``server``."""
    data = catalog_json(server)
    info = data["serverInfo"]
    name = f"{info['name']} {info['version']}"
    heading = f"{info['title']} ({name})" if info.get("title") else name
    lines = [f"{label}: {heading}" if label else heading]
    if info.get("description"):
        lines.append(f"  {info['description']}")
    if data.get("instructions"):
        lines.append(f"  Instructions: {_one_line(data['instructions'])}")
    lines += _section("Tools", data["tools"], _tool_lines)
    lines += _section("Resources", data["resources"], _resource_lines)
    lines += _section("Resource templates", data["resourceTemplates"], _resource_lines)
    lines += _section("Prompts", data["prompts"], _prompt_lines)
    if "skills" in data:
        lines += _section("Skills", data["skills"], _skill_lines)
    return "\n".join(lines)


def _section(title: str, items: list[dict[str, Any]], render: Any) -> list[str]:
    if not items:
        return [f"  {title}: none"]
    lines = [f"  {title} ({len(items)}):"]
    for item in items:
        lines += render(item)
    return lines


def _heading(name: str, item: Mapping[str, Any]) -> list[str]:
    title = f" — {item['title']}" if item.get("title") else ""
    lines = [f"    {name}{title}"]
    if item.get("description"):
        lines.append(f"      {_one_line(item['description'])}")
    return lines


def _tool_lines(tool: Mapping[str, Any]) -> list[str]:
    lines = _heading(tool["name"], tool)
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if properties:
        arguments = ", ".join(
            f"{name}{'*' if name in required else ''}: {_type_of(spec)}" for name, spec in properties.items()
        )
        lines.append(f"      arguments (* = required): {arguments}")
    annotations = tool.get("annotations") or {}
    hints = [key for key, value in annotations.items() if key != "title" and value is True]
    if annotations.get("title"):
        hints.insert(0, f"title={annotations['title']!r}")
    if hints:
        lines.append(f"      annotations: {', '.join(hints)}")
    if "outputSchema" in tool:
        lines.append("      structured output: yes")
    return lines


def _resource_lines(resource: Mapping[str, Any]) -> list[str]:
    address = resource.get("uri") or resource.get("uriTemplate")
    mime = f" [{resource['mimeType']}]" if resource.get("mimeType") else ""
    return _heading(f"{address} ({resource['name']}){mime}", resource)


def _prompt_lines(prompt: Mapping[str, Any]) -> list[str]:
    lines = _heading(prompt["name"], prompt)
    arguments = ", ".join(
        f"{argument['name']}{'*' if argument.get('required') else ''}"
        for argument in prompt.get("arguments", ())
    )
    if arguments:
        lines.append(f"      arguments (* = required): {arguments}")
    return lines


def _skill_lines(skill: Mapping[str, Any]) -> list[str]:
    frontmatter = skill["frontmatter"]
    lines = _heading(f"{frontmatter['name']} ({skill['uri']})", frontmatter)
    files = skill["resources"]
    size = sum(item["size"] for item in files)
    lines.append(f"      files: {len(files)}, {size} bytes")
    return lines


def _type_of(spec: Any) -> str:
    """Return a JSON Schema's type in a few characters: ``string | null``, ``integer[]``, ``Book``."""
    if not isinstance(spec, Mapping):
        return "any"
    kind = spec.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(spec.get("items"), Mapping):
        item = _type_of(spec["items"])
        return f"({item})[]" if " | " in item else f"{item}[]"
    if isinstance(kind, str):
        return kind
    if "$ref" in spec:
        return str(spec["$ref"]).rsplit("/", 1)[-1]
    if "enum" in spec and isinstance(spec["enum"], list):
        return " | ".join(msgspec.json.encode(value).decode() for value in spec["enum"])
    if "const" in spec:
        return msgspec.json.encode(spec["const"]).decode()
    for combined in ("anyOf", "oneOf"):
        members = spec.get(combined)
        if isinstance(members, list) and members:
            names = [_type_of(member) for member in members]
            return " | ".join(dict.fromkeys(names))  # each once, in order
    return "any"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
