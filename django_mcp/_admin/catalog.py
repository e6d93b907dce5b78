"""What the admin pages show: registered servers and their components.

``build_catalog()`` turns the registry into ``ServerCatalog`` values, one
per server class in registration order (a class published both over HTTP
and over STDIO is one server with two mounts). Each tool, resource,
resource template, prompt and skill is a ``CatalogEntry`` carrying its wire
definition exactly as the list methods encode it (MCP 2026-07-28; a skill
as ``skills/list`` does, its manifest included), plus
what the playground needs (the input schema, prompt arguments, template
variables). The catalog is not filtered: staff see every declared
component; ``visible_keys()`` asks the dispatcher what one user may see.

A component is addressed by ``component_id``: ``<server key>~<kind>~<key>``,
where the server key is the class's ``module.QualName``, the kind one of
``KINDS`` and the key what the server indexes it by (a tool or prompt name,
a resource URI, a URI template, a skill's ``SKILL.md`` URI). The admin
quotes it into URLs and stores
it as the ``object_id`` of the history entries.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Final, Literal

import msgspec
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp.auth import can_use
from django_mcp.conf import get_settings
from django_mcp.dispatcher.extensions import served
from django_mcp.protocol.extensions import STAGES
from django_mcp.protocol.versions import LATEST
from django_mcp.registry import Registry, registry
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer
from django_mcp.server.server import Server
from django_mcp.server.tool_search import META_TOOLS
from django_mcp.testing import McpTestClient

__all__ = [
    "KINDS",
    "CatalogEntry",
    "CatalogExtension",
    "Kind",
    "ServerCatalog",
    "build_catalog",
    "find_entry",
    "find_server",
    "visible_keys",
]

Kind = Literal["tool", "resource", "template", "prompt", "skill"]

KINDS: Final[Mapping[str, Any]] = {
    "tool": _("Tools"),
    "resource": _("Resources"),
    "template": _("Resource templates"),
    "prompt": _("Prompts"),
    "skill": _("Skills"),
}
"""Every component kind with its plural heading, in display order."""

#: Each kind as a heading word, in the singular.
_KIND_LABELS: Final[Mapping[str, Any]] = {
    "tool": _("Tool"),
    "resource": _("Resource"),
    "template": _("Resource template"),
    "prompt": _("Prompt"),
    "skill": _("Skill"),
}

_SEPARATOR: Final = "~"


@dataclasses.dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One tool, resource, template or prompt as the admin pages show it."""

    name: str
    title: str | None
    description: str | None
    #: The URI (resources; a skill's ``SKILL.md``) or URI template (templates).
    uri: str | None
    mime_type: str | None
    permissions: tuple[str, ...]
    #: Pretty-printed JSON, or None when the definition has no such field.
    annotations: str | None
    input_schema: str | None
    output_schema: str | None
    arguments: str | None
    #: The whole definition as listed on the wire, pretty-printed.
    definition: str
    kind: Kind = "tool"
    #: What the server indexes it by: name, URI or URI template.
    key: str = ""
    #: ``module.QualName`` of the server class.
    server_key: str = ""
    #: The definition as listed, decoded.
    wire: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: ``(ttlMs, cacheScope)`` a read of this resource carries; None for
    #: tools and prompts, whose results have no cache hint.
    cache: tuple[int, str] | None = None
    #: The variables of a resource template, in order.
    variables: tuple[str, ...] = ()
    #: True when the component answers ``completion/complete``.
    completes: bool = False
    #: True when it has an ``authorize()`` hook (visibility per request).
    has_authorize: bool = False

    @property
    def component_id(self) -> str:
        """Return the id the admin addresses this component by."""
        return _SEPARATOR.join((self.server_key, self.kind, self.key))

    @property
    def label(self) -> str:
        """Return the title, else the name."""
        return self.title or self.name

    @property
    def kind_label(self) -> str:
        """Return the kind as a heading word: Tool, Resource, ..."""
        return str(_KIND_LABELS.get(self.kind, self.kind.capitalize()))

    @property
    def destructive(self) -> bool:
        """Return True for a tool annotated ``destructiveHint: true``."""
        return self.kind == "tool" and (self.wire.get("annotations") or {}).get("destructiveHint") is True

    @property
    def icons(self) -> list[Mapping[str, Any]]:
        """Return the icons of the definition."""
        return list(self.wire.get("icons") or ())

    @property
    def schema(self) -> Mapping[str, Any]:
        """Return the decoded input schema (tools; empty otherwise)."""
        value = self.wire.get("inputSchema")
        return value if isinstance(value, Mapping) else {}

    @property
    def prompt_arguments(self) -> list[Mapping[str, Any]]:
        """Return the declared prompt arguments."""
        return list(self.wire.get("arguments") or ())

    @property
    def skill_files(self) -> list[Mapping[str, Any]]:
        """Return a skill's manifest (``uri``, ``digest``, ``size`` each); empty otherwise."""
        files = self.wire.get("resources") if self.kind == "skill" else None
        return list(files) if isinstance(files, list | tuple) else []

    @property
    def annotation_hints(self) -> list[tuple[str, Any]]:
        """Return the annotations as ``(name, value)`` pairs."""
        return list((self.wire.get("annotations") or {}).items())

    def matches(self, query: str) -> bool:
        """Return True when ``query`` occurs in the name, title, URI or description."""
        needle = query.casefold()
        haystack = (self.name, self.title or "", self.uri or "", self.description or "")
        return any(needle in text.casefold() for text in haystack)


