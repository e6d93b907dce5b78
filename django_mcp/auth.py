"""Who may see and use a component.

A component is usable when the caller holds every Django permission in its
``permissions`` and its optional ``authorize(self, request)`` hook (sync or
async, given the ``McpRequest``) returns true. Unusable components are
absent from every list, and calling, reading or getting one fails exactly
like an unknown name: knowing an identifier grants nothing.
"""

from __future__ import annotations

import inspect
from typing import Any

from asgiref.sync import sync_to_async

from django_mcp.request import McpRequest

__all__ = ["can_use"]


async def can_use(entry: Any, request: McpRequest) -> bool:
    """Return True when the request's user may use compiled ``entry``."""
    if entry.permissions:
        user = request.user
        if user is None or not getattr(user, "is_active", False):
            return False
        checker = getattr(user, "ahas_perms", None)
        if checker is not None:
            allowed = await checker(entry.permissions)
        else:
            allowed = await sync_to_async(user.has_perms)(entry.permissions)
        if not allowed:
            return False
    if entry.has_authorize:
        hook = entry.component().authorize
        if inspect.iscoroutinefunction(hook):
            verdict = await hook(request)
        else:
            verdict = await sync_to_async(hook, thread_sensitive=True)(request)
        return bool(verdict)
    return True
