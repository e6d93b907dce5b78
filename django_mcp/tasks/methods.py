"""The tasks extension ``io.modelcontextprotocol/tasks`` (SEP-2663).

A ``tools/call`` of a tool declaring ``task`` support may be answered with a
task handle instead of its result, and only when that very request declares
the extension in ``_meta["io.modelcontextprotocol/clientCapabilities"]
.extensions`` (never otherwise, whatever earlier requests declared). In
order, after the arguments are validated (``start_if_task``):

1. A 2025-11-25 call runs directly: the extension does not exist in that
   revision (its ``task`` param is ignored), so a ``"required"`` tool is
   refused there (-32602). A 2026-07-28 call of a ``"required"`` tool
   without the extension is -32021 with ``data.requiredCapabilities``.
2. ``prepare()``, when the tool defines it, runs in the request and may ask
   the client for input first: a plain multi round-trip request, no task yet
   (SEP-2663: resolve MRTR exchanges before creating the task).
3. Without the extension the call runs directly; for an ``"optional"`` tool,
   ``use_task()`` (when defined) may decide to run it directly too.
4. The caller's quotas are checked (``quota.py``: unfinished tasks and
   creations per period), then the task is stored (``McpTask``, status
   message "queued") *before* the answer, so an immediate ``tasks/get`` on
   any worker finds it; its run is then enqueued where tasks run
   (``framework.enqueue``: a Tasks framework backend, else this process's
   thread pool; the job runs ``run.run``). The answer is a flat
   ``CreateTaskResult``.

``tasks/get`` answers the task and, by status, the inlined ``CallToolResult``
(``completed``, tool errors with ``isError: true`` included), the JSON-RPC
``error`` (``failed``: the tool raised an ``McpError``) or every outstanding
input request (``input_required``). ``tasks/update`` delivers
``inputResponses``: keys not outstanding (unknown, already answered) are
ignored, a partial set keeps the task waiting, and once nothing is
outstanding the handler runs again with every answer; keys are never reused
within a task. ``tasks/cancel`` asks the run to stop: a waiting or not yet
started task is cancelled at once, a running one when its handler notices
(``request.task.cancelled``; an async handler is also cancelled at its next
``await``). Both ack with an empty result, on a finished task too.

Every ``tasks/*`` request needs the extension declared (-32021) and a
string ``taskId``. An unknown id, one created through another server or by
another caller (the rule of a signed ``requestState``: user pk, else client
address) and one past its expiry are the same -32602 (an expired task is
deleted when met; expired tasks are purged whenever one is created, and by
``mcp_prune_tasks``). Task ids carry 256 random bits. There is no
``tasks/list`` and no ``tasks/result`` (-32601). Over HTTP, ``Mcp-Name``
must equal ``params.taskId`` (``transports/_headers.py``).

Each read first settles a task whose worker is gone
(``upkeep.checked``: a lapsed lease fails it, cancels it or runs it
again). ``tasks/cancel`` records the request before that check, so a task
whose worker died ends ``cancelled``.

``ttlMs`` counts from creation, as the extension defines it, and may change
over a task's life (SEP-2663 "Tasks"): a task is kept ``MCP_TASK_TTL`` after
its work ends (or starts waiting for input), so while it is queued or
running its ``ttlMs`` is the time so far plus the TTL, and once it has
ended it is fixed at the end plus the TTL. A result stays readable for the
TTL after it is produced, and nothing is deleted while it is worked on.

``McpTask`` rows are created here and changed only through
``store.py``, by the request path and by ``run.run``.
"""

from __future__ import annotations

import datetime
import logging
import secrets
from collections.abc import Mapping
from typing import Any, Final

from django.utils import timezone

from django_mcp._callers import caller_principal, user_identity
from django_mcp._sync import run_sync
from django_mcp.dispatcher import extensions
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.continuation import finish_input_required
from django_mcp.dispatcher.invoke import invoke
from django_mcp.dispatcher.tools import tool_failed
from django_mcp.exceptions import InvalidParams, McpError, MethodNotFound, MissingClientCapability
from django_mcp.models import McpTask
from django_mcp.observability._hooks import task_status_changed
from django_mcp.observability._state import OBSERVATION
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import CallToolResult, EmptyResult, InputRequest, InputRequiredResult
from django_mcp.protocol.tasks import EXTENSION, TERMINAL_STATUSES, CreateTaskResult, GetTaskResult
from django_mcp.ratelimit import identity_of
from django_mcp.server.compiler import CompiledServer, CompiledTool
from django_mcp.server.handlers import Handler
from django_mcp.signals import mcp_task_status_changed
from django_mcp.tasks import store
from django_mcp.tasks.framework import enqueue
from django_mcp.tasks.quota import check_quota
from django_mcp.tasks.upkeep import checked

