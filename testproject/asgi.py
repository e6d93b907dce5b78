"""ASGI entry point: ``uvicorn testproject.asgi:application``.

``McpASGIApp`` serves the MCP endpoints itself (the fast path) and hands
everything else to Django; ``DJANGO_MCP_PLAIN_VIEW=1`` makes it hand MCP
requests to Django too (the plain view, after the early size check), which
the test suite uses to run the conformance suite both ways. The admin's
static files are served by the application itself (with DEBUG off too), so
the demo looks right without a separate static server; a real deployment
runs ``collectstatic`` and serves them from its web server.
"""

from __future__ import annotations

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

from django_mcp.asgi import McpASGIApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")

application = McpASGIApp(
    ASGIStaticFilesHandler(get_asgi_application()),
    direct=os.environ.get("DJANGO_MCP_PLAIN_VIEW") != "1",
)
