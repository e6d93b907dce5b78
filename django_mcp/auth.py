"""Who may see and use a component.

A component is usable when the caller holds every Django permission in its
``permissions`` and its optional ``authorize(self, request)`` hook (sync or
async, given the ``McpRequest``) returns true. Unusable components are
absent from every list, and calling, reading or getting one fails exactly
like an unknown name: knowing an identifier grants nothing.

That holds for timing too: a name that matches nothing costs the caller
the permission lookup a guarded component would (``can_use_unknown``), so
an active user cannot tell a hidden component from an unknown one by how
long the refusal takes. An ``authorize()`` hook's own cost is the
component's and is not imitated.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeVar

from django_mcp._sync import run_sync, sync_or_async
from django_mcp.request import McpRequest

__all__ = ["can_use", "can_use_unknown", "find_usable"]

_Entry = TypeVar("_Entry")


async def can_use(entry: Any, request: McpRequest) -> bool:
    """Return True when the request's user may use compiled ``entry``."""
    if entry.permissions:
        user = request.user
        if user is None or not getattr(user, "is_active", False):
            return False
        checker = getattr(user, "ahas_perms", None)
        if checker is None:
            allowed = await run_sync(user.has_perms, entry.permissions)
        elif (sync := getattr(user, "has_perms", None)) is not None:
            allowed = await sync_or_async(sync, checker, entry.permissions)
        else:
            allowed = await checker(entry.permissions)
        if not allowed:
            return False
    if entry.has_authorize:
        hook = entry.component().authorize
        if inspect.iscoroutinefunction(hook):
            verdict = await hook(request)
        else:
            verdict = await run_sync(hook, request)
        return bool(verdict)
    return True


class _Decoy:
    """A guarded component nobody may use: the stand-in for an unknown name."""

    permissions: Final = ("django_mcp.no_such_component",)
    has_authorize: Final = False


_DECOY: Final = _Decoy()


async def can_use_unknown(entries: Iterable[Any], request: McpRequest) -> bool:
    """Return False for a name matching none of ``entries``, at a hidden one's cost.

    When any of ``entries`` needs permissions, the caller's permissions are
    looked up once, exactly as ``can_use`` would for a hidden component.
    """
    if any(entry.permissions for entry in entries):
        await can_use(_DECOY, request)
    return False


async def find_usable(entries: Mapping[str, _Entry], name: object, request: McpRequest) -> _Entry | None:
    """Return ``entries[name]`` when the caller may use it, else None.

    A hidden entry and an unknown (or non-string) name are both None, at
    the same cost.
    """
    entry = entries.get(name) if isinstance(name, str) else None
    if entry is None:
        await can_use_unknown(entries.values(), request)
        return None
    return entry if await can_use(entry, request) else None
