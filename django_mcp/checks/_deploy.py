"""The registered deployment check (``manage.py check --deploy``), topic by topic.

Each module of this package checks its own deployment concerns:
``W001`` and ``W013`` (HTTP), ``W002`` (events), ``W004`` and ``W005``
(sessions), ``W006`` and ``W011`` (tasks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.checks import CheckMessage, Tags, register

from django_mcp.checks._events import check_event_backend_deploy
from django_mcp.checks._http import check_host_errors_deploy, check_origins_deploy
from django_mcp.checks._sessions import check_session_cache_deploy
from django_mcp.checks._tasks import check_task_backend_deploy

__all__ = ["check_deploy"]


@register("django_mcp", Tags.security, deploy=True)
def check_deploy(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return deployment warnings (``manage.py check --deploy``)."""
    messages: list[CheckMessage] = []
    messages += check_origins_deploy()
    messages += check_event_backend_deploy()
    messages += check_session_cache_deploy()
    messages += check_task_backend_deploy()
    messages += check_host_errors_deploy()
    return messages
