"""App configuration: autodiscover ``mcp`` modules, register checks, install the view."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["DjangoMcpConfig"]


class DjangoMcpConfig(AppConfig):
    """django_mcp's AppConfig."""

    name = "django_mcp"
    verbose_name = "MCP"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Import the system checks, the HTTP transport and every ``mcp`` module."""
        from django_mcp import checks  # noqa: F401  (registers the checks)
        from django_mcp.registry import autodiscover
        from django_mcp.transports import http  # noqa: F401  (installs Server.as_view())

        autodiscover()
