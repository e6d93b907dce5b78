"""``manage.py mcp_stdio NAME [--user USERNAME]``: serve a local MCP server over STDIO.

Without ``--user`` the requests carry no user. With it, every request is
made as that user, looked up once by the user model's natural key
(``USERNAME_FIELD``) before anything is served: an unknown or inactive user,
or a project without ``django.contrib.auth``, stops the command with a
``CommandError`` before a single protocol message is written. No password is
asked: whoever can run ``manage.py`` can already read the database.
"""

from __future__ import annotations

import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from django_mcp._serving import serving
from django_mcp.conf import get_django_settings
from django_mcp.exceptions import NotRegistered
from django_mcp.management.base import McpCommand
from django_mcp.registry import registry
from django_mcp.transports.stdio import protect_stdout, run_stdio

__all__ = ["Command"]


class Command(McpCommand):
    """Serve the server registered with ``django_mcp.local(NAME, ...)``."""

    help = _(  # type: ignore[assignment]  # lazy: translated when --help prints it
        "Serve the MCP server registered with django_mcp.local(NAME, ...) over STDIO: "
        "newline-delimited JSON-RPC on stdin and stdout, logs on stderr. "
        "Runs until stdin is closed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Take the local server's name and the optional user to act as."""
        parser.add_argument("server", metavar="NAME", help=gettext("Name given to django_mcp.local()."))
        parser.add_argument(
            "--user",
            metavar="USERNAME",
            help=gettext(
                "Make every request as this active user (looked up by the user model's "
                "USERNAME_FIELD, without a password), so permissions and authorize() hooks "
                "see them. Read once at start: restart to pick up changes to the user."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Look the server (and user) up, then serve stdin/stdout until stdin ends."""
        name = options["server"]
        try:
            server = registry.get("local", name)
        except NotRegistered:
            known = ", ".join(repr(key) for key in registry.local_servers()) or gettext("none")
            raise CommandError(
                gettext("No local MCP server named {name!r}. Registered local servers: {known}.").format(
                    name=name, known=known
                )
            ) from None
        try:
            serving.dispatcher(server)  # compiled before anything is written to stdout
        except ImproperlyConfigured as exc:
            # Only with --skip-checks: the system checks report it first (E015).
            raise CommandError(
                gettext("The local MCP server {name!r} does not compile (django_mcp.E015): {error}").format(
                    name=name, error=exc
                )
            ) from None
        user = _find_user(options["user"]) if options["user"] is not None else None
        with protect_stdout() as frames:
            self.stdout = self.stderr  # stdout now carries protocol messages only
            try:
                run_stdio(server, stdin=sys.stdin.buffer, stdout=frames, user=user)
            except KeyboardInterrupt:
                pass


def _find_user(username: str) -> Any:
    """Return the active user named ``username``, or raise ``CommandError``."""
    if not get_django_settings().auth_installed:
        raise CommandError(gettext("--user needs django.contrib.auth in INSTALLED_APPS."))
    model = get_user_model()
    try:
        user = model._default_manager.get_by_natural_key(username)
    except model.DoesNotExist:
        raise CommandError(
            gettext("--user: no user with {field} {username!r}.").format(
                field=model.USERNAME_FIELD, username=username
            )
        ) from None
    if not user.is_active:
        raise CommandError(gettext("--user: the user {username!r} is not active.").format(username=username))
    return user
