"""Resources: list, list templates, read, and 2025-11-25 subscribe/unsubscribe.

A ``resources/read`` (MCP 2026-07-28 server/resources) finds the fixed
resource with that exact URI, else the first template (declaration order)
whose RFC 6570 pattern matches; a resource the caller may not read is not
found, exactly like an unknown URI (-32602 with ``data.uri``; -32002 for
2025-11-25 clients, mapped by the dispatcher kernel). The handler's blocks take the
resource's URI and MIME type; empty contents are never answered. The cache
hint is the resource's own (``ttlMs``/``cacheScope``), forced private for
a resource guarded by permissions, ``authorize()`` or a login, and for a
retry carrying input (multi round-trip). An MCP App a tool links is read
like a fixed resource even when the server leaves it out of the list.

Skill files (the skills extension, ``skills.py``) are resources too, in
both eras: every ``SKILL.md`` is listed after the declared resources, and
a read of a file of a skill the caller may use is answered by
``skills.read_file`` before templates are matched; a hidden skill's files
are not found, exactly like unknown URIs.

A 2025-11-25 ``resources/subscribe`` is refused for a URI the caller may
not read, with the same error as an unknown URI.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, cast

import msgspec

from django_mcp.auth import can_use, can_use_unknown
from django_mcp.dispatcher import skills
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.continuation import attach_inputs, finish_input_required, is_continuation
from django_mcp.dispatcher.invoke import invoke, report_failure
from django_mcp.dispatcher.paging import encoded_items, page
from django_mcp.dispatcher.shape import resource_result
from django_mcp.exceptions import InternalError, InvalidParams, McpError, MethodNotFound, ResourceNotFound
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import (
    EmptyResult,
    InputRequiredResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
)
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledResource, CompiledServer
from django_mcp.server.skills import CompiledSkill, SkillFile

__all__ = [
    "find_resource",
    "list_resource_templates",
    "list_resources",
    "read_resource",
    "subscribe",
    "unsubscribe",
]


async def list_resources(call: Call) -> ListResourcesResult:
    """Return one page of the fixed resources and skills this caller may read."""
    compiled = call.compiled
    entries, cursor = await page(call, (*compiled.resources.values(), *compiled.skills.skills.values()))
    resources = encoded_items(call, entries, _listed)
    return ListResourcesResult(resources=cast(Any, resources), next_cursor=cursor)  # encoded JSON


def _listed(entry: CompiledResource | CompiledSkill) -> Any:
    """Return what ``resources/list`` shows: a skill is its ``SKILL.md``."""
    return entry.resource if isinstance(entry, CompiledSkill) else entry.definition


async def list_resource_templates(call: Call) -> ListResourceTemplatesResult:
    """Return one page of the resource templates this caller may read."""
    entries, cursor = await page(call, tuple(call.compiled.templates.values()))
    templates = encoded_items(call, entries)
    return ListResourceTemplatesResult(resource_templates=cast(Any, templates), next_cursor=cursor)


async def find_resource(
    compiled: CompiledServer, uri: str, request: McpRequest
) -> tuple[CompiledResource, dict[str, Any]]:
    """Return the resource serving ``uri`` and its variables, or raise not found.

    A URI nothing matches costs the permission lookup a hidden one would.
    """
    entry = compiled.resources.get(uri) or compiled.unlisted_apps.get(uri)
    matched = entry is not None
    if entry is not None and await can_use(entry, request):
        return entry, {}
    for template_entry in compiled.templates.values():
        assert template_entry.template is not None
        variables = template_entry.template.match(uri)
        if variables is not None:
            matched = True
            if await can_use(template_entry, request):
                return template_entry, variables
    if not matched:
        await can_use_unknown(chain(compiled.resources.values(), compiled.templates.values()), request)
    raise ResourceNotFound(data={"uri": uri})


async def read_resource(call: Call) -> ReadResourceResult | InputRequiredResult:
    """Read a resource and give the result its cache hint."""
    uri = call.params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams("resources/read needs a string uri")
    request = call.request
    skill_file = await _skill_file(call, uri)
    if skill_file is not None:
        return await skills.read_file(call, *skill_file)
    entry, variables = await find_resource(call.compiled, uri, request)
    request.uri = uri
    request.uri_variables = variables
    await attach_inputs(call, target=uri, arguments=None)
    try:
        produced = await invoke(entry.component, entry.handler, call, values=variables, emit=call.emit)
        result = resource_result(produced, uri, entry.mime_type)
    except McpError:
        raise
    except Exception as exc:
        report_failure(request, exc, f"resource {uri!r}")
        raise InternalError() from None
    if isinstance(result, InputRequiredResult):
        return finish_input_required(call, result, target=uri, arguments=None)
    if not result.contents:
        # Never answer a read with empty contents (MCP 2026-07-28 resources).
        raise ResourceNotFound(data={"uri": uri})
    ttl, scope = _cache_hint(call, entry, result)
    return msgspec.structs.replace(result, ttl_ms=ttl, cache_scope=scope)


async def _skill_file(call: Call, uri: str) -> tuple[CompiledSkill, SkillFile] | None:
    """Return the skill file at ``uri`` when the caller may use its skill, else None."""
    found = call.compiled.skills.files.get(uri)
    if found is None or not await can_use(found[0], call.request):
        return None
    return found


def _cache_hint(call: Call, entry: CompiledResource, result: ReadResourceResult) -> tuple[int, str]:
    if is_continuation(call.params):
        return 0, "private"
    if result.ttl_ms is not UNSET and result.cache_scope is not UNSET:
        ttl, scope = result.ttl_ms, result.cache_scope
    else:
        ttl, scope = entry.cache.ttl_ms, entry.cache.scope
    if entry.permissions or entry.has_authorize or call.compiled.server.login_required:
        scope = "private"
    return ttl, scope


# ----------------------------------------------------- 2025-11-25 sessions


def _session_uri(call: Call) -> str:
    if call.ctx.session is None:
        raise MethodNotFound(f"Method not found: {call.envelope.method} needs a session")
    uri = call.params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams(f"{call.envelope.method} needs a string uri")
    return uri


async def subscribe(call: Call) -> EmptyResult:
    """Watch ``uri`` for the session (2025-11-25 ``resources/subscribe``).

    A URI the caller may not read is refused exactly like an unknown one:
    updates reveal activity.
    """
    uri = _session_uri(call)
    if await _skill_file(call, uri) is None:
        await find_resource(call.compiled, uri, call.request)
    await call.ctx.session.subscribe(uri)
    return EmptyResult()


async def unsubscribe(call: Call) -> EmptyResult:
    """Stop watching ``uri`` (2025-11-25 ``resources/unsubscribe``)."""
    await call.ctx.session.unsubscribe(_session_uri(call))
    return EmptyResult()
