"""The skills extension ``io.modelcontextprotocol/skills`` (SEP-2640).

Its methods are served to 2026-07-28 clients (the revision the extension is
specified against) by a server that serves skills; for any other server
they are -32601, like every method it does not offer:

* ``skills/list``: one page of the entries the caller may see, in
  declaration order, with the server's signed cursors. An entry is never
  split across pages, and a page ends before the entry that would take it
  past half of ``MCP_MAX_RESPONSE_SIZE`` (a page always holds its first
  entry), so pages of large manifests still fit a response. The list
  cache hint is added by the dispatcher, as for every list.
* ``skills/get``: the entry of the skill whose ``SKILL.md`` ``params.uri``
  names. Any other URI, and a skill the caller may not see, is -32602
  with ``data.uri``. Its cache hint is the skill's own, private when the
  skill is guarded or the server needs a login.
* ``resources/directory/read``, when the server declares
  ``directoryRead``: the direct children of a skill's folder, of a folder
  in it or of a level of its prefix, paginated like ``resources/list``
  with cursors bound to the directory. Anything else (a file, an unknown
  URI, the folder of a hidden skill) is -32602 with ``data.uri``.

``read_file`` answers ``resources/read`` of a skill file for either era
(``resources.py`` routes it here): the file's bytes as text or as a blob,
checked against the size and digest published when the server compiled.
A file that changed since, or cannot be read, is -32603 and logged: the
published manifest no longer vouches for it (SEP-2640 "Integrity and
Verification"), and it is served again after a restart. A file that now
really lies outside its skill's folder (swapped for a symbolic link since
the server compiled) is not opened: it is logged and answered like an
unknown URI.

Visibility is the resources' rule: a skill the caller may not use
(``permissions``, ``authorize()``) is left out of every list, and its URIs
answer exactly like unknown ones, at the same cost.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Iterable, Sequence
from typing import Any, cast

from asgiref.sync import sync_to_async
from django.core.exceptions import SuspiciousFileOperation

from django_mcp.auth import can_use, can_use_unknown, find_usable
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.paging import decode_cursor, encode_cursor, encoded_items, page
from django_mcp.exceptions import InternalError, InvalidParams, MethodNotFound, ResourceNotFound
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import BlobResourceContents, TextResourceContents
from django_mcp.protocol.definitions import ResourceDefinition
from django_mcp.protocol.results import CacheScope, ReadResourceResult
from django_mcp.protocol.skills import GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult
from django_mcp.server.skills import CompiledSkill, SkillCatalog, SkillFile
from django_mcp.storage import Disk, FileTooLarge

__all__ = ["get_skill", "list_skills", "read_directory", "read_file"]

logger = logging.getLogger(__name__)


def _catalog(call: Call) -> SkillCatalog:
    catalog = call.compiled.skills
    if not catalog.skills:
        raise MethodNotFound(f"Method not found: {call.envelope.method} (no skills served)")
    return catalog


def _uri(call: Call) -> str:
    uri = call.params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams(f"{call.envelope.method} needs a string uri")
    return uri


async def list_skills(call: Call) -> ListSkillsResult:
    """Return one page of the skills this caller may see."""
    catalog = _catalog(call)
    entries, cursor = await page(call, tuple(catalog.skills.values()))
    kept = _within(entries, call.settings.limits.max_response_size // 2)
    if len(kept) < len(entries):
        method, key = call.envelope.method, call.compiled.key
        sent = call.params.get("cursor")
        offset = 0 if sent is None else decode_cursor(sent, method, key)
        cursor = encode_cursor(method, key, offset + len(kept))
    skills = encoded_items(call, kept)
    return ListSkillsResult(skills=cast(Any, skills), next_cursor=cursor)  # encoded JSON


def _within(entries: list[CompiledSkill], budget: int) -> list[CompiledSkill]:
    """Return the leading entries whose encoded sizes fit ``budget`` (at least one)."""
    used = 0
    for index, entry in enumerate(entries):
        used += entry.encoded_size
        if index and used > budget:
            return entries[:index]
    return entries


async def get_skill(call: Call) -> GetSkillResult:
    """Return the entry of the skill ``params.uri`` names."""
    catalog = _catalog(call)
    uri = _uri(call)
    skill = await find_usable(catalog.skills, uri, call.request)
    if skill is None:
        raise InvalidParams(f"No skill is served at {uri}", data={"uri": uri})
    ttl, scope = _cache_hint(call, skill)
    return GetSkillResult(skill=skill.definition, ttl_ms=ttl, cache_scope=scope)


def _cache_hint(call: Call, skill: CompiledSkill) -> tuple[int, CacheScope]:
    # The resources' rule (resources.py): a guarded read is always private.
    scope: CacheScope = skill.cache.scope
    if skill.permissions or skill.has_authorize or call.compiled.server.login_required:
        scope = "private"
    return skill.cache.ttl_ms, scope


async def read_directory(call: Call) -> ReadResourceDirectoryResult:
    """Return one page of the direct children of a directory resource."""
    catalog = _catalog(call)
    if not catalog.directory_read:
        raise MethodNotFound(f"Method not found: {call.envelope.method} (directoryRead not offered)")
    uri = _uri(call)
    request = call.request
    directory = catalog.directories.get(uri)
    if directory is None:
        await can_use_unknown(catalog.skills.values(), request)
    if directory is None or not await _any_usable(directory.skills, call):
        raise InvalidParams(f"{uri} is not a directory resource", data={"uri": uri})
    children = [child.definition for child in directory.children if await _any_usable(child.skills, call)]
    chunk, cursor = _directory_page(call, uri, children)
    return ReadResourceDirectoryResult(resources=tuple(chunk), next_cursor=cursor)


async def _any_usable(skills: Iterable[CompiledSkill], call: Call) -> bool:
    if not call.compiled.caller_dependent:
        return True
    for skill in skills:
        if await can_use(skill, call.request):
            return True
    return False


def _directory_page(
    call: Call, uri: str, children: Sequence[ResourceDefinition]
) -> tuple[Sequence[ResourceDefinition], str | Any]:
    """Return the page of ``children`` the cursor asks for, and the next cursor."""
    limits = call.settings.limits
    size = max(1, min(limits.default_page_size, limits.max_page_size))
    method = call.envelope.method
    # Bound to the directory: a cursor of one folder is refused on another.
    catalog = f"{call.compiled.key} {uri}"
    cursor = call.params.get("cursor")
    offset = 0 if cursor is None else decode_cursor(cursor, method, catalog)
    following = offset + size
    if following >= len(children):
        return children[offset:], UNSET
    return children[offset:following], encode_cursor(method, catalog, following)


async def read_file(call: Call, skill: CompiledSkill, file: SkillFile) -> ReadResourceResult:
    """Answer ``resources/read`` of one file of a skill the caller may use."""
    # Checked again at each read: compiling checked the file as it was then.
    real = await sync_to_async(skill.source.outside)(skill.name, file.path)
    if real is not None:
        logger.error("Skill file %s now leads to %s, outside its skill's folder; not served", file.uri, real)
        raise ResourceNotFound(data={"uri": file.uri})
    disk = Disk(skill.source.label, skill.source.storage)
    try:
        data = await disk.file(f"{skill.name}/{file.path}").read()
    except FileTooLarge:
        logger.error("Skill file %s is larger than MCP_MAX_RESPONSE_SIZE allows", file.uri)
        raise InternalError("Skill file exceeds MCP_MAX_RESPONSE_SIZE") from None
    except (OSError, SuspiciousFileOperation):
        logger.exception("Skill file %s cannot be read", file.uri)
        raise InternalError() from None
    if len(data) != file.size or "sha256:" + hashlib.sha256(data).hexdigest() != file.digest:
        logger.error("Skill file %s changed since the server compiled; restart to serve it", file.uri)
        raise InternalError("Skill file changed since the server started") from None
    content: TextResourceContents | BlobResourceContents
    if file.text:
        content = TextResourceContents(uri=file.uri, text=data.decode("utf-8"), mime_type=file.mime_type)
    else:
        blob = base64.b64encode(data).decode("ascii")
        content = BlobResourceContents(uri=file.uri, blob=blob, mime_type=file.mime_type)
    ttl, scope = _cache_hint(call, skill)
    return ReadResourceResult(contents=(content,), ttl_ms=ttl, cache_scope=scope)
