"""How many tasks one caller may have and create: ``MCP_MAX_TASKS_PER_CLIENT``, ``MCP_TASK_RATE_LIMIT``.

A task costs a row and a queued job until it ends, and a worker's time
after, so a ``tools/call`` that would create one is refused, before anything
is stored or enqueued, when its caller already has
``MCP_MAX_TASKS_PER_CLIENT`` unfinished tasks (``working`` or
``input_required``; default 100) or has created ``MCP_TASK_RATE_LIMIT``
tasks in the last period (a sliding window, default ``"120/m"``). Either may
be None (unlimited). An anonymous caller (no authenticated user) is held to
``MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT`` unfinished tasks too (default 10;
None: no limit of its own): it costs nothing to be anonymous, and every
anonymous caller behind one address shares a quota. The refusal is the
JSON-RPC error ``TooManyTasks`` (-32603) whose ``data`` says which quota
(``"unfinished"`` or ``"rate"``), its limit and, for the rate, the seconds
until one more task fits (``retryAfter``).

The caller is whom ``MCP_RATE_LIMIT`` counts (``ratelimit.identity_of``):
the user's primary key, else the client address (``MCP_CLIENT_IP`` behind
a proxy), else ``"anonymous"``, shared by every unauthenticated caller with
no address (STDIO). Both counts come from the task rows themselves (one
query, on the ``client, created_at`` index), so every worker sees the same
numbers without a shared cache; tasks already pruned (``MCP_TASK_TTL``
shorter than the rate's period) no longer count, and requests creating
tasks at the same moment may together pass a limit by the number in flight.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from django.db.models import Count, Min, Q
from django.utils import timezone

from django_mcp.conf import McpSettings
from django_mcp.exceptions import InternalError
from django_mcp.models import McpTask
from django_mcp.ratelimit import parse_rate

__all__ = ["TooManyTasks", "check_quota"]


class TooManyTasks(InternalError):
    """The caller has too many unfinished tasks, or created too many lately."""

    default_message = "Too many tasks: retry later"


async def check_quota(settings: McpSettings, client: str, *, anonymous: bool) -> None:
    """Refuse a new task of ``client`` (``anonymous``: no user) over either quota.

    Raises:
        TooManyTasks: the caller is at ``MCP_MAX_TASKS_PER_CLIENT`` (or, when
            anonymous, ``MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT``) unfinished
            tasks, or at ``MCP_TASK_RATE_LIMIT`` recent ones.
    """
    limits = [settings.max_tasks_per_client]
    if anonymous:
        limits.append(settings.max_tasks_per_anonymous_client)
    live_limit = min((limit for limit in limits if limit is not None), default=None)
    rate = (
        None
        if settings.task_rate_limit is None
        else parse_rate(settings.task_rate_limit, setting="MCP_TASK_RATE_LIMIT")
    )
    if live_limit is None and rate is None:
        return
    now = timezone.now()
    since = now - datetime.timedelta(seconds=rate.period if rate is not None else 0)
    recent = Q(created_at__gte=since)
    counts: dict[str, Any] = await McpTask.objects.filter(client=client).aaggregate(
        live=Count("pk", filter=Q(status__in=(McpTask.Status.WORKING, McpTask.Status.INPUT_REQUIRED))),
        recent=Count("pk", filter=recent),
        oldest=Min("created_at", filter=recent),
    )
    if live_limit is not None and counts["live"] >= live_limit:
        raise TooManyTasks(
            f"Too many tasks: {counts['live']} of yours are unfinished (at most {live_limit}); "
            "retry once one has ended, or cancel one",
            data={"quota": "unfinished", "limit": live_limit},
        )
    if rate is not None and counts["recent"] >= rate.count:
        oldest = counts["oldest"] or now
        wait = max(1, math.ceil((oldest + datetime.timedelta(seconds=rate.period) - now).total_seconds()))
        raise TooManyTasks(
            f"Too many tasks: at most {rate.count} every {rate.period} s; retry in {wait} s",
            data={"quota": "rate", "limit": rate.count, "period": rate.period, "retryAfter": wait},
        )
