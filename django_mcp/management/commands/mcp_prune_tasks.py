"""``manage.py mcp_prune_tasks [--dry-run] [--job-age SECONDS]``: tidy the MCP task tables."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError, CommandParser
from django.db import DatabaseError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp.management.base import McpCommand
from django_mcp.tasks.upkeep import sweep

__all__ = ["Command"]


class Command(McpCommand):
    """Settle tasks whose worker stopped, delete expired tasks and old finished jobs."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Fail (or cancel, or run again) working MCP tasks whose lease lapsed or whose Tasks "
        "backend job failed, delete the tasks past their MCP_TASK_TTL, and delete the finished "
        "jobs django-tasks-db keeps for them. Safe to run at any time, from cron or a periodic "
        "task, and from several places at once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take --dry-run and --job-age."""
        parser.add_argument(
            "--dry-run", action="store_true", help=gettext("Count what would change; change nothing.")
        )
        parser.add_argument(
            "--job-age",
            type=float,
            default=600,
            metavar="SECONDS",
            help=gettext("Keep finished Tasks backend jobs this long (default: %(default)s s)."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Sweep once and print what was done."""
        job_age = options["job_age"]
        if job_age < 0:
            raise CommandError(
                gettext("--job-age must be zero or more seconds, got {age}").format(age=f"{job_age:g}")
            )
        dry_run = options["dry_run"]
        try:
            swept = async_to_sync(sweep)(job_age=job_age, dry_run=dry_run)
        except (DatabaseError, ImproperlyConfigured) as exc:
            raise CommandError(gettext("Could not prune MCP tasks: {error}").format(error=exc)) from None
        if swept.jobs is None:
            jobs = gettext("no Tasks backend jobs to prune")
        else:
            jobs = gettext("{jobs} finished job(s)").format(jobs=swept.jobs)
        if dry_run:
            done = gettext(
                "Would settle {settled} task(s) whose worker stopped; would delete {expired} "
                "expired task(s) and {jobs}."
            )
        else:
            done = gettext(
                "Settled {settled} task(s) whose worker stopped; deleted {expired} expired "
                "task(s) and {jobs}."
            )
        self.stdout.write(done.format(settled=swept.settled, expired=swept.expired, jobs=jobs))
