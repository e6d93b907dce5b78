"""A URLconf mounting an MCP endpoint without django_mcp's handler400 (for the W013 check tests)."""

from __future__ import annotations

from django.urls import path

from testproject.conformance.mcp import ConformanceServer

urlpatterns = [path("mcp", ConformanceServer.as_view())]
