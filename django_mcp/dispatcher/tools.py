"""Tools: ``tools/list`` and ``tools/call``.

What happens to a ``tools/call`` (MCP 2026-07-28 server/tools), in order:

1. It is admitted (``tool_calls.admit``): a tool this caller may use, the
   transport's own check, the rate limit, valid arguments.
2. A tool declaring ``task`` support may be answered with a task instead
   (``tasks.start_if_task``); its handler then runs later, in a Tasks
   framework worker (``background.py``), admitted by the same gate.
3. Otherwise the handler runs now and its result is shaped
   (``tool_calls.run``).

The era finishing (``resultType``, ``_meta`` server info, 2025-11-25
shaping) is the dispatcher kernel's (``_finish`` in ``__init__.py``).
"""

from __future__ import annotations

from typing import Any, cast

from django_mcp.dispatcher import tool_calls
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.paging import encoded_items, page
from django_mcp.dispatcher.tasks import start_if_task
from django_mcp.protocol.results import CallToolResult, InputRequiredResult, ListToolsResult
from django_mcp.protocol.tasks import CreateTaskResult

__all__ = ["call_tool", "list_tools"]


async def list_tools(call: Call) -> ListToolsResult:
    """Return one page of the tools this caller may use."""
    entries, cursor = await page(call, tuple(call.compiled.tools.values()))
    if call.ctx.era == "legacy":
        legacy = call.compiled.legacy_tools
        tools = encoded_items(call, entries, lambda entry: legacy[entry.name])
    else:
        tools = encoded_items(call, entries)
    # Already-encoded JSON: msgspec writes a Raw value as it is.
    return ListToolsResult(tools=cast(Any, tools), next_cursor=cursor)


async def call_tool(call: Call) -> CallToolResult | InputRequiredResult | CreateTaskResult:
    """Run a tool and return its result (tool failures are ``isError``)."""
    admitted = await tool_calls.admit(call)
    if isinstance(admitted, CallToolResult):
        return admitted
    if admitted.entry.task is not None:
        answered = await start_if_task(call, admitted.entry, admitted.payload, admitted.arguments)
        if answered is not None:
            return answered
    return await tool_calls.run(call, admitted)
