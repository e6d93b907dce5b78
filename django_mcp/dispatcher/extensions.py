"""Which extensions a request is served: the setting, the server, the client.

One place decides, for the Beta extensions (SEP-3392) this package serves,
tasks (``io.modelcontextprotocol/tasks``) and skills
(``io.modelcontextprotocol/skills``):

* ``served``: the server offers the extension (a task-capable tool, a
  skill) and its setting (``MCP_TASKS_EXTENSION``,
  ``MCP_SKILLS_EXTENSION``) leaves it on. An extension that is not served
  is left out of ``server/discover`` (``advertised``) and its methods are
  -32601 (``Method.extension`` in the method table: ``disabled``, or the
  feature module's own refusal when the server does not offer it).
* ``check_client``: a client that declares the extension with a
  ``revision`` this package does not implement does not get it (a peer
  seeing an unknown revision should not enable the extension): its
  requests of the extension's methods are -32021, whose
  ``data.requiredCapabilities`` names the revision the server speaks. A
  client declaring no ``revision`` speaks the initial one.
  ``protocol.extensions.client_revision`` reads the declaration
  (``declared``); the tasks package uses it to decide whether a
  ``tools/call`` may become a task.
* ``TaskSupport``: what the tasks extension lends the request path. The
  dispatcher never imports ``django_mcp.tasks`` (which imports the
  dispatcher): ``DjangoMcpConfig.ready()`` installs the package's functions
  here (``install_tasks``), and the method table (``start_task``,
  ``task_method``) and ``subscriptions/listen`` reach them through
  ``task_support()``. Until they are installed, no call becomes a task and
  the ``tasks/*`` methods are -32601.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from django_mcp.conf import McpSettings
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.tools import StartTask
from django_mcp.exceptions import MethodNotFound, MissingClientCapability
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ServerCapabilities
from django_mcp.protocol.extensions import STAGES, client_revision, declares_unknown_revision, revision_of
from django_mcp.protocol.results import CallToolResult, InputRequiredResult
from django_mcp.protocol.tasks import CreateTaskResult
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer, CompiledTool

__all__ = [
    "TaskSupport",
    "advertised",
    "check_client",
    "declared",
    "disabled",
    "install_tasks",
    "missing_extension",
    "offered",
    "served",
    "start_task",
    "task_method",
    "task_support",
]


def offered(compiled: CompiledServer, extension: str) -> bool:
    """Return True when ``compiled`` offers ``extension`` (whatever its setting says)."""
    return extension in (compiled.capabilities.extensions or {})


def declared(capabilities: Mapping[str, Any], extension: str) -> bool:
    """Return True when client ``capabilities`` declare ``extension`` in a known revision.

    A ``revision`` this package does not implement leaves the extension
    disabled (SEP-3392 "Identifiers and compatibility"), as if undeclared.
    """
    return client_revision(capabilities, extension) is not None


def missing_extension(extension: str, message: str) -> MissingClientCapability:
    """Return the -32021 error naming ``extension`` as required."""
    return MissingClientCapability(message, data={"requiredCapabilities": {"extensions": {extension: {}}}})


def served(compiled: CompiledServer, settings: McpSettings, extension: str) -> bool:
    """Return True when ``compiled`` serves ``extension`` under ``settings``."""
    if not offered(compiled, extension):
        return False
    return STAGES.get(extension) != "beta" or extension in settings.beta_extensions


def disabled(compiled: CompiledServer, settings: McpSettings, extension: str) -> bool:
    """Return True when ``compiled`` offers ``extension`` but its setting turns it off."""
    return offered(compiled, extension) and not served(compiled, settings, extension)


def advertised(compiled: CompiledServer, settings: McpSettings) -> ServerCapabilities:
    """Return the capabilities ``server/discover`` answers: only the served extensions."""
    capabilities = compiled.capabilities
    offered = capabilities.extensions or {}
    kept = {key: value for key, value in offered.items() if served(compiled, settings, key)}
    if len(kept) == len(offered):
        return capabilities
    return compiled.served_once.get(
        ("capabilities", tuple(kept)),
        lambda: msgspec.structs.replace(capabilities, extensions=kept or UNSET),
    )


def check_client(call: Call, extension: str) -> None:
    """Refuse a request of ``extension``'s methods from a client declaring an unknown revision.

    Raises:
        MissingClientCapability: the client's ``revision`` is not implemented here.
    """
    if declares_unknown_revision(call.request.client_capabilities, extension):
        ours = revision_of(extension)
        raise MissingClientCapability(
            f"{extension} revision not supported: this server implements revision {ours!r}",
            data={"requiredCapabilities": {"extensions": {extension: {"revision": ours}}}},
        )


# ------------------------------------------------------------- tasks


@dataclasses.dataclass(frozen=True, slots=True)
class TaskSupport:
    """What the tasks extension lends the request path (installed by ``django_mcp.tasks``)."""

    #: ``tools/call`` of a task-capable tool, once admitted.
    start: StartTask
    #: The handlers of the ``tasks/*`` methods, by method name.
    methods: Mapping[str, Callable[[Call], Awaitable[Any]]]
    #: ``(compiled, task_ids, request)``: the ids of the caller's own tasks on that server, in order.
    own_tasks: Callable[[CompiledServer, list[str], McpRequest], Awaitable[list[str]]]
    #: ``task_id``: the ``DetailedTask`` fields of the task as it is now (None: it is gone).
    status: Callable[[str], Awaitable[Mapping[str, Any] | None]]
    #: ``task_ids``: settle lapsed leases of these tasks until none works.
    watch_leases: Callable[[list[str]], Awaitable[None]]


_installed: list[TaskSupport] = []


def install_tasks(support: TaskSupport) -> None:
    """Serve the tasks extension with ``support`` (replacing what was installed)."""
    _installed[:] = [support]


def task_support() -> TaskSupport | None:
    """Return the installed tasks extension, None before ``install_tasks``."""
    return _installed[0] if _installed else None


async def start_task(
    call: Call, entry: CompiledTool, payload: Any, arguments: dict[str, Any]
) -> CallToolResult | InputRequiredResult | CreateTaskResult | None:
    """Answer a task-capable tool's call with a task, or None to run it now (``StartTask``)."""
    support = task_support()
    if support is None:
        return None
    return await support.start(call, entry, payload, arguments)


def task_method(name: str) -> Callable[[Call], Awaitable[Any]]:
    """Return the method-table handler of ``tasks/*`` method ``name``, served by ``TaskSupport``."""

    async def serve(call: Call) -> Any:
        support = task_support()
        if support is None:
            raise MethodNotFound(f"Method not found: {name}")
        return await support.methods[name](call)

    serve.__name__ = serve.__qualname__ = name.replace("/", "_")
    return serve