@dataclasses.dataclass(frozen=True, slots=True)
class CatalogExtension:
    """An extension a server offers, as the admin pages show it."""

    identifier: str
    #: Its lifecycle stage (SEP-3392): "experimental", "beta", "stable" or "core".
    stage: str
    #: The ``revision`` the server declares ("" when none).
    revision: str
    #: False when its setting turns it off (``MCP_TASKS_EXTENSION``, ...).
    served: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ServerCatalog:
    """A registered ``Server`` class with its mounts and compiled catalog."""

    label: str
    name: str
    version: str
    title: str | None
    description: str | None
    login_required: bool
    #: ``(kind, where)`` pairs: ``("HTTP", "/mcp/weather")``, ``("STDIO", "weather")``.
    mounts: tuple[tuple[str, str], ...]
    tools: tuple[CatalogEntry, ...]
    resources: tuple[CatalogEntry, ...]
    templates: tuple[CatalogEntry, ...]
    prompts: tuple[CatalogEntry, ...]
    server: type[Server] | None = None
    skills: tuple[CatalogEntry, ...] = ()
    instructions: str | None = None
    #: The advertised capabilities, pretty-printed.
    capabilities: str = "{}"
    #: ``(ttlMs, cacheScope)`` the list results carry.
    list_cache: tuple[int, str] = (0, "private")
    #: The extensions the server offers, with their lifecycle stage.
    extensions: tuple[CatalogExtension, ...] = ()

    @property
    def anchor(self) -> str:
        """Return an HTML id for this server's section."""
        return "server-" + self.label.replace(".", "-").lower()

    @property
    def key(self) -> str:
        """Return the key the admin addresses this server by."""
        return self.label

    @property
    def entries(self) -> tuple[CatalogEntry, ...]:
        """Return every component: tools, resources, templates, prompts, skills."""
        return self.tools + self.resources + self.templates + self.prompts + self.skills

    def of_kind(self, kind: str) -> tuple[CatalogEntry, ...]:
        """Return the components of one kind (every one for an unknown kind)."""
        return {
            "tool": self.tools,
            "resource": self.resources,
            "template": self.templates,
            "prompt": self.prompts,
            "skill": self.skills,
        }.get(kind, self.entries)


