"""What the tasks package hands the dispatcher: django_mcp/tasks/extension.py."""

from __future__ import annotations

from django_mcp.dispatcher import METHODS, extensions
from django_mcp.tasks import methods
from django_mcp.tasks.extension import SUPPORT, install


def test_every_tasks_method_of_the_table_has_its_handler() -> None:
    served = {name for name, row in METHODS.items() if row.extension == "io.modelcontextprotocol/tasks"}

    assert served == set(SUPPORT.methods) == {"tasks/get", "tasks/update", "tasks/cancel"}
    assert SUPPORT.start is methods.start_if_task


def test_install_is_idempotent() -> None:
    install()
    install()

    assert extensions.task_support() is SUPPORT