__all__ = [
    "TASK_ID_BYTES",
    "cancel_task",
    "declares_tasks",
    "detailed",
    "get_task",
    "missing_extension",
    "offers_tasks",
    "start_if_task",
    "ttl_ms",
    "update_task",
]

logger = logging.getLogger(__name__)

TASK_ID_BYTES: Final = 32
"""Random bytes in a task id (URL-safe Base64: 43 characters)."""

_NOT_FOUND = "Failed to retrieve task: Task not found"


# --------------------------------------------------------------- negotiation


def declares_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Return True when client ``capabilities`` declare the tasks extension in a known revision.

    A ``revision`` this package does not implement leaves the extension
    disabled (SEP-3392 "Identifiers and compatibility"), as if undeclared.
    """
    return extensions.declared(capabilities, EXTENSION)


def offers_tasks(compiled: CompiledServer) -> bool:
    """Return True when ``compiled`` advertises the tasks extension."""
    return extensions.offered(compiled, EXTENSION)


def missing_extension(message: str) -> MissingClientCapability:
    """Return the -32021 error naming the tasks extension as required."""
    return extensions.missing_extension(EXTENSION, message)


# ------------------------------------------------------------------ creation


async def start_if_task(
    call: Call, entry: CompiledTool, payload: Any, arguments: dict[str, Any]
) -> CallToolResult | InputRequiredResult | CreateTaskResult | None:
    """Answer a task-capable tool's call with a task when it becomes one.

    Returns None when the handler should run now, in the request; an
    ``InputRequiredResult`` when ``prepare()`` asks the client first; an
    ``isError`` result when ``prepare()`` or ``use_task()`` fails.
    """
    request = call.request
    if request.task is not None:  # the task's own run
        return None
    if not extensions.served(call.compiled, call.settings, EXTENSION):  # MCP_TASKS_EXTENSION = False
        return None
    if call.ctx.era == "legacy":
        if entry.task == "required":
            raise MissingClientCapability(
                f"Tool {entry.name!r} runs only as a task, which protocol revision "
                f"{call.ctx.protocol_version} cannot return"
            )
        return None
    declared = declares_tasks(request.client_capabilities)
    if entry.task == "required" and not declared:
        raise missing_extension(f"Tool {entry.name!r} runs only as a task: declare the {EXTENSION} extension")
    try:
        if entry.prepare is not None:
            asked = await _hook(call, entry, entry.prepare, payload)
            if asked is not None:
                if not isinstance(asked, InputRequiredResult):
                    raise TypeError(
                        f"prepare() must return None or input_required(...), got {type(asked).__name__}"
                    )
                return finish_input_required(call, asked, target=entry.name, arguments=arguments)
        if not declared:
            return None
        if entry.use_task is not None and not await _hook(call, entry, entry.use_task, payload):
            return None
    except McpError:
        raise
    except Exception as exc:  # a tool failure is a result, not a protocol error
        return tool_failed(call, entry, exc)
    return await _create(call, entry, arguments)


async def _hook(call: Call, entry: CompiledTool, plan: Handler, payload: Any) -> Any:
    produced = await invoke(entry.component, plan, call, payload=payload, emit=call.emit)
    if len(produced) > 1:
        raise TypeError(f"{plan.name}() must return one value, got {len(produced)}")
    return produced[0] if produced else None


async def _create(call: Call, entry: CompiledTool, arguments: dict[str, Any]) -> CreateTaskResult:
    settings, request = call.settings, call.request
    client = identity_of(request)
    await check_quota(settings, client, anonymous=user_identity(request.user) is None)
    now = timezone.now()
    ttl = settings.task_ttl
    poll = settings.task_poll_interval
    record = McpTask(
        id=secrets.token_urlsafe(TASK_ID_BYTES),
        server=call.compiled.key,
        tool=entry.name,
        owner=caller_principal(request.user, request.client_address),
        user_pk=_user_pk(request.user),
        client=client,
        status=McpTask.Status.WORKING,
        status_message=store.QUEUED,
        created_at=now,
        updated_at=now,
        ttl_ms=None if ttl is None else round(ttl * 1000),
        expires_at=None,  # kept the TTL once its work ends
        poll_interval_ms=None if poll is None else max(1, round(poll * 1000)),
        retries_left=entry.task_retries,
        call={
            "arguments": arguments,
            "protocolVersion": request.protocol_version,
            "clientCapabilities": dict(request.client_capabilities),
            "clientInfo": dict(request.client_info) if request.client_info is not None else None,
        },
        input_responses=dict(request.input_responses),
        request_state=request.request_state,
    )
    telemetry = OBSERVATION.telemetry
    traceparent = telemetry.traceparent() if telemetry is not None else None
    if traceparent is not None:  # the run's span links to this request's
        record.call["traceparent"] = traceparent
    await run_sync(store.expire, now)
    # Durable before the answer (SEP-2663 "Task Creation"): autocommit.
    await record.asave(force_insert=True)
    if mcp_task_status_changed.receivers:
        await run_sync(task_status_changed, record.pk, McpTask.Status.WORKING.value)
    await enqueue(record.pk, caller=record.owner)
    stored = await McpTask.objects.aget(pk=record.pk)  # an immediate backend has run it already
    # As of its creation: a fresh task's ttlMs is the TTL itself.
    return CreateTaskResult(**_fields(stored, now=stored.updated_at))


def _user_pk(user: Any) -> str:
    return str(user.pk) if getattr(user, "is_authenticated", False) else ""


# ------------------------------------------------------------------- methods


async def get_task(call: Call) -> GetTaskResult:
    """Answer ``tasks/get``: the task and what its status carries."""
    record = await _find(call)
    return GetTaskResult(**detailed(record))


async def update_task(call: Call) -> EmptyResult:
    """Answer ``tasks/update``: take the answers to outstanding input requests."""
    responses = call.params.get("inputResponses")
    record = await _find(call)
    if not isinstance(responses, dict):
        raise InvalidParams("tasks/update needs an inputResponses object")
    if await run_sync(store.answer, record.pk, responses):
        await enqueue(record.pk, caller=record.owner)
    return EmptyResult()


async def cancel_task(call: Call) -> EmptyResult:
    """Answer ``tasks/cancel``: ask the task to stop (acknowledged when finished too).

    The request is recorded before the lease is checked: a task whose
    worker is gone then ends ``cancelled``, not ``failed``.
    """
    record = await _find(call, check=False)
    if record.status not in TERMINAL_STATUSES:
        await run_sync(store.cancel, record.pk, record.ttl_ms)
        await checked(await McpTask.objects.aget(pk=record.pk))
    return EmptyResult()


async def _find(call: Call, *, check: bool = True) -> McpTask:
    if not offers_tasks(call.compiled):
        raise MethodNotFound(f"Method not found: {call.envelope.method} (no tool runs as a task)")
    if not declares_tasks(call.request.client_capabilities):
        raise missing_extension(f"{call.envelope.method} needs the {EXTENSION} extension declared")
    task_id = call.params.get("taskId")
    if not isinstance(task_id, str):
        raise InvalidParams(f"{call.envelope.method} needs a string taskId")
    record = await McpTask.objects.filter(pk=task_id, server=call.compiled.key).afirst()
    request = call.request
    if record is None or record.owner != caller_principal(request.user, request.client_address):
        raise InvalidParams(_NOT_FOUND)
    now = timezone.now()
    if record.expires_at is not None and record.expires_at <= now:
        await run_sync(store.expire, now, task_id=record.pk)
        raise InvalidParams("Failed to retrieve task: Task has expired")
    return await checked(record) if check else record


# ------------------------------------------------------------------- shapes


def _fields(record: McpTask, now: datetime.datetime | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "task_id": record.pk,
        "status": record.status,
        "created_at": _timestamp(record.created_at),
        "last_updated_at": _timestamp(record.updated_at),
        "ttl_ms": ttl_ms(record, now),
    }
    if record.status_message:
        fields["status_message"] = record.status_message
    if record.poll_interval_ms is not None:
        fields["poll_interval_ms"] = record.poll_interval_ms
    return fields


def ttl_ms(record: McpTask, now: datetime.datetime | None = None) -> int | None:
    """Return the task's ``ttlMs``: milliseconds from creation it is kept (None: unlimited).

    Fixed once the work has ended (its expiry); while the work goes on, the
    time so far plus the TTL, since the TTL only starts when it ends.
    """
    if record.ttl_ms is None:
        return None
    end = record.expires_at
    if end is None:
        end = (now or timezone.now()) + datetime.timedelta(milliseconds=record.ttl_ms)
    return max(1, round((end - record.created_at).total_seconds() * 1000))


def detailed(record: McpTask) -> dict[str, Any]:
    """Return the ``GetTaskResult`` (``DetailedTask``) fields of ``record``, by status."""
    fields = _fields(record)
    if record.status == "completed":
        fields["result"] = record.result
    elif record.status == "failed":
        fields["error"] = record.error
    elif record.status == "input_required":
        fields["input_requests"] = {
            key: InputRequest(method=item["method"], params=item.get("params", UNSET))
            for key, item in record.input_requests.items()
        }
    return fields


def _timestamp(moment: datetime.datetime) -> str:
    """Return ISO 8601 in UTC with milliseconds: ``2026-07-28T10:30:00.000Z``."""
    return moment.astimezone(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
