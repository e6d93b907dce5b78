"""``manage.py mcp_catalog [SERVER] [--format text|json]``: print catalogs."""

from __future__ import annotations

from typing import Any

import msgspec
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp._catalog import catalog_json, catalog_text, find_servers
from django_mcp.exceptions import NotRegistered
from django_mcp.management.base import McpCommand

__all__ = ["Command"]


class Command(McpCommand):
    """Print the compiled catalog of the registered MCP servers."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Print the tools, resources, resource templates and prompts of the registered MCP "
        "servers, as compiled, unfiltered by permissions. SERVER is a web path or a local name "
        "(web:PATH or local:NAME when both exist); without it every server is listed. "
        "--format json prints one server's catalog object, or "
        '{"web": {PATH: catalog}, "local": {NAME: catalog}} for all of them.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take an optional server and the output format."""
        parser.add_argument("server", nargs="?", metavar="SERVER", help=gettext("Web path or local name."))
        parser.add_argument(
            "--format", choices=("text", "json"), default="text", help=gettext("Output format.")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Print the selected catalogs."""
        name = options["server"]
        try:
            entries = find_servers(name)
        except NotRegistered as exc:
            raise CommandError(str(exc)) from None
        if options["format"] == "json":
            data: Any
            if name is not None:
                data = catalog_json(entries[0].server)
            else:
                data = {"web": {}, "local": {}}
                for entry in entries:
                    data[entry.kind][entry.key] = catalog_json(entry.server)
            self.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode())
        elif not entries:
            self.stdout.write(gettext("No MCP servers are registered."))
        else:
            self.stdout.write("\n\n".join(catalog_text(entry.server, label=entry.label) for entry in entries))