def build_catalog(source: Registry | None = None) -> list[ServerCatalog]:
    """Return every server in ``source`` (the default registry), in registration order.

    A server registered several times (say over HTTP and over STDIO) is
    listed once, with all its mounts.
    """
    source = registry if source is None else source
    mounts: dict[type[Server], list[tuple[str, str]]] = {}
    for route, server in source.web_servers().items():
        mounts.setdefault(server, []).append(("HTTP", _http_path(route)))
    for name, server in source.local_servers().items():
        mounts.setdefault(server, []).append(("STDIO", name))
    return [_server_catalog(server, tuple(where)) for server, where in mounts.items()]


def find_server(key: str, source: Registry | None = None) -> ServerCatalog | None:
    """Return the registered server whose key is ``key``, or None."""
    for server in build_catalog(source):
        if server.key == key:
            return server
    return None


def find_entry(
    component_id: str, source: Registry | None = None
) -> tuple[ServerCatalog, CatalogEntry] | None:
    """Return the server and component ``component_id`` names, or None."""
    server_key, _, rest = component_id.partition(_SEPARATOR)
    kind, _, key = rest.partition(_SEPARATOR)
    server = find_server(server_key, source)
    if server is None or kind not in KINDS:
        return None
    for entry in server.of_kind(kind):
        if entry.key == key:
            return server, entry
    return None


async def visible_keys(server: type[Server], user: Any) -> dict[str, frozenset[str]]:
    """Return, per kind, the keys of the components ``user`` may see.

    The answer is the dispatcher's own: the list methods, called in-process
    as ``user`` (permissions and ``authorize()`` hooks apply).
    """
    client = McpTestClient(server, user)
    tools = await client.list_tools()
    resources = await client.list_resources()
    templates = await client.list_resource_templates()
    prompts = await client.list_prompts()
    return {
        "tool": await _visible_tools(server, user, frozenset(str(item.get("name")) for item in tools.items)),
        "resource": frozenset(str(item.get("uri")) for item in resources.items),
        "template": frozenset(str(item.get("uriTemplate")) for item in templates.items),
        "prompt": frozenset(str(item.get("name")) for item in prompts.items),
        "skill": await _visible_skills(client),
    }


async def _visible_tools(server: type[Server], user: Any, listed: frozenset[str]) -> frozenset[str]:
    """Return the tools ``user`` may use: those listed, unless tool search cut the list.

    Past its threshold ``tools/list`` lists the meta-tools in place of the
    catalog; the permission check the dispatcher applies to each tool
    (``auth.can_use``) then says which the user may use.
    """
    compiled = server.compiled()
    if compiled.tool_search is None or not listed & META_TOOLS:
        return listed
    request = McpRequest(
        method="tools/list",
        params={},
        meta={},
        protocol_version=LATEST,
        client_capabilities={},
        user=user,
        server=compiled,
    )
    return frozenset([name for name, entry in compiled.tools.items() if await can_use(entry, request)])


async def _visible_skills(client: McpTestClient) -> frozenset[str]:
    """Return the ``SKILL.md`` URIs ``skills/list`` shows the client's user."""
    if not client.server.compiled().skills.skills:
        return frozenset()
    uris: set[str] = set()
    params: dict[str, Any] = {}
    while True:
        result = (await client.request("skills/list", params)).get("result") or {}
        uris.update(str(item.get("uri")) for item in result.get("skills") or ())
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or cursor == params.get("cursor"):
            return frozenset(uris)
        params = {"cursor": cursor}


def _http_path(route: str) -> str:
    # The registry knows the route below the include(); reversing finds the
    # prefix the project mounted django_mcp.urls at.
    try:
        return reverse(f"django_mcp:{route or 'root'}")
    except NoReverseMatch:
        return gettext("{route} (below the include of django_mcp.urls)").format(route=route or "(root)")


