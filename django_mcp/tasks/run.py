"""Run a task's tool call, wherever the Tasks framework runs its jobs.

``run(task_id)`` is what the ``framework.run_tool_task`` job does,
in a web process (an immediate backend) or a worker process (``manage.py
db_worker`` of django-tasks-db, ...). In order:

1. Claim the task (``store.claim``): only a working task nobody runs is
   run; one cancelled before it started ends ``cancelled``. The claim takes
   a lease of ``MCP_TASK_LEASE_TIMEOUT`` seconds, which the run renews every
   third of that (``store.renew``): a task whose lease lapses has lost
   its worker (killed, out of memory, its machine gone), and whoever reads
   it next fails it or runs it again (``upkeep.py``). A run
   that finds its lease taken over stops as if cancelled, and its writes
   change nothing (they name its run number).
2. Rebuild the call from the stored task: the server's dispatcher (the
   registry's, found by the server's dotted path), the tool, the caller (the
   user by primary key; anonymous otherwise), the client's protocol version,
   capabilities and info, the answers gathered so far
   (``request.input_responses``), the state the handler returned last time
   (``request.request_state``) and ``request.task`` (a ``TaskHandle``). No
   progress or log notification reaches anyone: the request has been
   answered.
3. The call is admitted again, by the gate a request passes
   (``tools.admit``, without counting the rate limit a second time):
   the caller must still be allowed to use the tool (else the task fails
   with -32602) and the arguments are validated again.
4. The handler runs through ``tools.run``, exactly as in a request.
   Every ``CANCEL_CHECK_INTERVAL`` seconds the run writes a new
   ``request.task.status_message`` and looks for a cancellation: it sets
   ``request.task.cancelled`` and cancels an async handler at its next
   ``await`` (a sync one stops when it calls ``check_cancelled()``). These
   queries run in a thread of their own: a sync handler holds the
   thread-sensitive one until it returns.
5. The outcome is stored: a ``CallToolResult`` completes the task (tool
   errors too), an ``McpError`` fails it with that JSON-RPC error, a
   cancellation cancels it, and ``input_required(...)`` makes it wait for
   ``tasks/update``; ``run`` returns True when the run must go on at once
   (the job enqueues it again). A result over ``MCP_MAX_RESPONSE_SIZE``
   fails it with -32603 (``codec.oversized``).

While OpenTelemetry traces (``django_mcp.observability``), a run is a span
of its own, ``execute_tool <tool>``, linked to the span of the request
that created the task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import msgspec
from asgiref.sync import sync_to_async
from django.db import OperationalError, connections

from django_mcp._callers import anonymous_caller
from django_mcp._serving import serving
from django_mcp._sync import run_sync
from django_mcp.conf import get_settings
from django_mcp.dispatcher import Dispatcher, tools
from django_mcp.dispatcher.codec import Envelope, encoded_size, oversized
from django_mcp.dispatcher.context import Call, stored_context
from django_mcp.exceptions import InternalError, InvalidParams, McpError, TaskCancelled
from django_mcp.models import McpTask
from django_mcp.observability._hooks import observe_task
from django_mcp.observability._state import OBSERVATION
from django_mcp.protocol.results import CallToolResult, InputRequiredResult
from django_mcp.request import McpRequest
from django_mcp.tasks import store

__all__ = ["CANCEL_CHECK_INTERVAL", "STORE_ATTEMPTS", "run"]

logger = logging.getLogger(__name__)

CANCEL_CHECK_INTERVAL: Final = 0.5  # seconds
"""How often a running task looks for a cancellation and writes its status message."""

STORE_ATTEMPTS: Final = 5
"""How many times a run tries each write of its task while the database is locked."""


async def run(task_id: str) -> bool:
    """Run task ``task_id``'s tool call and store its outcome.

    Return True when the task must run again at once (it asked for state
    only, no input).
    """
    record = await _claim(task_id)
    if record is None:
        return False
    try:
        if OBSERVATION.active:  # a span of its own (django_mcp.observability)
            return await observe_task(record, _run)
        return await _run(record)
    except BaseException:
        # Never leave the task marked running when this run dies.
        error = InternalError("The task's run ended unexpectedly")
        ended = store.error_object(error)
        await _stored(store.finish, task_id, run=record.runs, ttl_ms=record.ttl_ms, error=ended)
        raise


async def _claim(task_id: str) -> McpTask | None:
    """Claim the task (None when it is not this run's to take)."""
    record: McpTask | None = await _stored(store.claim, task_id, get_settings().task_lease_timeout)
    return record


async def _stored(function: Callable[..., Any], *args: Any, aside: bool = False, **kwargs: Any) -> Any:
    """Run the ``store`` write ``function``, trying again while the database is locked.

    SQLite reports a table another connection is writing as locked: at once
    in shared-cache mode (in-memory test databases), after its busy timeout
    otherwise. A run that loses that race (the request that enqueued it is
    still writing the job id, a poll reads the row) tries again shortly
    rather than fail its job. Each write is one conditional statement, so a
    refused one changed nothing and may be sent again. ``aside`` runs it
    in a pool thread (``_aside``), else where the run's sync work runs.
    """
    for attempt in range(STORE_ATTEMPTS):
        try:
            if aside:
                return await _aside(function)(*args, **kwargs)
            return await run_sync(function, *args, **kwargs)
        except OperationalError:
            if attempt == STORE_ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.05 * (attempt + 1))
    return None  # not reached: the last attempt returns or raises


