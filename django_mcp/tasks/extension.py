"""Serve the tasks extension: hand the dispatcher what it calls.

The dispatcher never imports this package (which imports the dispatcher);
``DjangoMcpConfig.ready()`` calls ``install()``, which puts the
``tools/call`` hook, the ``tasks/*`` handlers and the
``subscriptions/listen`` helpers in ``dispatcher.extensions``, and builds
the Tasks framework job (``framework.prepare()``) so the backend knows it
in every process, workers included.
"""

from __future__ import annotations

from django_mcp.dispatcher.extensions import TaskSupport, install_tasks
from django_mcp.tasks import framework, methods, watch

__all__ = ["SUPPORT", "install"]

SUPPORT = TaskSupport(
    start=methods.start_if_task,
    methods={
        "tasks/get": methods.get_task,
        "tasks/update": methods.update_task,
        "tasks/cancel": methods.cancel_task,
    },
    own_tasks=watch.own_tasks,
    status=watch.status,
    watch_leases=watch.watch_leases,
)
"""What the request path calls of the tasks extension."""


def install() -> None:
    """Serve the tasks extension in this process, its job built for the Tasks backend (idempotent)."""
    install_tasks(SUPPORT)
    framework.prepare()
