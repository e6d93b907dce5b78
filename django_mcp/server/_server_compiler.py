"""Assemble a ``Server`` declaration into a ``CompiledServer``.

Compiles each declared component (``_tool_compiler``, ``_resource_compiler``,
``_prompt_compiler``), refuses duplicates, reads the skills and tool search
it asks for and works out what it advertises. ``compile_server()`` (in
``compiler``) caches the result per class.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

import msgspec
from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import Implementation, ResourceDefinition, ServerCapabilities
from django_mcp.protocol.extensions import revision_of
from django_mcp.protocol.skills import EXTENSION as SKILLS_EXTENSION
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.protocol.ui import EXTENSION as UI_EXTENSION
from django_mcp.protocol.ui import SETTINGS as UI_SETTINGS
from django_mcp.server._compiled import CompiledPrompt, CompiledResource, CompiledServer, CompiledTool, Entry
from django_mcp.server._declarations import (
    default_name,
    icons_of,
    optional_str,
    permissions_of,
    qualname,
    refuse_misspellings,
)
from django_mcp.server._prompt_compiler import compile_prompt
from django_mcp.server._resource_compiler import compile_resource
from django_mcp.server._tool_compiler import compile_tool
from django_mcp.server._tool_schemas import header_params, legacy_definition
from django_mcp.server.primitives import CacheHint, Prompt, Resource, Tool, is_server
from django_mcp.server.skills import (
    ALL_SKILLS,
    Skill,
    SkillCatalog,
    SkillDeclaration,
    check_prefix,
    check_skill_name,
    compile_skills,
)
from django_mcp.server.tool_search import META_TOOLS, CallToolTool, SearchToolsTool, ToolCatalog, ToolSearch
from django_mcp.ui.linking import linked_app
from django_mcp.ui.resource import is_app

__all__ = ["compile_declared"]


def compile_declared(declared: Any) -> CompiledServer:
    """Return a new ``CompiledServer`` for the ``Server`` subclass ``declared``."""
    server: Any = declared
    if not is_server(declared):
        raise ImproperlyConfigured(f"compile_server() needs a Server subclass, got {server!r}")
    label = f"{server.__module__}.{server.__qualname__}"
    refuse_misspellings(server, label)
    for field in ("name", "version"):
        if not isinstance(getattr(server, field), str) or not getattr(server, field):
            raise ImproperlyConfigured(f"{label}.{field} must be a non-empty string")
    if not isinstance(server.cache, CacheHint):
        raise ImproperlyConfigured(f"{label}.cache must be a CacheHint")

    resources: dict[str, CompiledResource] = {}
    templates: dict[str, CompiledResource] = {}
    names: dict[str, CompiledResource] = {}
    for component in _members(server, "resources", Resource, label):
        resource = compile_resource(component, server.name)
        if isinstance(resource.definition, ResourceDefinition):
            _add_unique(resources, resource.definition.uri, resource, label, "resource URI")
        else:
            _add_unique(templates, resource.definition.uri_template, resource, label, "resource template")
        _add_unique(names, resource.name, resource, label, "resource name")
    app_uris = {
        r.component: cast(ResourceDefinition, r.definition).uri
        for r in resources.values()
        if is_app(r.component)
    }
    unlisted_apps: dict[str, CompiledResource] = {}
    tools: dict[str, CompiledTool] = {}
    for component in _members(server, "tools", Tool, label):
        link = linked_app(component)
        if link is not None and link[0] not in app_uris:
            # An App only a tool names is served all the same (SEP-1865:
            # the resource MUST exist; servers MAY leave it unlisted).
            app = compile_resource(link[0], server.name)
            uri = cast(ResourceDefinition, app.definition).uri
            _add_unique({**resources, **unlisted_apps}, uri, app, label, "resource URI")
            _add_unique(names, app.name, app, label, "resource name")
            unlisted_apps[uri] = app
            app_uris[link[0]] = uri
        tool = compile_tool(component, None if link is None else (app_uris[link[0]], link[1]))
        _add_unique(tools, tool.name, tool, label, "tool")
    prompts: dict[str, CompiledPrompt] = {}
    for component in _members(server, "prompts", Prompt, label):
        prompt = compile_prompt(component)
        _add_unique(prompts, prompt.name, prompt, label, "prompt")
    skills = _skills(server, label)
    for uri in skills.files:
        if uri in resources:
            raise ImproperlyConfigured(
                f"{label}: resource {qualname(resources[uri].component)} and a skill both serve {uri!r}"
            )

    every: list[Any] = [
        *tools.values(),
        *resources.values(),
        *templates.values(),
        *prompts.values(),
        *skills.skills.values(),
        *unlisted_apps.values(),
    ]
    info = Implementation(
        name=server.name,
        version=server.version,
        title=optional_str(server, "title", label),
        description=optional_str(server, "description", label),
        website_url=optional_str(server, "website_url", label),
        icons=icons_of(server, label),
    )
    capabilities = _capabilities(server, tools, {**resources, **unlisted_apps}, templates, prompts, skills)
    search = _tool_search(server, tools, label)
    meta_tools = search.meta if search is not None else {}
    # MCP Apps is specified against 2025-11-25 ``initialize`` too; the other
    # extensions exist only for 2026-07-28.
    declared = capabilities.extensions or {}
    legacy_extensions = {UI_EXTENSION: declared[UI_EXTENSION]} if UI_EXTENSION in declared else UNSET
    return CompiledServer(
        server=server,
        info=info,
        tools=MappingProxyType(tools),
        resources=MappingProxyType(resources),
        templates=MappingProxyType(templates),
        prompts=MappingProxyType(prompts),
        unlisted_apps=MappingProxyType(unlisted_apps),
        cache=server.cache,
        caller_dependent=any(e.permissions or e.has_authorize for e in every)
        or bool(getattr(server, "login_required", False)),
        key=label,
        capabilities=capabilities,
        legacy_capabilities=msgspec.structs.replace(capabilities, extensions=legacy_extensions),
        listens=bool(server.list_changed or (server.subscribe and (resources or templates or skills.skills))),
        tool_headers=MappingProxyType(
            {
                name: MappingProxyType(params)
                for name, t in tools.items()
                if (params := header_params(t.definition.input_schema))
            }
        ),
        legacy_tools=MappingProxyType(
            {name: legacy_definition(t.definition) for name, t in (*tools.items(), *meta_tools.items())}
        ),
        open_tools=MappingProxyType(
            {
                **{name: t for name, t in tools.items() if not (t.permissions or t.has_authorize)},
                **meta_tools,
            }
        ),
        login_required=bool(getattr(server, "login_required", False)),
        skills=skills,
        tool_search=search,
    )


def _tool_search(server: Any, tools: Mapping[str, CompiledTool], label: str) -> ToolCatalog | None:
    """Return the catalog ``server.tool_search`` asks for, with its meta-tools, else None."""
    declared = getattr(server, "tool_search", None)
    if declared is None:
        return None
    if not isinstance(declared, ToolSearch):
        raise ImproperlyConfigured(f"{label}.tool_search must be a ToolSearch or None, got {declared!r}")
    threshold = declared.threshold
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise ImproperlyConfigured(
            f"{label}.tool_search threshold must be a non-negative int, got {threshold!r}"
        )
    always = declared.always
    if isinstance(always, str) or not all(isinstance(name, str) for name in always):
        raise ImproperlyConfigured(
            f"{label}.tool_search always must be a tuple of tool names, got {always!r}"
        )
    for name in always:
        if name not in tools:
            raise ImproperlyConfigured(
                f"{label}.tool_search always names {name!r}, which is not one of its tools"
            )
    for name in sorted(META_TOOLS & tools.keys()):
        raise ImproperlyConfigured(
            f"{label}: tool {qualname(tools[name].component)} is named {name!r}, which tool search "
            "keeps for its meta-tool: rename it or drop tool_search"
        )
    meta = {tool.name: tool for tool in (compile_tool(SearchToolsTool), compile_tool(CallToolTool))}
    return ToolCatalog(
        threshold=threshold,
        always=(tools[name] for name in dict.fromkeys(always)),
        entries=tools.values(),
        meta=MappingProxyType(meta),
    )


def _capabilities(
    server: Any,
    tools: Mapping[str, Any],
    resources: Mapping[str, Any],
    templates: Mapping[str, Any],
    prompts: Mapping[str, Any],
    skills: SkillCatalog,
) -> ServerCapabilities:
    """Return the capabilities a server with these components advertises.

    Skill files are resources, so a server with skills declares
    ``resources`` too (SEP-2640 "Capability Negotiation": MUST).
    """
    changed = {"listChanged": True} if server.list_changed else {}
    resource_capability: dict[str, Any] = dict(changed)
    if server.subscribe:
        resource_capability["subscribe"] = True
    extensions: dict[str, Any] = {}
    # Beta extensions declare the revision of the text implemented
    # (SEP-3392 "Identifiers and compatibility").
    if any(t.task for t in tools.values()):
        extensions[TASKS_EXTENSION] = {"revision": revision_of(TASKS_EXTENSION)}
    if skills.skills:
        extensions[SKILLS_EXTENSION] = {**skills.settings, "revision": revision_of(SKILLS_EXTENSION)}
    if any(is_app(r.component) for r in resources.values()):
        extensions[UI_EXTENSION] = dict(UI_SETTINGS)
    return ServerCapabilities(
        tools=dict(changed) if tools else UNSET,
        resources=resource_capability if (resources or templates or skills.skills) else UNSET,
        prompts=dict(changed) if prompts else UNSET,
        completions={} if (prompts or templates) else UNSET,
        logging={},
        extensions=extensions or UNSET,
    )


def _skills(server: Any, label: str) -> SkillCatalog:
    """Return the skills ``server.skills`` declares, read and validated."""
    declared = server.skills
    directory_read = server.skills_directory_read
    if not isinstance(directory_read, bool):
        raise ImproperlyConfigured(f"{label}.skills_directory_read must be True or False")
    if declared == ALL_SKILLS:
        return compile_skills(None, label, directory_read=directory_read)
    if isinstance(declared, str | bytes) or not isinstance(declared, typing.Iterable):
        raise ImproperlyConfigured(
            f"{label}.skills must be '__all__' or a tuple of skill names and Skill classes, got {declared!r}"
        )
    declarations = [_skill_declaration(member, label) for member in declared]
    return compile_skills(declarations, label, directory_read=directory_read)


def _skill_declaration(member: Any, label: str) -> SkillDeclaration:
    if isinstance(member, str):
        return SkillDeclaration(Skill, check_skill_name(member, f"{label}.skills"))
    if not (isinstance(member, type) and issubclass(member, Skill)):
        raise ImproperlyConfigured(
            f"{label}.skills contains {member!r}, which is neither a skill name nor a Skill subclass"
        )
    where = qualname(member)
    refuse_misspellings(member, where)
    cache = member.cache if member.cache is not None else CacheHint()
    if not isinstance(cache, CacheHint):
        raise ImproperlyConfigured(f"{where}.cache must be a CacheHint")
    return SkillDeclaration(
        component=member,
        name=check_skill_name(member.__dict__.get("name") or default_name(member, "Skill"), where),
        prefix=check_prefix(member.prefix, where),
        permissions=permissions_of(member, where),
        has_authorize=callable(getattr(member, "authorize", None)),
        cache=cache,
    )


def _members(server: Any, attr: str, base: type[Any], label: str) -> list[type[Any]]:
    members = getattr(server, attr)
    if isinstance(members, str | bytes) or not isinstance(members, typing.Iterable):
        raise ImproperlyConfigured(f"{label}.{attr} must be a tuple of {base.__name__} classes")
    out = []
    for member in members:
        if not (isinstance(member, type) and issubclass(member, base)):
            raise ImproperlyConfigured(
                f"{label}.{attr} contains {member!r}, which is not a {base.__name__} subclass"
            )
        out.append(member)
    return out


def _add_unique(target: dict[str, Any], key: str, entry: Entry, label: str, what: str) -> None:
    if key in target:
        other = target[key].component
        raise ImproperlyConfigured(
            f"{label}: duplicate {what} {key!r} declared by {qualname(other)} and {qualname(entry.component)}"
        )
    target[key] = entry
