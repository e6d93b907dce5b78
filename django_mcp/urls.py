"""URLconf mounting every ``django_mcp.web()`` server.

``path("mcp/", include("django_mcp.urls"))`` serves a server registered as
``web("weather", WeatherServer)`` at ``/mcp/weather``. Both ``/mcp/weather``
and ``/mcp/weather/`` are routed, because an ``APPEND_SLASH`` redirect
cannot carry a POST body. ``/mcp/weather/server-card`` serves the server's
card (``django_mcp.views.server_card_view``, SEP-2127, a draft).
"""

from __future__ import annotations

from typing import Any

from django.urls import path

from django_mcp.registry import registry
from django_mcp.views import server_card_view

__all__ = ["urlpatterns"]

app_name = "django_mcp"


def _patterns() -> list[Any]:
    patterns = []
    for route, server in registry.web_servers().items():
        view = server.as_view()
        name = route or "root"
        patterns.append(path(route, view, name=name))
        if route:
            patterns.append(path(route + "/", view))
        card = f"{route}/server-card" if route else "server-card"
        kwargs = {"server": server, "endpoint": f"django_mcp:{name}"}
        patterns.append(path(card, server_card_view, kwargs, name=f"{name}-server-card"))
    return patterns


urlpatterns = _patterns()
"""One route per server registered with ``web()`` when this module is first imported."""
