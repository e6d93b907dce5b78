"""Fixtures of the tests of django_mcp/tasks/: a dispatcher of ``TaskServer``, jobs stored only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import override_settings

from django_mcp.dispatcher import Dispatcher
from tests.tasks.task_server import DUMMY, IMMEDIATE, TaskServer


@pytest.fixture
def dispatcher() -> Dispatcher:
    return Dispatcher(TaskServer.compiled())


@pytest.fixture
def stored_only() -> Iterator[None]:
    """Store jobs without running them: tasks stay as created."""
    with override_settings(
        TASKS={"default": {"BACKEND": IMMEDIATE}, "stored": {"BACKEND": DUMMY}}, MCP_TASK_BACKEND="stored"
    ):
        yield
