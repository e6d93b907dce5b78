"""``manage.py mcp_prune_tasks [--dry-run] [--job-age SECONDS]``: tidy the MCP task tables."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from django_mcp.task_upkeep import sweep

__all__ = ["Command"]


class Command(BaseCommand):
    """Settle tasks whose worker stopped, delete expired tasks and old finished jobs."""

    help = (
        "Fail (or cancel, or run again) working MCP tasks whose lease lapsed or whose Tasks "
        "backend job failed, delete the tasks past their MCP_TASK_TTL, and delete the finished "
        "jobs django-tasks-db keeps for them. Safe to run at any time, from cron or a periodic "
        "task, and from several places at once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take --dry-run and --job-age."""
        parser.add_argument("--dry-run", action="store_true", help="Count what would change; change nothing.")
        parser.add_argument(
            "--job-age",
            type=float,
            default=600,
            metavar="SECONDS",
            help="Keep finished Tasks backend jobs this long (default: %(default)s s).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Sweep once and print what was done."""
        job_age = options["job_age"]
        if job_age < 0:
            raise CommandError(f"--job-age must be zero or more seconds, got {job_age:g}")
        dry_run = options["dry_run"]
        try:
            swept = async_to_sync(sweep)(job_age=job_age, dry_run=dry_run)
        except (DatabaseError, ImproperlyConfigured) as exc:
            raise CommandError(f"Could not prune MCP tasks: {exc}") from None
        verb = "Would settle" if dry_run else "Settled"
        jobs = "no Tasks backend jobs to prune" if swept.jobs is None else f"{swept.jobs} finished job(s)"
        self.stdout.write(
            f"{verb} {swept.settled} task(s) whose worker stopped; "
            f"{'would delete' if dry_run else 'deleted'} {swept.expired} expired task(s) and {jobs}."
        )
