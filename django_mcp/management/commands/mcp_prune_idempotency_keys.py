"""``manage.py mcp_prune_idempotency_keys [--dry-run]``: delete expired idempotency keys."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from django_mcp.dispatcher.idempotency import prune

__all__ = ["Command"]


class Command(BaseCommand):
    """Delete the idempotency keys older than ``MCP_IDEMPOTENCY_KEY_TTL`` seconds."""

    help = (
        "Delete the idempotency keys of MCP tool calls (and the results stored with them) "
        "reserved more than MCP_IDEMPOTENCY_KEY_TTL seconds ago. Expired keys already count as "
        "absent, so this only keeps the table small. Safe to run at any time, from cron or a "
        "periodic task."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take --dry-run."""
        parser.add_argument(
            "--dry-run", action="store_true", help="Count what would be deleted; delete nothing."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Delete once and print how many keys went."""
        dry_run = options["dry_run"]
        try:
            count = prune(dry_run=dry_run)
        except DatabaseError as exc:
            raise CommandError(f"Could not prune MCP idempotency keys: {exc}") from None
        verb = "Would delete" if dry_run else "Deleted"
        keys = "key" if count == 1 else "keys"
        self.stdout.write(f"{verb} {count} expired idempotency {keys}.")
