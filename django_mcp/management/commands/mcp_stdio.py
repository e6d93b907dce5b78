"""``manage.py mcp_stdio NAME``: serve a local MCP server over STDIO."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_mcp.exceptions import NotRegistered
from django_mcp.registry import registry
from django_mcp.transports.stdio import protect_stdout, run_stdio

__all__ = ["Command"]


class Command(BaseCommand):
    """Serve the server registered with ``django_mcp.local(NAME, ...)``."""

    help = (
        "Serve the MCP server registered with django_mcp.local(NAME, ...) over STDIO: "
        "newline-delimited JSON-RPC on stdin and stdout, logs on stderr. "
        "Runs until stdin is closed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the local server's name."""
        parser.add_argument("server", metavar="NAME", help="Name given to django_mcp.local().")

    def handle(self, *args: Any, **options: Any) -> None:
        """Look the server up, then serve stdin/stdout until stdin ends."""
        name = options["server"]
        try:
            server = registry.get("local", name)
        except NotRegistered:
            known = ", ".join(repr(key) for key in registry.local_servers()) or "none"
            raise CommandError(
                f"No local MCP server named {name!r}. Registered local servers: {known}."
            ) from None
        with protect_stdout() as frames:
            self.stdout = self.stderr  # stdout now carries protocol messages only
            try:
                run_stdio(server, stdin=sys.stdin.buffer, stdout=frames)
            except KeyboardInterrupt:
                pass
