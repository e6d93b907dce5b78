"""``manage.py mcp_prune_idempotency_keys [--dry-run]``: delete expired idempotency keys."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import DatabaseError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from django_mcp.dispatcher.idempotency import prune
from django_mcp.management.base import McpCommand

__all__ = ["Command"]


class Command(McpCommand):
    """Delete the idempotency keys older than ``MCP_IDEMPOTENCY_KEY_TTL`` seconds."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Delete the idempotency keys of MCP tool calls (and the results stored with them) "
        "reserved more than MCP_IDEMPOTENCY_KEY_TTL seconds ago. Expired keys already count as "
        "absent, so this only keeps the table small. Safe to run at any time, from cron or a "
        "periodic task."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take --dry-run."""
        parser.add_argument(
            "--dry-run", action="store_true", help=gettext("Count what would be deleted; delete nothing.")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Delete once and print how many keys went."""
        dry_run = options["dry_run"]
        try:
            count = prune(dry_run=dry_run)
        except DatabaseError as exc:
            raise CommandError(
                gettext("Could not prune MCP idempotency keys: {error}").format(error=exc)
            ) from None
        if dry_run:
            done = ngettext(
                "Would delete {count} expired idempotency key.",
                "Would delete {count} expired idempotency keys.",
                count,
            )
        else:
            done = ngettext(
                "Deleted {count} expired idempotency key.", "Deleted {count} expired idempotency keys.", count
            )
        self.stdout.write(done.format(count=count))
