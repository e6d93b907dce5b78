"""The hooks the request path calls while something observes it.

``observing`` is one link of a dispatcher's request chain, built into it
(``Dispatcher.load_chain``) only while ``OBSERVATION.active``; it serves
the request through the next link inside the request's span, then
reports the finished request to the telemetry, the call log, the
``mcp_request_finished`` signal and the audit trail, in that order, after
the answer is computed and before the transport sends it. ``observe_task``
wraps a task's run (``django_mcp.tasks.run``);
``task_status_changed`` is called by ``tasks.store`` for every status a task
takes. No observer can fail a request: a receiver's exception or a failed
audit insert is logged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from django_mcp._callers import client_address
from django_mcp._sync import run_sync
from django_mcp.exceptions import ToolNotFound
from django_mcp.observability import audit, refresh
from django_mcp.observability._record import CallRecord, component_of, outcome_of, transport_of
from django_mcp.observability._state import OBSERVATION
from django_mcp.observability.calls import log_call
from django_mcp.signals import mcp_request_finished, mcp_task_status_changed

if TYPE_CHECKING:
    from django_mcp.conf import McpSettings
    from django_mcp.dispatcher import Dispatcher, Respond
    from django_mcp.dispatcher.codec import Envelope, Reply
    from django_mcp.dispatcher.context import CallContext, Emit
    from django_mcp.models import McpTask
    from django_mcp.server.compiler import CompiledServer

__all__ = ["observe_task", "observing", "task_status_changed"]

logger = logging.getLogger("django_mcp.observability")


def observing(dispatcher: Dispatcher, serve: Respond) -> Respond:
    """Return the link of ``dispatcher``'s request chain that reports each request ``serve`` answers."""
    compiled = dispatcher.compiled
    state = OBSERVATION

    async def observed(envelope: Envelope, ctx: CallContext, emit: Emit | None) -> Reply:
        telemetry = state.telemetry
        transport = transport_of(ctx.http)
        address = None
        if transport == "http" and (telemetry is not None or state.audit is not None):
            address = client_address(ctx.http)
        scope = None
        if telemetry is not None:
            scope = telemetry.begin(compiled, envelope, ctx, address)
            if scope.span is not None:
                if emit is not None:
                    emit = scope.traced_emit(emit)
                if ctx.client_request is not None:
                    ctx.client_request = scope.traced_client_request(ctx.client_request)
        started = time.perf_counter()
        try:
            reply = await serve(envelope, ctx, emit)
        except BaseException:  # cancelled (the client went away): reported, never audited
            record = _record(compiled, envelope, ctx, transport, address, "cancelled", None, started)
            if scope is not None:
                telemetry.end(scope, record, result=None, message=None)
            log_call(record)
            if mcp_request_finished.receivers:
                await _send(record)
            raise
        error = reply.error
        record = _record(
            compiled,
            envelope,
            ctx,
            transport,
            address,
            outcome_of(reply.result, error),
            None if error is None else error.code,
            started,
            unseen=isinstance(error, ToolNotFound),
        )
        if scope is not None:
            telemetry.end(
                scope, record, result=reply.result, message=None if error is None else error.message
            )
        log_call(record)
        if mcp_request_finished.receivers:
            await _send(record)
        mode = state.audit
        if mode is not None and audit.audited(
            mode, compiled, record.method, record.component, unseen=record.unseen
        ):
            try:
                await run_sync(_audit, record, compiled, dispatcher.settings)
            except Exception:  # the audit never fails the call it records
                logger.exception("Could not audit %s %s", record.method, record.component)
        return reply

    return observed


def _record(
    compiled: CompiledServer,
    envelope: Envelope,
    ctx: CallContext,
    transport: str,
    address: str | None,
    outcome: str,
    error_code: int | None,
    started: float,
    *,
    unseen: bool = False,
) -> CallRecord:
    params = envelope.params
    return CallRecord(
        server=compiled.server,
        server_key=compiled.key,
        method=envelope.method,
        component=component_of(envelope.method, params),
        request_id=envelope.id,
        protocol_version=ctx.protocol_version,
        transport=transport,
        user=ctx.user,
        outcome=outcome,
        error_code=error_code,
        duration=time.perf_counter() - started,
        params=params,
        http=ctx.http,
        client_address=address,
        unseen=unseen,
    )


async def _send(record: CallRecord) -> None:
    answers = await mcp_request_finished.asend_robust(
        sender=record.server,
        server=record.server_key,
        method=record.method,
        component=record.component,
        user=record.user,
        outcome=record.outcome,
        error_code=record.error_code,
        duration=record.duration,
        protocol_version=record.protocol_version,
        request_id=record.request_id,
    )
    _log_failures(answers, "mcp_request_finished")


def _audit(record: CallRecord, compiled: CompiledServer, settings: McpSettings) -> None:
    try:
        rules = audit.patterns(settings.audit_redact)
        entry = audit.entry_for(record, compiled, rules, max_arguments_size=settings.audit_max_arguments_size)
    except Exception:  # the audit never fails the call it records
        logger.exception("Could not build the MCP audit entry of %s %s", record.method, record.component)
        return
    audit.write(entry)


def _log_failures(answers: list[tuple[Any, Any]], signal: str) -> None:
    for receiver, answer in answers:
        if isinstance(answer, Exception):
            logger.error("A receiver of %s raised: %r", signal, receiver, exc_info=answer)


# ------------------------------------------------------------------ tasks


async def observe_task(record: McpTask, run: Callable[[McpTask], Awaitable[bool]]) -> bool:
    """Run a claimed task (``run(record)``) inside a span of its own, linked to its creator's."""
    state = OBSERVATION
    if state.stale:
        refresh()
    telemetry = state.telemetry
    scope = None
    if telemetry is not None:
        call = record.call if isinstance(record.call, dict) else {}
        scope = telemetry.begin_task(record.tool, call.get("protocolVersion") or "", call.get("traceparent"))
    if scope is None:
        return await run(record)
    failed = True
    try:
        again = await run(record)
        failed = False
        return again
    finally:
        telemetry.end_task(scope, failed=failed)


def task_status_changed(
    task_id: str, status: str, *, error_code: int | None = None, tool_error: bool = False
) -> None:
    """Tell the current task run's span and the signal's receivers about a task's new status."""
    telemetry = OBSERVATION.telemetry
    if telemetry is not None:
        telemetry.task_status(status, error_code=error_code, tool_error=tool_error)
    if mcp_task_status_changed.receivers:
        from django_mcp.models import McpTask

        answers = mcp_task_status_changed.send_robust(
            sender=McpTask, task_id=task_id, status=status, error_code=error_code, tool_error=tool_error
        )
        _log_failures(answers, "mcp_task_status_changed")