async def _run(record: McpTask) -> bool:
    """Run the claimed task; return True when it must run again at once."""
    task_id = record.pk
    handle = store.TaskHandle(task_id, run=record.runs, ttl_ms=record.ttl_ms)
    try:
        call = await _rebuild(record, handle)
        admitted = await tools.admit(call, count_rate=False)
        if isinstance(admitted, CallToolResult):
            result: CallToolResult | InputRequiredResult = admitted
        else:
            work = asyncio.ensure_future(tools.run(call, admitted))
            kind = admitted.entry.handler.kind
            result = await _watch(work, handle, cancel_work=kind in ("async", "asyncgen"))
    except TaskCancelled:
        await _end(handle, cancelled=True)
        return False
    except asyncio.CancelledError:
        if not handle.cancelled:
            raise
        await _end(handle, cancelled=True)
        return False
    except McpError as error:
        await _end(handle, error=store.error_object(error))
        return False
    if isinstance(result, InputRequiredResult):
        await _flush(handle)
        parked: bool = await _stored(
            store.park, task_id, handle.run, result.input_requests or {}, result.request_state
        )
        return parked
    value = msgspec.to_builtins(result)
    refusal = oversized(
        encoded_size(value),
        call.settings.limits.max_response_size,
        what="Result",
        label=f"Result of task {task_id} (tool {record.tool!r})",
    )
    if refusal is not None:
        await _end(handle, error=store.error_object(refusal))
        return False
    await _end(handle, result=value)
    return False


def _aside(function: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """Return ``function`` run in a pool thread, closing its connections after.

    The watcher must not queue behind a sync handler, which holds the one
    thread of thread-sensitive ``sync_to_async`` for as long as it runs.
    """

    def aside(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    return sync_to_async(aside, thread_sensitive=False)


async def _watch(
    work: asyncio.Future[CallToolResult | InputRequiredResult],
    handle: store.TaskHandle,
    *,
    cancel_work: bool,
) -> CallToolResult | InputRequiredResult:
    """Wait for ``work``, writing status messages, renewing the lease, watching for a cancellation.

    A lost lease (another reader failed the task, or runs it again) stops
    the work like a cancellation.
    """
    lease = get_settings().task_lease_timeout
    loop = asyncio.get_running_loop()
    renewed = loop.time()
    try:
        while True:
            done, _ = await asyncio.wait({work}, timeout=CANCEL_CHECK_INTERVAL)
            if done:
                return work.result()
            await _flush(handle)
            if handle.cancelled:
                continue
            stop = await _stored(store.cancel_requested, handle.id, aside=True)
            if not stop and loop.time() - renewed >= lease / 3:
                renewed = loop.time()
                stop = not await _stored(store.renew, handle.id, handle.run, lease, aside=True)
                if stop:
                    logger.warning("Task %s lost its lease: its run stops", handle.id)
            if stop:
                handle.mark_cancelled()
                if cancel_work:
                    work.cancel()
    finally:
        if not work.done():
            work.cancel()


async def _flush(handle: store.TaskHandle) -> None:
    message = handle.take_status_message()
    if message is not None:
        await _stored(store.report, handle.id, handle.run, message, aside=True)


async def _end(handle: store.TaskHandle, **outcome: Any) -> None:
    await _flush(handle)
    await _stored(store.finish, handle.id, run=handle.run, ttl_ms=handle.ttl_ms, **outcome)


async def _rebuild(record: McpTask, handle: store.TaskHandle) -> Call:
    """Return the ``Call`` the stored task describes, as its handler sees it."""
    dispatcher = _dispatcher(record.server)
    compiled = dispatcher.compiled
    stored = record.call
    user = await _user(record.user_pk)
    params = {"name": record.tool, "arguments": stored.get("arguments") or {}}
    capabilities = stored.get("clientCapabilities") or {}
    version = stored.get("protocolVersion") or ""
    client_info = stored.get("clientInfo")
    ctx = stored_context(
        protocol_version=version, client_capabilities=capabilities, client_info=client_info, user=user
    )
    envelope = Envelope(kind="request", method="tools/call", params=params, has_params=True)
    request = McpRequest.of(compiled, envelope, ctx)
    request.input_responses = dict(record.input_responses)
    request.request_state = record.request_state
    request.task = handle
    return Call(compiled, dispatcher.settings, envelope, params, ctx, None, built=request)


def _dispatcher(key: str) -> Dispatcher:
    """Return the registry's dispatcher of the task's server (``key``: its dotted path)."""
    try:
        return serving.dispatcher_of(key)
    except Exception as exc:
        logger.error("Task server %r cannot be found in this process", key, exc_info=exc)
        raise InternalError("The task's server is not available") from None


async def _user(user_pk: str) -> Any:
    anonymous = anonymous_caller()  # None without django.contrib.auth: no users at all
    if anonymous is None or not user_pk:
        return anonymous
    from django.contrib.auth import get_user_model

    model = get_user_model()
    try:
        return await model._default_manager.aget(pk=user_pk)
    except (model.DoesNotExist, ValueError):
        raise InvalidParams("The task's caller no longer exists") from None
