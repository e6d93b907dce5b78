"""URLs of the demo project: the admin, the demo servers, the conformance fixture.

The admin's MCP section needs no URL pattern: it comes with the app.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from testproject.conformance.mcp import ConformanceServer

# MCP clients get a JSON-RPC error, not Django's HTML page, when the plain
# view is behind CommonMiddleware and the Host is not allowed.
handler400 = "django_mcp.views.bad_request"

urlpatterns = [
    path("", include("django_mcp.wellknown")),
    path("admin/", admin.site.urls),
    path("mcp/", include("django_mcp.urls")),
    # The official conformance suite expects one fixed endpoint.
    path("conformance/mcp", ConformanceServer.as_view()),
]
