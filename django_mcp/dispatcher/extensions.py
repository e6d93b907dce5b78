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
  ``protocol.extensions.client_revision`` reads the declaration; the
  tasks module uses it to decide whether a ``tools/call`` may become a
  task.
"""

from __future__ import annotations

import msgspec

from django_mcp.conf import McpSettings
from django_mcp.dispatcher.context import Call
from django_mcp.exceptions import MissingClientCapability
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ServerCapabilities
from django_mcp.protocol.extensions import STAGES, declares_unknown_revision, revision_of
from django_mcp.server.compiler import CompiledServer

__all__ = ["advertised", "check_client", "disabled", "served"]


def served(compiled: CompiledServer, settings: McpSettings, extension: str) -> bool:
    """Return True when ``compiled`` serves ``extension`` under ``settings``."""
    if extension not in (compiled.capabilities.extensions or {}):
        return False
    return STAGES.get(extension) != "beta" or extension in settings.beta_extensions


def disabled(compiled: CompiledServer, settings: McpSettings, extension: str) -> bool:
    """Return True when ``compiled`` offers ``extension`` but its setting turns it off."""
    return extension in (compiled.capabilities.extensions or {}) and not served(compiled, settings, extension)


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
