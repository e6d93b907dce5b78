"""App configuration: register checks, serve the tasks extension, autodiscover ``mcp`` modules."""

from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

__all__ = ["DjangoMcpConfig"]


class DjangoMcpConfig(AppConfig):
    """django_mcp's AppConfig."""

    name = "django_mcp"
    verbose_name = _("MCP")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Import the system checks, serve the tasks extension, import every ``mcp`` module."""
        from django_mcp import checks  # noqa: F401  (registers the checks)
        from django_mcp.registry import autodiscover
        from django_mcp.tasks.extension import install as serve_tasks

        serve_tasks()
        autodiscover()
