"""How many tasks one caller may have and create: django_mcp/tasks/quota.py."""

from __future__ import annotations

from typing import Any
from unittest.mock import ANY

import pytest
from django.test import override_settings

from django_mcp.dispatcher import Dispatcher
from django_mcp.models import McpTask
from django_mcp.protocol import jsonrpc
from tests.tasks.task_server import (
    ask,
)

pytestmark = pytest.mark.django_db(transaction=True)


# ---------------------------------------------------------------- quotas


async def _burst(dispatcher: Dispatcher, count: int, *, user: Any = None) -> list[dict[str, Any]]:
    return [
        await ask(dispatcher, "tools/call", {"name": "echo", "arguments": {"text": str(n)}}, user=user)
        for n in range(count)
    ]


async def test_anonymous_creations_in_a_burst_hit_the_anonymous_quota(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    replies = await _burst(dispatcher, 30)

    created = [reply for reply in replies if "result" in reply]
    refused = [reply["error"] for reply in replies if "error" in reply]
    assert len(created) == 10  # MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT
    assert {error["code"] for error in refused} == {jsonrpc.INTERNAL_ERROR}
    assert len(refused) == 20
    assert refused[0]["data"] == {"quota": "unfinished", "limit": 10}
    assert await McpTask.objects.acount() == 10


async def test_a_user_is_not_held_to_the_anonymous_quota(dispatcher: Dispatcher, stored_only: None) -> None:
    from django.contrib.auth.models import User

    ana = await User.objects.acreate(username="ana")

    replies = await _burst(dispatcher, 12, user=ana)

    assert [reply["result"]["resultType"] for reply in replies] == ["task"] * 12


@override_settings(MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT=None)
async def test_300_anonymous_creations_without_their_own_quota_hit_the_unfinished_quota(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    replies = await _burst(dispatcher, 300)

    created = [reply for reply in replies if "result" in reply]
    refused = [reply["error"] for reply in replies if "error" in reply]
    assert len(created) == 100  # MCP_MAX_TASKS_PER_CLIENT
    assert {error["code"] for error in refused} == {jsonrpc.INTERNAL_ERROR}
    assert len(refused) == 200
    assert refused[0]["data"] == {"quota": "unfinished", "limit": 100}
    assert await McpTask.objects.acount() == 100


@override_settings(MCP_MAX_TASKS_PER_CLIENT=None, MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT=None)
async def test_300_anonymous_creations_in_a_burst_hit_the_rate_quota(dispatcher: Dispatcher) -> None:
    replies = await _burst(dispatcher, 300)

    refused = [reply["error"] for reply in replies if "error" in reply]
    assert len(refused) == 180  # at most 120 a minute (MCP_TASK_RATE_LIMIT)
    assert refused[0]["code"] == jsonrpc.INTERNAL_ERROR
    assert refused[0]["data"] == {"quota": "rate", "limit": 120, "period": 60, "retryAfter": ANY}
    assert 1 <= refused[0]["data"]["retryAfter"] <= 60


@override_settings(MCP_MAX_TASKS_PER_CLIENT=2, MCP_TASK_RATE_LIMIT=None)
async def test_quotas_count_each_caller_apart(dispatcher: Dispatcher, stored_only: None) -> None:
    from django.contrib.auth.models import User

    ana = await User.objects.acreate(username="ana")
    await _burst(dispatcher, 2)

    anonymous = await ask(dispatcher, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
    hers = await ask(dispatcher, "tools/call", {"name": "echo", "arguments": {"text": "x"}}, user=ana)

    assert anonymous["error"]["code"] == jsonrpc.INTERNAL_ERROR
    assert hers["result"]["resultType"] == "task"