def _server_catalog(server: type[Server], mounts: tuple[tuple[str, str], ...]) -> ServerCatalog:
    compiled = server.compiled()
    info = _wire(compiled.info)
    key = compiled.key
    guarded = bool(getattr(server, "login_required", False))
    return ServerCatalog(
        label=key,
        name=info["name"],
        version=info["version"],
        title=info.get("title"),
        description=info.get("description"),
        login_required=guarded,
        mounts=mounts,
        tools=tuple(_entry(e.definition, e, "tool", name, key, None) for name, e in compiled.tools.items()),
        resources=tuple(
            _entry(e.definition, e, "resource", uri, key, _cache(e, login_required=guarded))
            for uri, e in compiled.resources.items()
        ),
        templates=tuple(
            _entry(e.definition, e, "template", uri, key, _cache(e, login_required=guarded))
            for uri, e in compiled.templates.items()
        ),
        prompts=tuple(
            _entry(e.definition, e, "prompt", name, key, None) for name, e in compiled.prompts.items()
        ),
        skills=tuple(
            _skill_entry(e, key, _cache(e, login_required=guarded)) for e in compiled.skills.skills.values()
        ),
        server=server,
        instructions=server.instructions or None,
        capabilities=_pretty(_wire(compiled.capabilities)) or "{}",
        list_cache=_list_cache(compiled),
        extensions=_extensions(compiled),
    )


def _extensions(compiled: CompiledServer) -> tuple[CatalogExtension, ...]:
    settings = get_settings()
    return tuple(
        CatalogExtension(
            identifier=identifier,
            stage=STAGES.get(identifier, "experimental"),
            revision=str(declared.get("revision", "")) if isinstance(declared, dict) else "",
            served=served(compiled, settings, identifier),
        )
        for identifier, declared in (compiled.capabilities.extensions or {}).items()
    )


def _cache(entry: Any, *, login_required: bool) -> tuple[int, str]:
    # The dispatcher's rule (resources.py): a guarded read is always private.
    scope = entry.cache.scope
    if entry.permissions or entry.has_authorize or login_required:
        scope = "private"
    return entry.cache.ttl_ms, scope


def _list_cache(compiled: CompiledServer) -> tuple[int, str]:
    # The dispatcher's era finishing rule: lists depending on the caller are private.
    return compiled.cache.ttl_ms, "private" if compiled.caller_dependent else compiled.cache.scope


def _entry(
    definition: Any, compiled: Any, kind: Kind, key: str, server_key: str, cache: tuple[int, str] | None
) -> CatalogEntry:
    wire = _wire(definition)
    template = getattr(compiled, "template", None)
    return CatalogEntry(
        name=wire["name"],
        title=wire.get("title"),
        description=wire.get("description"),
        uri=wire.get("uri", wire.get("uriTemplate")),
        mime_type=wire.get("mimeType"),
        permissions=tuple(compiled.permissions),
        annotations=_pretty(wire.get("annotations")),
        input_schema=_pretty(wire.get("inputSchema")),
        output_schema=_pretty(wire.get("outputSchema")),
        arguments=_pretty(wire.get("arguments")),
        definition=_pretty(wire) or "{}",
        kind=kind,
        key=key,
        server_key=server_key,
        wire=wire,
        cache=cache,
        variables=tuple(template.variable_names) if template is not None else (),
        completes=compiled.completer is not None,
        has_authorize=bool(compiled.has_authorize),
    )


def _skill_entry(skill: Any, server_key: str, cache: tuple[int, str]) -> CatalogEntry:
    # Named and described by its frontmatter; the definition is the
    # skills/list entry, so the page shows the manifest with its digests.
    wire = _wire(skill.definition)
    return CatalogEntry(
        name=skill.name,
        title=None,
        description=skill.definition.frontmatter.get("description"),
        uri=skill.uri,
        mime_type=skill.resource.mime_type,
        permissions=tuple(skill.permissions),
        annotations=None,
        input_schema=None,
        output_schema=None,
        arguments=None,
        definition=_pretty(wire) or "{}",
        kind="skill",
        key=skill.uri,
        server_key=server_key,
        wire=wire,
        cache=cache,
        has_authorize=bool(skill.has_authorize),
    )


def _wire(struct: Any) -> dict[str, Any]:
    # to_builtins applies the wire renames (camelCase, _meta) and drops
    # UNSET fields, so the page shows exactly what a client is sent.
    value = msgspec.to_builtins(struct)
    assert isinstance(value, dict)
    return value


def _pretty(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False)
