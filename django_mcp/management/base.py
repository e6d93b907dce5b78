"""The base of django_mcp's management commands: help translated when it is printed.

A command's ``help`` is a lazy translation (``gettext_lazy``), evaluated in
the language active when ``--help`` is printed; Django's help formatter
needs a ``str``, which ``create_parser()`` makes of it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

__all__ = ["McpCommand"]


class McpCommand(BaseCommand):
    """A management command whose ``help`` may be a lazy translation."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        """Return the command's parser, with ``help`` translated now."""
        self.help = str(self.help)
        return super().create_parser(prog_name, subcommand, **kwargs)
