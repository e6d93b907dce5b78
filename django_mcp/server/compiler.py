"""Compile a ``Server`` declaration into an immutable, validated catalog.

``compile_server(MyServer)`` runs once per class (the result is cached)
and raises ``ImproperlyConfigured`` naming the offending class for every
declaration mistake: bad or duplicate names, a missing ``handle``, handler
parameters that cannot be supplied, invalid schemas, URI templates that are
ambiguous without a ``match(uri)`` method, uri and uri_template both or
neither set. Skills are read and validated here too (``skills.py``), and
raise ``SkillError`` for a missing or broken skill. The dispatcher only
ever sees compiled entries.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import re
import threading
import typing
from collections.abc import Callable, Hashable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar, cast

import msgspec
from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import (
    Implementation,
    PromptArgumentDefinition,
    PromptDefinition,
    ResourceDefinition,
    ResourceTemplateDefinition,
    ServerCapabilities,
    ToolAnnotationsDefinition,
    ToolDefinition,
)
from django_mcp.protocol.extensions import revision_of
from django_mcp.protocol.skills import EXTENSION as SKILLS_EXTENSION
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.protocol.ui import EXTENSION as UI_EXTENSION
from django_mcp.protocol.ui import META_KEY as UI_META_KEY
from django_mcp.protocol.ui import SETTINGS as UI_SETTINGS
from django_mcp.response import ContentAnnotations, check_meta_keys
from django_mcp.schemas import has_rules
from django_mcp.server._json_schema import compile_validator
from django_mcp.server._tool_schemas import header_params, input_schema, legacy_definition, output_schema
from django_mcp.server.handlers import Handler, plan_completer, plan_handler
from django_mcp.server.primitives import (
    CacheHint,
    Icon,
    Prompt,
    PromptArgument,
    Resource,
    Tool,
    ToolAnnotations,
)
from django_mcp.server.skills import (
    ALL_SKILLS,
    EMPTY_CATALOG,
    Skill,
    SkillCatalog,
    SkillDeclaration,
    check_prefix,
    check_skill_name,
    compile_skills,
)
from django_mcp.server.templates import TemplateError, UriTemplate
from django_mcp.server.tool_search import META_TOOLS, CallToolTool, SearchToolsTool, ToolCatalog, ToolSearch
from django_mcp.ui.linking import linked_app, tool_ui_meta
from django_mcp.ui.resource import app_uri, is_app, resource_ui_meta

#: A ``Server`` subclass (declarations are compiled here, never imported).
ServerClass = type[Any]

__all__ = [
    "CompiledPrompt",
    "CompiledResource",
    "CompiledServer",
    "CompiledTool",
    "ServedOnce",
    "compile_server",
    "default_name",
    "is_server",
]

_V = TypeVar("_V")

# MCP 2026-07-28 server/tools "Tool names": 1-128 chars of A-Z a-z 0-9 _ - .
_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


@dataclasses.dataclass(frozen=True, slots=True)
class _Entry:
    component: type[Any]
    name: str
    handler: Handler
    permissions: tuple[str, ...]
    has_authorize: bool
    completer: Handler | None


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledTool(_Entry):
    """A tool ready to serve: definition, schemas and handler plan."""

    definition: ToolDefinition
    input_type: Any  # Schema subclass, raw JSON Schema dict, or None
    output_type: Any  # msgspec-compatible type, raw dict, or None
    #: Validates arguments against a raw JSON Schema ``input`` (None otherwise);
    #: raises ``SchemaValidationError``. Built once, at compile time.
    input_validator: Callable[[Any], None] | None = None
    #: Validates structured content against a raw JSON Schema ``output``.
    output_validator: Callable[[Any], None] | None = None
    #: True when the ``Schema`` input has ``@rule`` methods to run after
    #: decoding; without any, ``msgspec.convert`` alone validates it.
    input_rules: bool = False
    #: "optional" or "required" when calls may run as tasks, else None.
    task: str | None = None
    #: ``prepare()``: runs before a task is created (None: not defined).
    prepare: Handler | None = None
    #: ``use_task()``: decides whether an optional-task call is a task.
    use_task: Handler | None = None
    #: Runs a task may get again after its worker stopped (``task_retries``).
    task_retries: int = 0
    #: Calls carrying an idempotency key run once per caller and key
    #: (``Tool.idempotency_keys``); False: the dispatcher never looks for one.
    idempotency_keys: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledResource(_Entry):
    """A fixed resource or a resource template ready to serve."""

    definition: ResourceDefinition | ResourceTemplateDefinition
    template: UriTemplate | None
    mime_type: str | None
    cache: CacheHint


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledPrompt(_Entry):
    """A prompt ready to serve."""

    definition: PromptDefinition
    arguments: tuple[PromptArgument, ...]


class ServedOnce:
    """Values computed the first time a request needs them, then served again.

    Encoded list pages (per era and set of visible entries) and signed
    cursors depend only on the declarations and a few settings, which are
    part of each key. Bounded: once ``limit`` values are held, the next
    one starts afresh. Safe across threads (a lost race computes a value
    twice).
    """

    __slots__ = ("_lock", "_values", "limit")

    def __init__(self, limit: int = 512) -> None:
        self._lock = threading.Lock()
        self._values: dict[Hashable, Any] = {}
        self.limit = limit

    def get(self, key: Hashable, compute: Callable[[], _V]) -> _V:
        """Return the value held for ``key``, computing it the first time.

        A value whose computation raises is not kept.
        """
        try:
            return self._values[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        value = compute()
        with self._lock:
            if len(self._values) >= self.limit:
                self._values.clear()
            self._values[key] = value
        return value


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledServer:
    """The immutable catalog of one ``Server`` class.

    Everything that depends only on the declarations is computed here, once:
    the capabilities both eras advertise, the key change events and cursors
    use, each tool's ``Mcp-Param-*`` header map and its 2025-11-25 definition.
    """

    server: ServerClass
    info: Implementation
    tools: Mapping[str, CompiledTool]
    resources: Mapping[str, CompiledResource]
    templates: Mapping[str, CompiledResource]
    prompts: Mapping[str, CompiledPrompt]
    #: MCP Apps linked by tools but not listed in ``resources``: read by
    #: URI, left out of ``resources/list`` (SEP-1865 allows it).
    unlisted_apps: Mapping[str, CompiledResource]
    cache: CacheHint
    #: True when any component declares permissions or ``authorize()``, so
    #: lists depend on the caller and must be cached privately.
    caller_dependent: bool
    #: ``module.QualName`` of the server class: names it in change events
    #: and pagination cursors, the same in every process.
    key: str
    #: What ``server/discover`` advertises (2026-07-28).
    capabilities: ServerCapabilities
    #: What ``initialize`` advertises (2025-11-25: of the extensions, only
    #: MCP Apps, which is specified against that revision).
    legacy_capabilities: ServerCapabilities
    #: True when ``subscriptions/listen`` (and legacy GET streams) are served.
    listens: bool
    #: Per tool mirroring arguments into headers (``x-mcp-header``), and only
    #: those: ``{lowercase header name: (property, JSON type)}``. Empty when
    #: no tool does, which a ``tools/call`` tells at once, whatever the
    #: catalog's size.
    tool_headers: Mapping[str, Mapping[str, tuple[str, str]]]
    #: Per tool: its definition as 2025-11-25 clients see it.
    legacy_tools: Mapping[str, ToolDefinition]
    #: The tools any caller may use (no permissions, no ``authorize()``):
    #: finding one needs no permission lookup. With tool search, the two
    #: meta-tools are among them (and in ``legacy_tools``), not in ``tools``.
    open_tools: Mapping[str, CompiledTool]
    #: Every request needs an authenticated caller (``Server.login_required``).
    login_required: bool
    #: The skills it serves (the io.modelcontextprotocol/skills extension).
    skills: SkillCatalog = EMPTY_CATALOG
    #: The catalog ``search_tools`` searches (``Server.tool_search``), else None.
    tool_search: ToolCatalog | None = None
    #: Encoded list pages and cursors, filled as requests need them.
    served_once: ServedOnce = dataclasses.field(default_factory=ServedOnce, compare=False, repr=False)


_cache: dict[ServerClass, CompiledServer] = {}
_lock = threading.Lock()


def is_server(declared: object) -> bool:
    """Return True for a ``Server`` subclass (it carries the base class's marker)."""
    return isinstance(declared, type) and getattr(declared, "_mcp_server", False) is True


def compile_server(server: ServerClass) -> CompiledServer:
    """Return the compiled catalog of ``server``, building it on first use."""
    compiled = _cache.get(server)
    if compiled is None:
        with _lock:
            compiled = _cache.get(server)
            if compiled is None:
                compiled = _compile(server)
                _cache[server] = compiled
    return compiled


def default_name(component: type[Any], suffix: str) -> str:
    """Return the kebab-case class name without its ``suffix``.

    ``OrderSummaryTool`` -> ``order-summary``, ``HTTPStatusTool`` -> ``http-status``.
    """
    base = component.__name__
    if suffix and base.endswith(suffix) and base != suffix:
        base = base[: -len(suffix)]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", base)
    return words.replace("_", "-").lower()


# ----------------------------------------------------------------- server


def _compile(declared: Any) -> CompiledServer:
    server: Any = declared
    if not is_server(declared):
        raise ImproperlyConfigured(f"compile_server() needs a Server subclass, got {server!r}")
    label = f"{server.__module__}.{server.__qualname__}"
    _refuse_misspellings(server, label)
    for field in ("name", "version"):
        if not isinstance(getattr(server, field), str) or not getattr(server, field):
            raise ImproperlyConfigured(f"{label}.{field} must be a non-empty string")
    if not isinstance(server.cache, CacheHint):
        raise ImproperlyConfigured(f"{label}.cache must be a CacheHint")

    resources: dict[str, CompiledResource] = {}
    templates: dict[str, CompiledResource] = {}
    names: dict[str, CompiledResource] = {}
    for component in _members(server, "resources", Resource, label):
        resource = _compile_resource(component, server.name)
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
            app = _compile_resource(link[0], server.name)
            uri = cast(ResourceDefinition, app.definition).uri
            _add_unique({**resources, **unlisted_apps}, uri, app, label, "resource URI")
            _add_unique(names, app.name, app, label, "resource name")
            unlisted_apps[uri] = app
            app_uris[link[0]] = uri
        tool = _compile_tool(component, None if link is None else (app_uris[link[0]], link[1]))
        _add_unique(tools, tool.name, tool, label, "tool")
    prompts: dict[str, CompiledPrompt] = {}
    for component in _members(server, "prompts", Prompt, label):
        prompt = _compile_prompt(component)
        _add_unique(prompts, prompt.name, prompt, label, "prompt")
    skills = _skills(server, label)
    for uri in skills.files:
        if uri in resources:
            raise ImproperlyConfigured(
                f"{label}: resource {_qual(resources[uri].component)} and a skill both serve {uri!r}"
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
        title=_opt_str(server, "title", label),
        description=_opt_str(server, "description", label),
        website_url=_opt_str(server, "website_url", label),
        icons=_icons(server, label),
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
            f"{label}: tool {_qual(tools[name].component)} is named {name!r}, which tool search "
            "keeps for its meta-tool: rename it or drop tool_search"
        )
    meta = {tool.name: tool for tool in (_compile_tool(SearchToolsTool), _compile_tool(CallToolTool))}
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
    where = _qual(member)
    _refuse_misspellings(member, where)
    cache = member.cache if member.cache is not None else CacheHint()
    if not isinstance(cache, CacheHint):
        raise ImproperlyConfigured(f"{where}.cache must be a CacheHint")
    return SkillDeclaration(
        component=member,
        name=check_skill_name(member.__dict__.get("name") or default_name(member, "Skill"), where),
        prefix=check_prefix(member.prefix, where),
        permissions=_permissions(member, where),
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


def _add_unique(target: dict[str, Any], key: str, entry: _Entry, label: str, what: str) -> None:
    if key in target:
        other = target[key].component
        raise ImproperlyConfigured(
            f"{label}: duplicate {what} {key!r} declared by {_qual(other)} and {_qual(entry.component)}"
        )
    target[key] = entry


# ------------------------------------------------------------- components


def _refuse_misspellings(declared: type[Any], label: str) -> None:
    """Refuse a class attribute that looks like a misspelt declaration.

    ``tool = (MyTool,)`` on a Server would otherwise serve an empty server.
    Attributes the django_mcp base classes declare are known; a data
    attribute of the user's classes that is not known but close to a known
    one (``mimetype``, ``uri_templates``, ``resource``) is a mistake. Other
    attributes (helpers, constants) and methods are the user's own.
    """
    known = {
        name
        for base in declared.__mro__
        if base.__module__.startswith("django_mcp.")
        for name in vars(base)
        if not name.startswith("_")
    }
    for base in declared.__mro__:
        if base.__module__.startswith("django_mcp.") or base is object:
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in known or callable(value):
                continue
            if isinstance(value, staticmethod | classmethod | property):
                continue
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            if close:
                raise ImproperlyConfigured(
                    f"{label}.{name} is not something django_mcp reads: did you mean {close[0]!r}?"
                )


def _common(component: type[Any], suffix: str, *, strict_name: bool) -> dict[str, Any]:
    label = _qual(component)
    _refuse_misspellings(component, label)
    name = component.__dict__.get("name") or default_name(component, suffix)
    if not isinstance(name, str) or not name:
        raise ImproperlyConfigured(f"{label}.name must be a non-empty string")
    if strict_name and not _NAME_RE.match(name):
        raise ImproperlyConfigured(
            f"{label}.name {name!r} is invalid: use 1-128 characters from A-Z a-z 0-9 _ - ."
        )
    description = component.description
    if description is None and component.__doc__ and component.__dict__.get("__doc__"):
        description = inspect.cleandoc(component.__doc__)
    meta = component.meta
    if meta is not None:
        try:
            check_meta_keys(meta)
        except (TypeError, ValueError) as exc:
            raise ImproperlyConfigured(f"{label}.meta: {exc}") from None
    # An App's ``permissions`` are sandbox permissions (``ui.resource``).
    permissions = () if is_app(component) else _permissions(component, label)
    authorize = getattr(component, "authorize", None)
    return {
        "name": name,
        "title": _opt_str(component, "title", label),
        "description": UNSET if description is None else _check_str(description, label, "description"),
        "icons": _icons(component, label),
        "meta": UNSET if meta is None else dict(meta),
        "permissions": permissions,
        "has_authorize": callable(authorize),
    }


def _permissions(component: type[Any], label: str) -> tuple[str, ...]:
    permissions = component.permissions
    if isinstance(permissions, str) or not all(isinstance(p, str) and "." in p for p in permissions):
        raise ImproperlyConfigured(
            f"{label}.permissions must be a tuple of 'app_label.codename' strings, got {permissions!r}"
        )
    return tuple(permissions)


def _compile_tool(
    component: type[Tool[Any, Any]], app: tuple[str, tuple[str, ...]] | None = None
) -> CompiledTool:
    """Compile a tool; ``app`` is the URI and visibility of the App it links."""
    label = _qual(component)
    common = _common(component, "Tool", strict_name=True)
    if app is not None:
        common["meta"] = _with_ui_meta(common["meta"], tool_ui_meta(*app), label)
    input_type = component.input
    output_type = component.output
    published_input = input_schema(input_type, label)
    published_output = UNSET if output_type is None else output_schema(output_type, label)
    raw_input, raw_output = isinstance(input_type, dict), isinstance(output_type, dict)
    input_validator = compile_validator(input_type, f"{label}.input") if raw_input else None
    output_validator = compile_validator(output_type, f"{label}.output") if raw_output else None
    annotations = component.annotations
    if annotations is not None and not isinstance(annotations, ToolAnnotations):
        raise ImproperlyConfigured(f"{label}.annotations must be a ToolAnnotations")
    allowed: tuple[str, ...] = ("payload",) if input_type is not None else ()
    handler = plan_handler(component, "handle", label, allowed=allowed)
    task, prepare, use_task = _task_support(component, label, allowed)
    definition = ToolDefinition(
        name=common["name"],
        input_schema=published_input,
        title=common["title"],
        description=common["description"],
        output_schema=published_output,
        annotations=UNSET if annotations is None else _tool_annotations(annotations),
        icons=common["icons"],
        meta=common["meta"],
    )
    return CompiledTool(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=None,
        definition=definition,
        input_type=input_type,
        output_type=output_type,
        input_validator=input_validator,
        output_validator=output_validator,
        input_rules=isinstance(input_type, type) and has_rules(input_type),
        task=task,
        prepare=prepare,
        use_task=use_task,
        task_retries=_task_retries(component, label, task),
        idempotency_keys=_idempotency_keys(component, label),
    )


def _idempotency_keys(component: type[Any], label: str) -> bool:
    """Return a tool's ``idempotency_keys``: True or False, nothing else."""
    honoured = component.idempotency_keys
    if not isinstance(honoured, bool):
        raise ImproperlyConfigured(
            f"{label}.idempotency_keys must be True or False, got {honoured!r}: True runs a call "
            "carrying an idempotency key once per caller and key"
        )
    return honoured


def _task_retries(component: type[Any], label: str, task: str | None) -> int:
    """Return a tool's ``task_retries``: a non-negative int, only with task support."""
    retries = component.task_retries
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ImproperlyConfigured(
            f"{label}.task_retries must be a non-negative int, got {retries!r}: the runs a task "
            "may get again after its worker stopped"
        )
    if retries and task is None:
        raise ImproperlyConfigured(
            f"{label}.task_retries is set but the tool never runs as a task: set task = 'optional' "
            "or 'required'"
        )
    return retries


def _task_support(
    component: type[Any], label: str, allowed: tuple[str, ...]
) -> tuple[str | None, Handler | None, Handler | None]:
    """Return a tool's ``task`` declaration and its ``prepare``/``use_task`` plans."""
    task = component.task
    if task not in (None, "optional", "required"):
        raise ImproperlyConfigured(
            f"{label}.task must be None, 'optional' or 'required', got {task!r}: 'optional' lets "
            "the server run a call as a task, 'required' always does"
        )
    plans: dict[str, Handler | None] = {}
    for method in ("prepare", "use_task"):
        if inspect.getattr_static(component, method, None) is None:
            plans[method] = None
        elif task is None:
            raise ImproperlyConfigured(
                f"{label} defines {method}() but no task support: set task = 'optional' or 'required'"
            )
        else:
            plans[method] = plan_handler(component, method, label, allowed=allowed)
    if task == "required" and plans["use_task"] is not None:
        raise ImproperlyConfigured(
            f"{label}.use_task() is never called: task = 'required' always runs calls as tasks "
            "(declare task = 'optional' to decide per call)"
        )
    return task, plans["prepare"], plans["use_task"]


def _compile_resource(component: type[Resource], server_name: str) -> CompiledResource:
    label = _qual(component)
    common = _common(component, "App" if is_app(component) else "Resource", strict_name=False)
    uri, uri_template = component.uri, component.uri_template
    if is_app(component):
        uri = app_uri(component, server_name, common["name"])
        common["meta"] = _with_ui_meta(common["meta"], resource_ui_meta(component), label)
    if (uri is None) == (uri_template is None):
        raise ImproperlyConfigured(f"{label} must declare exactly one of uri or uri_template")
    mime_type = _opt_str(component, "mime_type", label)
    cache = component.cache if component.cache is not None else CacheHint()
    if not isinstance(cache, CacheHint):
        raise ImproperlyConfigured(f"{label}.cache must be a CacheHint")
    annotations = component.annotations
    if annotations is not None and not isinstance(annotations, ContentAnnotations):
        raise ImproperlyConfigured(f"{label}.annotations must be a ContentAnnotations")
    wire_annotations = UNSET if annotations is None else annotations.to_wire()
    size = component.size
    if size is not None and (type(size) is not int or size < 0):
        raise ImproperlyConfigured(f"{label}.size must be a non-negative int, got {size!r}")
    template: UriTemplate | None = None
    definition: ResourceDefinition | ResourceTemplateDefinition
    if uri is not None:
        if not isinstance(uri, str) or not _URI_RE.match(uri):
            raise ImproperlyConfigured(f"{label}.uri must be an absolute URI, got {uri!r}")
        values: tuple[str, ...] = ()
        definition = ResourceDefinition(
            uri=uri,
            name=common["name"],
            title=common["title"],
            description=common["description"],
            mime_type=mime_type,
            size=UNSET if size is None else size,
            icons=common["icons"],
            annotations=wire_annotations,
            meta=common["meta"],
        )
    else:
        template = _template(component, uri_template, label)
        values = template.variable_names
        definition = ResourceTemplateDefinition(
            uri_template=template.template,
            name=common["name"],
            title=common["title"],
            description=common["description"],
            mime_type=mime_type,
            icons=common["icons"],
            annotations=wire_annotations,
            meta=common["meta"],
        )
    handler = plan_handler(component, "handle", label, values=values)
    completer = plan_completer(component, label) if template is not None else None
    return CompiledResource(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=completer,
        definition=definition,
        template=template,
        mime_type=None if mime_type is UNSET else mime_type,
        cache=cache,
    )


def _compile_prompt(component: type[Prompt]) -> CompiledPrompt:
    label = _qual(component)
    common = _common(component, "Prompt", strict_name=True)
    arguments = component.arguments
    if isinstance(arguments, str) or not all(isinstance(a, PromptArgument) for a in arguments):
        raise ImproperlyConfigured(f"{label}.arguments must be a tuple of PromptArgument")
    arguments = tuple(arguments)
    seen: set[str] = set()
    for argument in arguments:
        if argument.name in seen:
            raise ImproperlyConfigured(f"{label}: duplicate prompt argument {argument.name!r}")
        seen.add(argument.name)
    handler = plan_handler(component, "handle", label, values=tuple(a.name for a in arguments))
    definition = PromptDefinition(
        name=common["name"],
        title=common["title"],
        description=common["description"],
        arguments=tuple(
            PromptArgumentDefinition(
                name=a.name,
                title=UNSET if a.title is None else a.title,
                description=UNSET if a.description is None else a.description,
                required=a.required,
            )
            for a in arguments
        )
        or UNSET,
        icons=common["icons"],
        meta=common["meta"],
    )
    return CompiledPrompt(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=plan_completer(component, label),
        definition=definition,
        arguments=arguments,
    )


# ---------------------------------------------------------------- helpers


def _with_ui_meta(meta: Any, ui: dict[str, Any], label: str) -> dict[str, Any]:
    """Return a component's ``meta`` with the MCP Apps ``ui`` key added."""
    declared = {} if meta is UNSET else dict(meta)
    if UI_META_KEY in declared:
        raise ImproperlyConfigured(
            f"{label}.meta sets {UI_META_KEY!r}, which django_mcp publishes for MCP Apps: use app, "
            "app_visibility (tools) or csp, permissions, domain, prefers_border (AppResource) instead"
        )
    return {**declared, UI_META_KEY: ui}


def _template(component: type[Resource], uri_template: Any, label: str) -> UriTemplate:
    if not isinstance(uri_template, str) or not uri_template:
        raise ImproperlyConfigured(f"{label}.uri_template must be a non-empty string")
    matcher = component.__dict__.get("match")
    if matcher is None:
        matcher = next((vars(base)["match"] for base in component.__mro__[1:] if "match" in vars(base)), None)
    bound: Callable[[str], Any] | None = None
    if matcher is not None:
        if not isinstance(matcher, staticmethod | classmethod):
            raise ImproperlyConfigured(
                f"{label}.match must be a synchronous @staticmethod or @classmethod match(uri)"
            )
        if inspect.iscoroutinefunction(matcher.__func__):
            raise ImproperlyConfigured(f"{label}.match must be synchronous, not async")
        bound = component.match  # type: ignore[attr-defined]
    try:
        return UriTemplate(uri_template, matcher=bound)
    except TemplateError as exc:
        raise ImproperlyConfigured(f"{label}.uri_template: {exc}") from None


def _tool_annotations(annotations: ToolAnnotations) -> ToolAnnotationsDefinition:
    hints = {
        key: UNSET if value is None else value
        for key, value in (
            ("read_only_hint", annotations.read_only),
            ("destructive_hint", annotations.destructive),
            ("idempotent_hint", annotations.idempotent),
            ("open_world_hint", annotations.open_world),
        )
    }
    return ToolAnnotationsDefinition(title=UNSET if annotations.title is None else annotations.title, **hints)


def _icons(owner: Any, label: str) -> tuple[Icon, ...] | Any:
    icons = owner.icons
    if isinstance(icons, str) or not all(isinstance(i, Icon) for i in icons):
        raise ImproperlyConfigured(f"{label}.icons must be a tuple of Icon")
    return tuple(icons) or UNSET


def _opt_str(owner: Any, attr: str, label: str) -> Any:
    value = getattr(owner, attr, None)
    return UNSET if value is None else _check_str(value, label, attr)


def _check_str(value: Any, label: str, attr: str) -> str:
    if not isinstance(value, str):
        raise ImproperlyConfigured(f"{label}.{attr} must be a string, got {value!r}")
    return value


def _qual(component: type[Any]) -> str:
    return f"{component.__module__}.{component.__qualname__}"
