"""``manage.py mcp_prune_audit [--dry-run] [--days DAYS]``: delete old MCP audit entries."""

from __future__ import annotations

import math
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import DatabaseError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from django_mcp.conf import get_setting
from django_mcp.management.base import McpCommand
from django_mcp.observability.audit import prune

__all__ = ["Command"]


class Command(McpCommand):
    """Delete the audit entries older than ``MCP_AUDIT_RETENTION_DAYS`` days."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Delete the MCP audit entries (MCP_AUDIT) older than MCP_AUDIT_RETENTION_DAYS days, or "
        "--days DAYS. Entries are never deleted otherwise. Safe to run at any time, from cron or "
        "a periodic task."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take --dry-run and --days."""
        parser.add_argument(
            "--dry-run", action="store_true", help=gettext("Count what would be deleted; delete nothing.")
        )
        parser.add_argument(
            "--days",
            type=float,
            metavar="DAYS",
            help=gettext("Keep entries this many days (default: MCP_AUDIT_RETENTION_DAYS)."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Delete once and print how many entries went."""
        days = options["days"]
        if days is None:
            days = get_setting("MCP_AUDIT_RETENTION_DAYS")
            if days is None:
                self.stdout.write(
                    gettext("MCP_AUDIT_RETENTION_DAYS is None: audit entries are kept forever.")
                )
                return
        if isinstance(days, bool) or not isinstance(days, int | float) or not math.isfinite(days) or days < 0:
            raise CommandError(
                gettext("The retention must be zero or more days, got {days!r}").format(days=days)
            )
        dry_run = options["dry_run"]
        try:
            count = prune(days, dry_run=dry_run)
        except DatabaseError as exc:
            raise CommandError(
                gettext("Could not prune MCP audit entries: {error}").format(error=exc)
            ) from None
        if dry_run:
            done = ngettext(
                "Would delete {count} audit entry older than {days} days.",
                "Would delete {count} audit entries older than {days} days.",
                count,
            )
        else:
            done = ngettext(
                "Deleted {count} audit entry older than {days} days.",
                "Deleted {count} audit entries older than {days} days.",
                count,
            )
        self.stdout.write(done.format(count=count, days=f"{days:g}"))
