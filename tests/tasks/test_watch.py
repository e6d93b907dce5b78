"""Tasks watched by subscriptions/listen streams: django_mcp/tasks/watch.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from django_mcp.tasks import watch
from tests.tasks.task_server import TaskServer, start

pytestmark = pytest.mark.django_db(transaction=True)


async def test_only_the_callers_own_tasks_on_that_server_are_watched(stored_only: None) -> None:
    task_id = (await start(TaskServer, "echo", {"text": "hi"}))["taskId"]
    anonymous = SimpleNamespace(user=None, client_address=None)
    someone = SimpleNamespace(user=None, client_address="203.0.113.9")

    mine = await watch.own_tasks(TaskServer.compiled(), ["unknown", task_id], anonymous)  # type: ignore[arg-type]
    theirs = await watch.own_tasks(TaskServer.compiled(), [task_id], someone)  # type: ignore[arg-type]

    assert (mine, theirs) == ([task_id], [])


async def test_a_task_is_shown_as_tasks_get_would_and_a_gone_one_is_none(stored_only: None) -> None:
    task_id = (await start(TaskServer, "echo", {"text": "hi"}))["taskId"]

    shown = await watch.status(task_id)

    assert shown is not None and (shown["task_id"], shown["status"]) == (task_id, "working")
    assert await watch.status("gone") is None
