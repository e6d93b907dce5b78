"""django-mcp-server (``mcp_server``): its DRF view at ``/mcp``, sync.

``application`` (Django ASGI, uvicorn) and ``wsgi_application`` (gunicorn
sync workers). It is written against the v1 SDK (``mcp.server.FastMCP``),
so its environment pins ``mcp<2``: it speaks the 2025 revisions only and is
measured there, after an ``initialize``. Stateless (no Django sessions), and
without its extra ``get_server_instructions`` tool, so the tool count is the
same as elsewhere.
"""

from __future__ import annotations

import _django

_django.configure(
    __name__,
    apps=("rest_framework", "mcp_server", "mcpserver_tools"),
    SESSION_ENGINE="django.contrib.sessions.backends.signed_cookies",
    DJANGO_MCP_GLOBAL_SERVER_CONFIG={"name": "bench", "stateless": True},
    DJANGO_MCP_GET_SERVER_INSTRUCTIONS_TOOL=False,
)

from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import include, path  # noqa: E402

urlpatterns = [path("", include("mcp_server.urls"))]
application = get_asgi_application()
wsgi_application = get_wsgi_application()
