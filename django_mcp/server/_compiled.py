"""What a compiled server is made of: immutable entries ready to serve.

``compile_server()`` builds these once per ``Server`` class; the dispatcher
only ever reads them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from django_mcp.protocol.definitions import (
    Implementation,
    PromptDefinition,
    ResourceDefinition,
    ResourceTemplateDefinition,
    ServerCapabilities,
    ToolDefinition,
)
from django_mcp.server._call_plan import CallPlan
from django_mcp.server.handlers import Handler
from django_mcp.server.primitives import CacheHint, PromptArgument
from django_mcp.server.skills import EMPTY_CATALOG, SkillCatalog
from django_mcp.server.templates import UriTemplate
from django_mcp.server.tool_search import ToolCatalog

#: A ``Server`` subclass (declarations are compiled here, never imported).
ServerClass = type[Any]

_V = TypeVar("_V")


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """What every compiled component has: its class, name, handler and access rules."""

    component: type[Any]
    name: str
    handler: Handler
    permissions: tuple[str, ...]
    has_authorize: bool
    completer: Handler | None


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledTool(Entry):
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
    #: How a call runs, settled here (``server._call_plan``); the default
    #: plan sends every call through the general path.
    plan: CallPlan = CallPlan()


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledResource(Entry):
    """A fixed resource or a resource template ready to serve."""

    definition: ResourceDefinition | ResourceTemplateDefinition
    template: UriTemplate | None
    mime_type: str | None
    cache: CacheHint


@dataclasses.dataclass(frozen=True, slots=True)
class CompiledPrompt(Entry):
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
