"""``manage.py mcp_card SERVER [--base-url URL | --url URL]``: write a server card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp._catalog import find_servers
from django_mcp.exceptions import NotRegistered
from django_mcp.management.base import McpCommand
from django_mcp.server_card import CardError, encode_card, server_card

__all__ = ["Command"]


class Command(McpCommand):
    """Write the Server Card (SEP-2127, a draft) of a registered MCP server."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Write the Server Card (SEP-2127, draft) of a registered MCP server, from its compiled "
        "catalog, to stdout or --output. SERVER is a web path or a local name (web:PATH or "
        "local:NAME when both exist). --base-url (the site's origin, e.g. https://example.com) "
        "adds the web server's endpoint as a streamable-http remote; --url gives that URL "
        "whole. --name (namespace/name) and --description replace the server's own."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the server, where it is served and what to call it."""
        parser.add_argument("server", metavar="SERVER", help=gettext("Web path or local name."))
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--base-url", help=gettext("Origin the django_mcp.urls routes are served from."))
        where.add_argument("--url", help=gettext("Absolute URL of the Streamable HTTP endpoint."))
        parser.add_argument("--name", help=gettext("The card's name, namespace/name (default: Server.name)."))
        parser.add_argument(
            "--description", help=gettext("1 to 100 characters (default: Server.description).")
        )
        parser.add_argument("--output", "-o", type=Path, help=gettext("File to write (default: stdout)."))

    def handle(self, *args: Any, **options: Any) -> None:
        """Build the card and write it."""
        try:
            [entry] = find_servers(options["server"])
        except NotRegistered as exc:
            raise CommandError(str(exc)) from None
        url = options["url"]
        if options["base_url"] is not None:
            if entry.kind != "web":
                raise CommandError(
                    gettext(
                        "{label} is served over STDIO only: a card lists HTTP endpoints, so drop --base-url."
                    ).format(label=entry.label)
                )
            url = options["base_url"].rstrip("/") + _path(entry.key)
        if url is not None and not url.startswith(("https://", "http://")):
            raise CommandError(
                gettext("The endpoint URL must be absolute (https://...), got {url!r}.").format(url=url)
            )
        try:
            card = server_card(
                entry.server, url=url, name=options["name"], description=options["description"]
            )
        except CardError as exc:
            raise CommandError(str(exc)) from None
        body = encode_card(card)
        if options["output"] is None:
            self.stdout.write(body.decode(), ending="")
        else:
            options["output"].write_bytes(body)
        if url is None:
            self.stderr.write(gettext("No --base-url or --url: the card lists no remote endpoint."))


def _path(route: str) -> str:
    try:
        return reverse(f"django_mcp:{route or 'root'}")
    except NoReverseMatch:
        raise CommandError(
            gettext(
                "The server's path cannot be found (django_mcp.urls is not included in the URLconf): "
                "pass the endpoint's whole --url."
            )
        ) from None
