"""MCP Apps (``io.modelcontextprotocol/ui``): pages a host shows beside tool results.

``resource`` declares an App's page (``AppResource``, a Django template) and
the origins it may reach (``Csp``); ``linking`` is a tool's link to its App
(``app = MyApp``). Both are exported from ``django_mcp``. See
``docs/apps.md``.
"""

__all__: list[str] = []
