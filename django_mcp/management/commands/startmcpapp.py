"""``manage.py startmcpapp APP_LABEL NAME``: write a new MCP App to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp.management.base import McpCommand
from django_mcp.ui.scaffold import ScaffoldError, plan, write

__all__ = ["Command"]


class Command(McpCommand):
    """Write an MCP App (an AppResource and its template), a tool showing it, and tests."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Write a new MCP App in an installed app: mcp_NAME.py (an AppResource and a tool linking it), "
        "the page's template templates/APP_LABEL/mcp/NAME.html, and tests to start from. "
        "Existing files are never overwritten."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the app label and the App's name."""
        parser.add_argument("app_label", help=gettext("The label of an installed app, such as 'shop'."))
        parser.add_argument("name", help=gettext("The App's name, such as 'order-board'."))

    def handle(self, *args: Any, **options: Any) -> None:
        """Write the files and say how to serve the App."""
        label = options["app_label"]
        try:
            config = apps.get_app_config(label)
        except LookupError:
            raise CommandError(
                gettext("No installed app with the label {label!r}.").format(label=label)
            ) from None
        try:
            scaffold = plan(label, config.name, Path(config.path), options["name"])
            write(scaffold)
        except ScaffoldError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(gettext("Could not write the App: {exc}").format(exc=exc)) from None
        for path in (scaffold.module, scaffold.template, scaffold.test):
            self.stdout.write(gettext("Wrote {path}").format(path=path))
        self.stdout.write(
            gettext(
                "Serve it: add {tool_class} (from {module_name}) to a server's tools in "
                "{label}/mcp.py; the tool's App is served with it."
            ).format(tool_class=scaffold.tool_class, module_name=scaffold.module_name, label=label)
        )
