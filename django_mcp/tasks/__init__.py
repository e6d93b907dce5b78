"""MCP tasks: the ``io.modelcontextprotocol/tasks`` extension (SEP-2663), and where tasks run.

One module per job:

* ``methods``: ``tools/call`` answered with a task, ``tasks/get``,
  ``tasks/update``, ``tasks/cancel``;
* ``watch``: tasks a ``subscriptions/listen`` stream watches;
* ``extension``: hands both to the dispatcher when Django is ready
  (``install()``, called by ``DjangoMcpConfig.ready()``); the dispatcher
  never imports this package;
* ``store``: every write to ``McpTask`` rows, and ``TaskHandle``
  (``request.task``);
* ``quota``: how many tasks one caller may have and create;
* ``run``: a task's run, wherever its job runs;
* ``framework``: the Django Tasks job (``run_tool_task``) and ``enqueue``;
* ``backend``: the Tasks framework and the backend tasks run on;
* ``pool``: the in-process thread pool, the default with no ``TASKS``;
* ``upkeep``: tasks whose worker is gone, tasks past their time.
"""

__all__: list[str] = []
