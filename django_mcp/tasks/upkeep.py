"""Tasks whose worker is gone, and tasks past their time: found by whoever looks.

No daemon watches tasks. Whoever reads one (``tasks/get``, ``tasks/update``,
``tasks/cancel``, a ``subscriptions/listen`` stream watching it) passes it
through ``checked()``, and ``mcp_prune_tasks`` passes every suspect one
through ``sweep()``:

* a working task whose lease lapsed (its worker, or the in-process queue
  holding it, stopped renewing it: ``MCP_TASK_LEASE_TIMEOUT``) ends
  ``cancelled`` when the client asked to cancel it, is queued again when
  its tool declares ``task_retries`` and some are left, and otherwise
  fails with -32603 "The worker running this task stopped";
* a queued task whose Tasks backend job failed, or vanished, fails (asked
  of the backend only once the task has been quiet for a lease timeout,
  and only of backends whose results any process can read);
* a queued task whose job no worker started within
  ``MCP_TASK_CLAIM_TIMEOUT`` fails too, whatever the backend says of it: a
  backend may keep a job "ready" forever that its workers discarded (a job
  they do not know) or that waits on a queue nobody serves;
* ``sweep()`` also deletes the tasks past ``expires_at`` (set when a
  task's work ends: ``MCP_TASK_TTL``) and the finished jobs django-tasks-db
  keeps for them.

Every change goes through ``store``, conditional on the row still
being as it was read, so two readers finding the same lapsed lease act
once.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from typing import Final

from django.utils import timezone

from django_mcp._sync import run_sync
from django_mcp.conf import get_settings
from django_mcp.models import McpTask
from django_mcp.tasks import store
from django_mcp.tasks.backend import MISSING, job_status, prune_jobs
from django_mcp.tasks.framework import enqueue

__all__ = ["JOB_FAILED", "JOB_LOST", "JOB_UNCLAIMED", "MAX_SWEPT", "Swept", "checked", "sweep"]

logger = logging.getLogger(__name__)

JOB_FAILED: Final = "The Tasks backend failed this task's job before it ran"
"""The status message (and error) of a queued task whose job failed."""

JOB_LOST: Final = "The Tasks backend lost this task's job"
"""The status message (and error) of a queued task whose job vanished."""

JOB_UNCLAIMED: Final = "No worker started this task's job in time"
"""The status message (and error) of a queued task no worker started (``MCP_TASK_CLAIM_TIMEOUT``)."""

MAX_SWEPT: Final = 1000
"""Tasks one ``sweep()`` looks at for each kind of trouble (the next run sees the rest)."""


async def checked(record: McpTask, *, may_retry: bool = True) -> McpTask:
    """Return ``record`` as it stands once a lapsed lease or a lost job is dealt with.

    ``may_retry`` is False where a retry must not be queued (a command's
    process about to exit, with the in-process pool).
    """
    if record.status != McpTask.Status.WORKING:
        return record
    now = timezone.now()
    changed = False
    if record.lease_expires_at is not None and record.lease_expires_at <= now:
        changed = await _lapsed(record, may_retry=may_retry)
    elif not record.running and record.job_id and _quiet(record, now):
        changed = await _lost_job(record)
    if not changed:
        return record
    return await McpTask.objects.aget(pk=record.pk)


def _quiet(record: McpTask, now: datetime.datetime) -> bool:
    return record.updated_at <= now - datetime.timedelta(seconds=get_settings().task_lease_timeout)


def _unclaimed(record: McpTask, now: datetime.datetime) -> bool:
    """Return whether a queued job has waited for a worker longer than ``MCP_TASK_CLAIM_TIMEOUT``.

    Only a Tasks backend's job: the in-process pool holds a lease on what it
    queues, so a task waiting there is not lost (a lapsed lease says when it is).
    """
    settings = get_settings()
    bound = settings.task_claim_timeout
    if bound is None or settings.task_backend is None or record.lease_expires_at is not None:
        return False
    return record.updated_at <= now - datetime.timedelta(seconds=bound)


async def _lapsed(record: McpTask, *, may_retry: bool) -> bool:
    retry = record.retries_left > 0 and not record.cancel_requested
    if retry and not may_retry:
        return False  # left for a reader that can queue the retry
    if not await run_sync(store.lapse, record, retry=retry):
        return False
    logger.warning(
        "Task %s (tool %r) lost its worker %s: %s",
        record.pk,
        record.tool,
        record.lease_holder or "(queued)",
        "cancelled" if record.cancel_requested else "run again" if retry else "failed",
    )
    if retry:
        await enqueue(record.pk, caller=record.owner)
    return True


async def _lost_job(record: McpTask) -> bool:
    status = await job_status(record.job_id)
    if status == "FAILED":
        message = JOB_FAILED
    elif status == MISSING:
        message = JOB_LOST
    elif _unclaimed(record, timezone.now()):
        message = JOB_UNCLAIMED
    else:
        return False
    if not await run_sync(store.fail_job, record, message):
        return False
    logger.warning("Task %s (tool %r): %s (job %s)", record.pk, record.tool, message, record.job_id)
    return True


@dataclasses.dataclass(frozen=True, slots=True)
class Swept:
    """What one ``sweep()`` did (or, in a dry run, would do)."""

    #: Working tasks whose lease had lapsed, or whose job failed, that changed.
    settled: int
    #: Tasks past their ``expires_at``, deleted.
    expired: int
    #: Finished jobs of the Tasks backend deleted (None: it keeps none we can delete).
    jobs: int | None


async def sweep(
    *, now: datetime.datetime | None = None, job_age: float = 600, dry_run: bool = False
) -> Swept:
    """Settle lapsed leases and lost jobs, delete expired tasks and old finished jobs.

    ``job_age`` is how many seconds a finished job is kept. Safe to run
    at any time and from several places at once: every change is
    conditional. With the in-process pool (no ``TASKS``), a task with
    retries left is left for the next reader: a retry queued in this
    command's process would die with it.
    """
    now = now or timezone.now()
    working = McpTask.objects.filter(status=McpTask.Status.WORKING)
    lapsed = working.filter(lease_expires_at__lte=now)
    quiet = working.filter(
        running=False,
        updated_at__lte=now - datetime.timedelta(seconds=get_settings().task_lease_timeout),
    ).exclude(job_id="")
    expired = McpTask.objects.filter(expires_at__lt=now)
    finished_before = now - datetime.timedelta(seconds=job_age)
    if dry_run:
        jobs = await run_sync(prune_jobs, finished_before=finished_before, dry_run=True)
        return Swept(settled=await lapsed.acount(), expired=await expired.acount(), jobs=jobs)
    may_retry = get_settings().task_backend is not None
    settled = 0
    async for record in lapsed.order_by("lease_expires_at")[:MAX_SWEPT]:
        settled += await _lapsed(record, may_retry=may_retry)
    async for record in quiet.filter(lease_expires_at__isnull=True).order_by("updated_at")[:MAX_SWEPT]:
        settled += await _lost_job(record)
    deleted = await run_sync(store.expire, now)
    jobs = await run_sync(prune_jobs, finished_before=finished_before)
    return Swept(settled=settled, expired=deleted, jobs=jobs)
