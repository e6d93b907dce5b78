"""Tasks watched by ``subscriptions/listen`` streams (SEP-2663 "Task Status Notifications").

A stream's filter may name ``taskIds``; the stream (``dispatcher/
subscriptions.py``) keeps only the caller's own tasks on its server
(``own_tasks``), sends each as ``tasks/get`` would show it after every
change (``status``), and meanwhile settles the lapsed leases of those still
working (``watch_leases``), so a task whose worker died ends, and is
announced, though nobody polls it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from django_mcp._callers import caller_principal
from django_mcp.conf import get_settings
from django_mcp.models import McpTask
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer
from django_mcp.tasks.methods import detailed
from django_mcp.tasks.upkeep import checked

__all__ = ["own_tasks", "status", "watch_leases"]

logger = logging.getLogger(__name__)


async def own_tasks(compiled: CompiledServer, task_ids: list[str], request: McpRequest) -> list[str]:
    """Return the ids among ``task_ids`` of ``request``'s caller's tasks on ``compiled``, in order."""
    owner = caller_principal(request.user, request.client_address)
    found = {
        task_id
        async for task_id in McpTask.objects.filter(
            pk__in=task_ids, server=compiled.key, owner=owner
        ).values_list("pk", flat=True)
    }
    return [task_id for task_id in task_ids if task_id in found]


async def status(task_id: str) -> Mapping[str, Any] | None:
    """Return the ``DetailedTask`` fields of task ``task_id`` as it is now (None: it is gone).

    A lapsed lease is dealt with first (``upkeep.checked``).
    """
    record = await McpTask.objects.filter(pk=task_id).afirst()
    if record is None:
        return None
    return detailed(await checked(record))


async def watch_leases(task_ids: list[str]) -> None:
    """Check the leases of the watched working tasks until none works (changes announce themselves)."""
    while True:
        await asyncio.sleep(get_settings().task_lease_timeout / 3)
        try:
            working = [
                record
                async for record in McpTask.objects.filter(pk__in=task_ids, status=McpTask.Status.WORKING)
            ]
            if not working:
                return
            for record in working:
                await checked(record)
        except Exception:  # the database may be away for a while: check again later
            logger.exception("Could not check the leases of tasks a subscriptions/listen stream watches")
