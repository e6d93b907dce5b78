"""MCP Apps (``io.modelcontextprotocol/ui``): pages a host shows beside tool results.

``AppResource`` declares an App's page (a Django template), ``Csp`` the
origins it may reach; a tool links its App with ``app = MyApp``
(``linking``). See ``docs/apps.md``.
"""

from __future__ import annotations

from django_mcp.ui.resource import AppResource, Csp

__all__ = ["AppResource", "Csp"]
