"""``manage.py mcp_inspector [SERVER]``: open the official MCP Inspector on a server."""

from __future__ import annotations

import shlex
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp.inspector import (
    INSPECTOR_PACKAGE,
    INSPECTOR_VERSION,
    InspectorError,
    answers,
    inspector_launch,
)
from django_mcp.management.base import McpCommand

__all__ = ["Command"]


class Command(McpCommand):
    """Launch the MCP Inspector against a registered server, over HTTP or STDIO."""

    help = format_lazy(  # type: ignore[assignment]  # lazy: translated when --help prints it
        _(
            "Launch the official MCP Inspector ({inspector}, through npx) against a registered "
            "server: a web path over HTTP at --base-url (the site must be running), a local name "
            "over STDIO (the Inspector starts manage.py mcp_stdio NAME). SERVER is a web path or "
            "a local name (web:PATH or local:NAME when both exist); without it the only "
            "registered server is used. Node.js 22 comes from the npm registry when the "
            "machine's node is older."
        ),
        inspector=f"{INSPECTOR_PACKAGE}@{INSPECTOR_VERSION}",
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the server, where the site runs, the era and --print."""
        parser.add_argument("server", nargs="?", metavar="SERVER", help=gettext("Web path or local name."))
        parser.add_argument(
            "--base-url",
            help=gettext(
                "Where the site serves a web server's URL (default: http://127.0.0.1:$PORT, "
                "port 8000 when PORT is unset)."
            ),
        )
        parser.add_argument(
            "--protocol-era",
            choices=("auto", "modern", "legacy"),
            default="auto",
            help=gettext(
                "auto: 2026-07-28 when the server offers it (default); modern; legacy: 2025-11-25 sessions."
            ),
        )
        parser.add_argument(
            "--manage-py", help=gettext("The manage.py a local server is started with (default: this one).")
        )
        parser.add_argument(
            "--print",
            action="store_true",
            help=gettext("Print the Inspector's command line instead of running it."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Build the Inspector's command line, then run (or print) it."""
        try:
            launch = inspector_launch(
                options["server"],
                base_url=options["base_url"],
                era=options["protocol_era"],
                manage_py=options["manage_py"],
            )
        except InspectorError as exc:
            raise CommandError(str(exc)) from None
        if launch.transport == "http" and not answers(launch.target):
            self.stderr.write(
                gettext(
                    "Warning: nothing answers at {url}. Start the site first; if it serves on another "
                    "port or host, name it with --base-url http://HOST:PORT (or set PORT)."
                ).format(url=launch.target)
            )
        if options["print"]:
            self.stdout.write(shlex.join(launch.command))
            return
        opening = (
            gettext("Opening the MCP Inspector over HTTP at {target}")
            if launch.transport == "http"
            else gettext("Opening the MCP Inspector over STDIO, starting {target}")
        )
        self.stderr.write(opening.format(target=launch.target))
        if launch.node_from_npm:
            self.stderr.write(
                gettext("This machine's Node.js is older than 22: npx brings Node.js 22 from npm.")
            )
        code = launch.run()
        if code not in (0, 130):
            raise CommandError(gettext("The MCP Inspector exited with code {code}.").format(code=code))
