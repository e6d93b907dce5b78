"""URLs of the demo project: the admin, the demo servers, the conformance fixture."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from django_mcp.admin import mcp_catalog_view
from testproject.conformance.mcp import ConformanceServer

urlpatterns = [
    path("", include("django_mcp.wellknown")),
    path("admin/mcp/", mcp_catalog_view(), name="mcp-catalog"),
    path("admin/", admin.site.urls),
    path("mcp/", include("django_mcp.urls")),
    # The official conformance suite expects one fixed endpoint.
    path("conformance/mcp", ConformanceServer.as_view()),
]
