"""A tool's link to its App: ``Tool.app`` and ``Tool.app_visibility``.

A tool declaring ``app = OrdersApp`` publishes ``_meta.ui.resourceUri``
(the App's ``ui://`` URI on the same server) and ``_meta.ui.visibility``
(SEP-1865 "Resource Discovery"): ``("model", "app")`` by default, or
``("app",)`` for a tool only the App calls. Hosts hide a tool without
``"model"`` from the model and refuse App calls of a tool without
``"app"``; the server lists and serves every tool all the same (the
visibility is the host's to enforce). The compiler serves a linked App even
when the server does not list it in ``resources``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol.ui import VISIBILITIES
from django_mcp.ui.resource import AppResource, is_app

__all__ = ["linked_app", "tool_ui_meta"]


def linked_app(component: type[Any]) -> tuple[type[AppResource], tuple[str, ...]] | None:
    """Return the App a tool links and its visibility, None for no App.

    Raises:
        ImproperlyConfigured: ``app`` is not an ``AppResource`` subclass,
            or ``app_visibility`` is not a non-empty tuple of ``"model"``
            and ``"app"`` (or is set without ``app``).
    """
    label = f"{component.__module__}.{component.__qualname__}"
    app = getattr(component, "app", None)
    visibility = getattr(component, "app_visibility", VISIBILITIES)
    if app is None:
        if tuple(visibility) != VISIBILITIES:
            raise ImproperlyConfigured(f"{label}.app_visibility is set but the tool links no App: set app")
        return None
    if not is_app(app):
        raise ImproperlyConfigured(
            f"{label}.app must be an AppResource subclass (the App showing the tool's results), got {app!r}"
        )
    if (
        isinstance(visibility, str)
        or not isinstance(visibility, tuple | list)
        or not visibility
        or not all(v in VISIBILITIES for v in visibility)
        or len(set(visibility)) != len(visibility)
    ):
        raise ImproperlyConfigured(
            f"{label}.app_visibility must be ('model', 'app'), ('app',) or ('model',), got {visibility!r}"
        )
    return app, tuple(visibility)


def tool_ui_meta(uri: str, visibility: tuple[str, ...]) -> dict[str, Any]:
    """Return a linked tool's ``_meta.ui`` (SEP-1865 ``McpUiToolMeta``)."""
    return {"resourceUri": uri, "visibility": list(visibility)}
