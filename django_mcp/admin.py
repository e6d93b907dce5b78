"""An admin page listing every registered MCP server and its catalog.

There are no models: the page is a plain view wrapped with
``AdminSite.admin_view()`` (active staff only; everyone else is redirected
to the admin login) and rendered by ``django_mcp/admin/catalog.html``,
which extends ``admin/base_site.html``. It lists each server registered
with ``django_mcp.web()`` or ``django_mcp.local()``, and for every tool,
resource, resource template and prompt its name, title, description,
annotations, permissions and schemas, encoded exactly as clients see them
in the list results.

Mount it before the admin's own URLs, so the admin's catch-all does not
answer first::

    from django_mcp.admin import mcp_catalog_view

    urlpatterns = [
        path("admin/mcp/", mcp_catalog_view(), name="mcp-catalog"),
        path("admin/", admin.site.urls),
    ]

Pass ``site=`` to serve it from a custom ``AdminSite``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from django.contrib import admin
from django.contrib.admin import AdminSite
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.views.generic import TemplateView

from django_mcp.registry import Registry, registry
from django_mcp.server.server import Server

__all__ = ["CatalogEntry", "McpCatalogView", "ServerCatalog", "build_catalog", "mcp_catalog_view"]


@dataclasses.dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One tool, resource, template or prompt as the admin page shows it."""

    name: str
    title: str | None
    description: str | None
    #: The URI (resources) or URI template (templates); None otherwise.
    uri: str | None
    mime_type: str | None
    permissions: tuple[str, ...]
    #: Pretty-printed JSON, or None when the definition has no such field.
    annotations: str | None
    input_schema: str | None
    output_schema: str | None
    arguments: str | None
    #: The whole definition as listed on the wire, pretty-printed.
    definition: str


@dataclasses.dataclass(frozen=True, slots=True)
class ServerCatalog:
    """A registered ``Server`` class with its mounts and compiled catalog."""

    label: str
    name: str
    version: str
    title: str | None
    description: str | None
    login_required: bool
    #: ``(kind, where)`` pairs: ``("HTTP", "/mcp/weather")``, ``("STDIO", "weather")``.
    mounts: tuple[tuple[str, str], ...]
    tools: tuple[CatalogEntry, ...]
    resources: tuple[CatalogEntry, ...]
    templates: tuple[CatalogEntry, ...]
    prompts: tuple[CatalogEntry, ...]

    @property
    def anchor(self) -> str:
        """Return an HTML id for this server's section."""
        return "server-" + self.label.replace(".", "-").lower()


def build_catalog(source: Registry | None = None) -> list[ServerCatalog]:
    """Return every server in ``source`` (the default registry), in registration order.

    A server registered several times (say over HTTP and over STDIO) is
    listed once, with all its mounts.
    """
    source = registry if source is None else source
    mounts: dict[type[Server], list[tuple[str, str]]] = {}
    for route, server in source.web_servers().items():
        mounts.setdefault(server, []).append(("HTTP", _http_path(route)))
    for name, server in source.local_servers().items():
        mounts.setdefault(server, []).append(("STDIO", name))
    return [_server_catalog(server, tuple(where)) for server, where in mounts.items()]


def _http_path(route: str) -> str:
    # The registry knows the route below the include(); reversing finds the
    # prefix the project mounted django_mcp.urls at.
    try:
        return reverse(f"django_mcp:{route or 'root'}")
    except NoReverseMatch:
        return f"{route or '(root)'} (below the include of django_mcp.urls)"


def _server_catalog(server: type[Server], mounts: tuple[tuple[str, str], ...]) -> ServerCatalog:
    compiled = server.compiled()
    info = _wire(compiled.info)
    return ServerCatalog(
        label=f"{server.__module__}.{server.__qualname__}",
        name=info["name"],
        version=info["version"],
        title=info.get("title"),
        description=info.get("description"),
        login_required=bool(getattr(server, "login_required", False)),
        mounts=mounts,
        tools=tuple(_entry(e.definition, e.permissions) for e in compiled.tools.values()),
        resources=tuple(_entry(e.definition, e.permissions) for e in compiled.resources.values()),
        templates=tuple(_entry(e.definition, e.permissions) for e in compiled.templates.values()),
        prompts=tuple(_entry(e.definition, e.permissions) for e in compiled.prompts.values()),
    )


def _entry(definition: Any, permissions: tuple[str, ...]) -> CatalogEntry:
    wire = _wire(definition)
    return CatalogEntry(
        name=wire["name"],
        title=wire.get("title"),
        description=wire.get("description"),
        uri=wire.get("uri", wire.get("uriTemplate")),
        mime_type=wire.get("mimeType"),
        permissions=tuple(permissions),
        annotations=_pretty(wire.get("annotations")),
        input_schema=_pretty(wire.get("inputSchema")),
        output_schema=_pretty(wire.get("outputSchema")),
        arguments=_pretty(wire.get("arguments")),
        definition=_pretty(wire) or "{}",
    )


def _wire(struct: Any) -> dict[str, Any]:
    # to_builtins applies the wire renames (camelCase, _meta) and drops
    # UNSET fields, so the page shows exactly what a client is sent.
    value = msgspec.to_builtins(struct)
    assert isinstance(value, dict)
    return value


def _pretty(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False)


class McpCatalogView(TemplateView):
    """Render the catalog of every registered server for staff users.

    Serve it through ``mcp_catalog_view()``, which adds the admin's
    login and staff checks.
    """

    template_name = "django_mcp/admin/catalog.html"
    #: The admin site whose chrome (header, breadcrumbs, sidebar) is used;
    #: None means ``django.contrib.admin.site``.
    site: AdminSite | None = None

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Render the page inside the admin site's namespace."""
        # Like AdminSite's own views: {% url 'admin:...' %} resolves to this site.
        request.current_app = self._site().name
        return super().get(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        """Return the admin's common context plus ``servers``."""
        context = super().get_context_data(**kwargs)
        servers = build_catalog()
        context.update(
            self._site().each_context(self.request),
            title="MCP catalog",
            subtitle=None,
            servers=servers,
            counts=_counts(servers),
        )
        return context

    def _site(self) -> AdminSite:
        return self.site if self.site is not None else admin.site


def _counts(servers: list[ServerCatalog]) -> Mapping[str, int]:
    return {
        "servers": len(servers),
        "tools": sum(len(s.tools) for s in servers),
        "resources": sum(len(s.resources) for s in servers),
        "templates": sum(len(s.templates) for s in servers),
        "prompts": sum(len(s.prompts) for s in servers),
    }


def mcp_catalog_view(site: AdminSite | None = None) -> Callable[..., HttpResponse]:
    """Return the catalog view wrapped with ``site.admin_view()``.

    ``site`` defaults to ``django.contrib.admin.site``. Call it in the
    URLconf, where the apps registry is ready.
    """
    site = admin.site if site is None else site
    view = McpCatalogView.as_view(site=site)
    wrapped: Callable[..., HttpResponse] = site.admin_view(view)
    return wrapped
