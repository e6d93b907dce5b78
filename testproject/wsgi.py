"""WSGI entry point (long-lived streams need a threaded server: gunicorn --threads).

``McpWSGIApp`` serves the MCP endpoints without an event loop and hands
everything else to Django; ``DJANGO_MCP_PLAIN_VIEW=1`` serves them with the
plain view under Django's WSGI handler instead.
"""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from django_mcp.wsgi import McpWSGIApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")

application = get_wsgi_application()
if os.environ.get("DJANGO_MCP_PLAIN_VIEW") != "1":
    application = McpWSGIApp(application)  # type: ignore[assignment]
