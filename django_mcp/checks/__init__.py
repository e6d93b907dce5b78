"""System checks for django_mcp settings and registered servers, one module per topic.

Importing this package registers the checks (``DjangoMcpConfig.ready()``
does). Every message has a stable ID, is listed in
``docs/settings-and-checks.md`` and carries a hint; IDs are never
renumbered or reused. Each module's docstring lists the IDs it reports.
"""

from __future__ import annotations

from django_mcp.checks._contrib import check_admin_site_tools
from django_mcp.checks._deploy import check_deploy
from django_mcp.checks._servers import check_servers
from django_mcp.checks._settings import check_settings
from django_mcp.checks._tasks import MIN_LEASE_TIMEOUT
from django_mcp.checks._ui import check_app_origins

__all__ = [
    "MIN_LEASE_TIMEOUT",
    "check_admin_site_tools",
    "check_app_origins",
    "check_deploy",
    "check_servers",
    "check_settings",
]
