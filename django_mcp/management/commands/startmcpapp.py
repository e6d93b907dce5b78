"""``manage.py startmcpapp APP_LABEL NAME``: write a new MCP App to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_mcp.ui.scaffold import ScaffoldError, plan, write

__all__ = ["Command"]


class Command(BaseCommand):
    """Write an MCP App (an AppResource and its template), a tool showing it, and tests."""

    help = (
        "Write a new MCP App in an installed app: mcp_NAME.py (an AppResource and a tool linking it), "
        "the page's template templates/APP_LABEL/mcp/NAME.html, and tests to start from. "
        "Existing files are never overwritten."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the app label and the App's name."""
        parser.add_argument("app_label", help="The label of an installed app, such as 'shop'.")
        parser.add_argument("name", help="The App's name, such as 'order-board'.")

    def handle(self, *args: Any, **options: Any) -> None:
        """Write the files and say how to serve the App."""
        label = options["app_label"]
        try:
            config = apps.get_app_config(label)
        except LookupError:
            raise CommandError(f"No installed app with the label {label!r}.") from None
        try:
            scaffold = plan(label, config.name, Path(config.path), options["name"])
            write(scaffold)
        except ScaffoldError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"Could not write the App: {exc}") from None
        for path in (scaffold.module, scaffold.template, scaffold.test):
            self.stdout.write(f"Wrote {path}")
        self.stdout.write(
            f"Serve it: add {scaffold.tool_class} (from {scaffold.module_name}) to a server's tools in "
            f"{label}/mcp.py; the tool's App is served with it."
        )
