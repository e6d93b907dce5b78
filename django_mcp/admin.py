"""The MCP section of Django's admin: the catalog and the playground.

With ``django_mcp`` and ``django.contrib.admin`` installed, the admin index
shows an "MCP" section; there is no URL pattern to add and no template to
override. The section comes from ``McpCatalog``, an unmanaged model (no
table), registered on ``admin.site`` with ``McpCatalogAdmin``, whose views
serve every page, each wrapped with ``AdminSite.admin_view()`` (active
staff only, CSRF-protected) and extending the admin's templates:

* the catalog (the model's changelist URL): every registered server with
  its mounts and component counts;
* a server page: its tools, resources, resource templates, prompts and
  skills,
  with search, a kind filter and, for staff who may change users, "view
  as" a user (which components that user can see, by the dispatcher's own
  rule);
* a component page (the model's change URL): description, annotations,
  icons, permissions, schemas, arguments, cache hints and the exact wire
  definition, and for staff with ``django_mcp.use_playground`` the
  playground, which calls the component through the real dispatcher as
  the signed-in user (``django_mcp._admin.playground``);
* the component's history (the model's history URL): the playground calls
  recorded in the admin log.

The section also lists the tasks of the tasks extension (``McpTask``,
``McpTaskAdmin``: status, owner, age, lease, and a "stuck" filter) and the
audit trail (``McpAuditEntry``, ``McpAuditEntryAdmin``: read-only, filtered
by server, method, outcome and date, searched by component and user) and
the idempotency keys of tool calls (``McpIdempotencyKey``,
``McpIdempotencyKeyAdmin``: read-only, whether a result is stored).

Every page of the section answers ``X-Frame-Options: DENY``, whatever the
project's middleware (``django_mcp._admin.framing``): the playground's
buttons act as the signed-in user, so no other site may frame them.

A custom admin site registers the same pairs:
``site.register(McpCatalog, McpCatalogAdmin)``,
``site.register(McpTask, McpTaskAdmin)``,
``site.register(McpAuditEntry, McpAuditEntryAdmin)`` and
``site.register(McpIdempotencyKey, McpIdempotencyKeyAdmin)``.

``mcp_catalog_view()`` still returns the older one-page catalog (every
server and component on one page) for a URL pattern of your own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import update_wrapper
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from asgiref.sync import async_to_sync
from django.apps import apps
from django.contrib import admin
from django.contrib.admin import AdminSite
from django.contrib.admin.utils import quote, unquote
from django.contrib.auth import get_permission_codename, get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.views.decorators.clickjacking import xframe_options_deny
from django.views.generic import TemplateView

from django_mcp._admin import app_host
from django_mcp._admin.audit import McpAuditEntryAdmin
from django_mcp._admin.catalog import (
    KINDS,
    CatalogEntry,
    ServerCatalog,
    build_catalog,
    find_entry,
    find_server,
    visible_keys,
)
from django_mcp._admin.framing import DenyFraming
from django_mcp._admin.idempotency import McpIdempotencyKeyAdmin
from django_mcp._admin.markup import ADMIN_MARKUP
from django_mcp._admin.playground import Playground, complete
from django_mcp._admin.tasks import McpTaskAdmin
from django_mcp.models import McpAuditEntry, McpCatalog, McpIdempotencyKey, McpTask
from django_mcp.protocol.jsonrpc import PARSE_ERROR

__all__ = [
    "CatalogEntry",
    "McpAuditEntryAdmin",
    "McpCatalogAdmin",
    "McpCatalogView",
    "McpIdempotencyKeyAdmin",
    "McpTaskAdmin",
    "ServerCatalog",
    "build_catalog",
    "mcp_catalog_view",
]

if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[McpCatalog]
else:
    _ModelAdmin = admin.ModelAdmin


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
            title=gettext("MCP catalog"),
            subtitle=None,
            breadcrumbs=[
                (gettext("Home"), reverse("admin:index", current_app=self._site().name)),
                (gettext("MCP catalog"), None),
            ],
            mcp_markup=ADMIN_MARKUP,
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
        "skills": sum(len(s.skills) for s in servers),
    }


def mcp_catalog_view(site: AdminSite | None = None) -> Callable[..., HttpResponse]:
    """Return the catalog view wrapped with ``site.admin_view()``.

    ``site`` defaults to ``django.contrib.admin.site``. Call it in the
    URLconf, where the apps registry is ready.
    """
    site = admin.site if site is None else site
    view = McpCatalogView.as_view(site=site)
    # Framing denied as on the section's own pages (_admin/framing.py).
    wrapped: Callable[..., HttpResponse] = xframe_options_deny(site.admin_view(view))
    return wrapped


# ------------------------------------------------------------ the section


def _is_staff(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff)


class McpCatalogAdmin(DenyFraming, _ModelAdmin):
    """Serve the MCP section: catalog, servers, components, playground, history.

    Nothing is stored: the catalog comes from the registry, and the only
    writes are the history entries of playground calls. Every active staff
    user may browse; the playground needs ``django_mcp.use_playground``,
    and "view as" the permission to change users.
    """

    def has_module_permission(self, request: HttpRequest) -> bool:
        """Show the section to every active staff user."""
        return _is_staff(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Let every active staff user browse the catalog."""
        return _is_staff(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Return False: the catalog is declared in code."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Return False: the catalog is declared in code."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Return False: the catalog is declared in code."""
        return False

    def can_use_playground(self, request: HttpRequest) -> bool:
        """Return True when the user holds ``django_mcp.use_playground``."""
        return bool(request.user.has_perm(f"{self.opts.app_label}.use_playground"))

    def can_view_as(self, request: HttpRequest) -> bool:
        """Return True when the user may change users, so may look through their eyes."""
        opts = get_user_model()._meta
        return bool(request.user.has_perm(f"{opts.app_label}.{get_permission_codename('change', opts)}"))

    # ------------------------------------------------------------ urls

    def get_urls(self) -> list[URLPattern]:
        """Return the section's pages, named like the admin's own model URLs."""

        def wrap(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
            def wrapper(*args: Any, **kwargs: Any) -> HttpResponse:
                return self.admin_site.admin_view(view)(*args, **kwargs)

            wrapper.model_admin = self  # type: ignore[attr-defined]
            return update_wrapper(wrapper, view)

        info = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path("", wrap(self.changelist_view), name=f"{info}_changelist"),
            path("server/<str:server_key>/", wrap(self.server_view), name=f"{info}_server"),
            path("complete/", wrap(self.complete_view), name=f"{info}_complete"),
            path("task/<str:task_id>/<path:object_id>/", wrap(self.task_view), name=f"{info}_task"),
            path("app/<path:object_id>/", wrap(self.app_view), name=f"{info}_app"),
            path("app-relay/<path:object_id>/", wrap(self.app_relay_view), name=f"{info}_app_relay"),
            path("<path:object_id>/history/", wrap(self.history_view), name=f"{info}_history"),
            path("<path:object_id>/change/", wrap(self.change_view), name=f"{info}_change"),
        ]

    def _url(self, name: str, *args: str) -> str:
        return reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_{name}",
            args=args,
            current_app=self.admin_site.name,
        )

    def _context(
        self, request: HttpRequest, trail: Sequence[tuple[str, str | None]], **extra: Any
    ) -> dict[str, Any]:
        """Return a page's context; ``trail`` is its breadcrumbs after the section's."""
        # Like the admin's own views: {% url 'admin:...' %} resolves to this site.
        request.current_app = self.admin_site.name
        site = self.admin_site.name
        breadcrumbs = [
            (gettext("Home"), reverse("admin:index", current_app=site)),
            (
                str(self.opts.app_config.verbose_name),
                reverse("admin:app_list", kwargs={"app_label": self.opts.app_label}, current_app=site),
            ),
            *trail,
        ]
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "app_label": self.opts.app_label,
            "subtitle": None,
            "catalog_url": self._url("changelist"),
            "playground": self.can_use_playground(request),
            "breadcrumbs": breadcrumbs,
            "mcp_markup": ADMIN_MARKUP,
            **extra,
        }

    def _catalog_crumb(self) -> tuple[str, str]:
        return str(capfirst(self.opts.verbose_name_plural)), self._url("changelist")

    def _server_url(self, server: ServerCatalog) -> str:
        return self._url("server", quote(server.key))

    def _entry_url(self, entry: CatalogEntry) -> str:
        return self._url("change", quote(entry.component_id))

    # ----------------------------------------------------------- views

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """List every registered server with its mounts and component counts."""
        servers = build_catalog()
        rows = [{"server": server, "url": self._server_url(server)} for server in servers]
        trail = [(str(capfirst(self.opts.verbose_name_plural)), None)]
        context = self._context(
            request,
            trail,
            title=gettext("MCP catalog"),
            rows=rows,
            counts=_counts(servers),
            **(extra_context or {}),
        )
        return TemplateResponse(request, "django_mcp/admin/servers.html", context)

    def server_view(self, request: HttpRequest, server_key: str) -> HttpResponse:
        """List one server's components, searched, filtered by kind, seen as a user."""
        server = find_server(unquote(server_key))
        if server is None:
            raise Http404(gettext("No MCP server is registered under this key."))
        query = request.GET.get("q", "").strip()
        kind = request.GET.get("kind", "")
        kind = kind if kind in KINDS else ""
        view_as = self.can_view_as(request)
        as_name = request.GET.get("as", "").strip() if view_as else ""
        as_user, as_error, visible = None, "", None
        if as_name:
            user_model = get_user_model()
            as_user = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: as_name}).first()
            if as_user is None:
                as_error = gettext("No user is named “{name}”.").format(name=as_name)
            else:
                assert server.server is not None
                visible = async_to_sync(visible_keys)(server.server, as_user)
        rows = [
            {
                "entry": entry,
                "url": self._entry_url(entry),
                "visible": None if visible is None else entry.key in visible[entry.kind],
            }
            for entry in server.of_kind(kind)
            if not query or entry.matches(query)
        ]

        def link(**changes: str) -> str:
            params = {"q": query, "kind": kind, "as": as_name, **changes}
            return "?" + urlencode({key: value for key, value in params.items() if value})

        choices = [
            {
                "label": gettext("All"),
                "count": len(server.entries),
                "selected": not kind,
                "url": link(kind=""),
            },
            *(
                {
                    "label": heading,
                    "count": len(server.of_kind(name)),
                    "selected": kind == name,
                    "url": link(kind=name),
                }
                for name, heading in KINDS.items()
            ),
        ]
        context = self._context(
            request,
            [self._catalog_crumb(), (server.title or server.name, None)],
            title=server.title or server.name,
            server=server,
            rows=rows,
            query=query,
            kind=kind,
            kind_choices=choices,
            view_as=view_as,
            as_name=as_name,
            as_user=as_user,
            as_error=as_error,
            visible_count=sum(1 for row in rows if row["visible"]),
            clear_url=link(q="", kind="", **{"as": ""}),
        )
        return TemplateResponse(request, "django_mcp/admin/server.html", context)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """Show one component; with the permission, its playground."""
        found = find_entry(unquote(object_id))
        if found is None:
            raise Http404(gettext("No MCP component is registered under this id."))
        server, entry = found
        allowed = self.can_use_playground(request)
        playground = Playground(server, entry, request.user)
        if request.method == "POST":
            if not allowed:
                raise PermissionDenied
            state = playground.submit(request.POST)
        else:
            state = playground.context() if allowed else {}
        assert server.server is not None
        visible = async_to_sync(visible_keys)(server.server, request.user)
        if state.get("task"):
            state["task_url"] = self._url("task", state["task"]["id"], quote(entry.component_id))
        server_url = self._server_url(server)
        outcome = state.get("outcome")
        uri = app_host.app_uri(entry)
        if uri and outcome is not None and _shows_app(outcome):
            state["app"] = {
                "uri": uri,
                "url": self._url("app", quote(entry.component_id)),
                "relay_url": self._url("app_relay", quote(entry.component_id)),
                "bridge": {
                    "tool": entry.wire,
                    "arguments": outcome.request["params"].get("arguments", {}),
                    "result": outcome.result,
                    "protocolVersion": app_host.APP_PROTOCOL_VERSION,
                },
            }
        context = self._context(
            request,
            [self._catalog_crumb(), (server.title or server.name, server_url), (entry.name, None)],
            title=f"{entry.kind_label}: {entry.name}",
            server=server,
            entry=entry,
            method=playground.method,
            server_url=server_url,
            history_url=self._url("history", quote(entry.component_id)),
            complete_url=self._url("complete"),
            visible_to_you=entry.key in visible[entry.kind],
            **state,
            **(extra_context or {}),
        )
        return TemplateResponse(request, "django_mcp/admin/component.html", context)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """List the playground calls recorded for one component, newest first."""
        from django.contrib.admin.models import LogEntry
        from django.contrib.contenttypes.models import ContentType

        component_id = unquote(object_id)
        found = find_entry(component_id)
        if found is None:
            raise Http404(gettext("No MCP component is registered under this id."))
        server, entry = found
        content_type = ContentType.objects.get_for_model(self.model, for_concrete_model=False)
        actions = (
            LogEntry.objects.filter(content_type=content_type, object_id=component_id)
            .select_related("user")
            .order_by("-action_time")[:_HISTORY_LENGTH]
        )
        server_url, entry_url = self._server_url(server), self._entry_url(entry)
        trail = [
            self._catalog_crumb(),
            (server.title or server.name, server_url),
            (entry.name, entry_url),
            (gettext("History"), None),
        ]
        context = self._context(
            request,
            trail,
            title=gettext("History: {kind} {name}").format(kind=entry.kind_label.lower(), name=entry.name),
            server=server,
            entry=entry,
            server_url=server_url,
            entry_url=entry_url,
            action_list=list(actions),
            history_length=_HISTORY_LENGTH,
            **(extra_context or {}),
        )
        return TemplateResponse(request, "django_mcp/admin/history.html", context)

    def task_view(self, request: HttpRequest, task_id: str, object_id: str) -> HttpResponse:
        """Render the task panel of a task the playground created (polled by the page)."""
        if request.method != "GET":
            return HttpResponseNotAllowed(["GET"])
        if not self.can_use_playground(request):
            raise PermissionDenied
        found = find_entry(unquote(object_id))
        if found is None or found[1].kind != "tool":
            raise Http404(gettext("No MCP tool is registered under this id."))
        server, entry = found
        task = Playground(server, entry, request.user).task(task_id)
        context = self._context(
            request,
            (),  # a fragment of the component page: no breadcrumbs of its own
            entry=entry,
            task=task,
            task_url=self._url("task", task_id, quote(entry.component_id)),
        )
        return TemplateResponse(request, "django_mcp/admin/_task.html", context)

    def _app_tool(self, request: HttpRequest, object_id: str) -> tuple[ServerCatalog, CatalogEntry, str]:
        if not self.can_use_playground(request):
            raise PermissionDenied
        found = find_entry(unquote(object_id))
        uri = app_host.app_uri(found[1]) if found is not None else None
        if found is None or uri is None:
            raise Http404(gettext("No MCP tool with an App is registered under this id."))
        return found[0], found[1], uri

    def app_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Serve a tool's App page, read as the user, under the CSP its ``_meta.ui.csp`` builds."""
        if request.method != "GET":
            return HttpResponseNotAllowed(["GET"])
        server, _entry, uri = self._app_tool(request, object_id)
        page = async_to_sync(app_host.read_app)(server, request.user, uri)
        if page.problem:
            response = HttpResponse(page.problem, status=404, content_type="text/plain; charset=utf-8")
            response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        else:
            response = HttpResponse(page.html, content_type="text/html; charset=utf-8")
            response["Content-Security-Policy"] = app_host.content_security_policy(page.ui)
        # Framed by the component page only (its iframe is sandboxed: the
        # page runs in an opaque origin, without the admin's cookies).
        response["X-Frame-Options"] = "SAMEORIGIN"
        response["Cache-Control"] = "no-store"
        return response

    def app_relay_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Relay an App's ``tools/call`` or ``resources/read`` as the user (JSON in, JSON out)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        server, entry, _uri = self._app_tool(request, object_id)
        try:
            message = json.loads(request.body)
        except ValueError:
            return JsonResponse({"error": {"code": PARSE_ERROR, "message": "The request is not JSON."}})
        answer, outcome = async_to_sync(app_host.relay)(server, entry, request.user, message)
        if outcome is not None:
            app_host.record_relay(request.user, entry, outcome)
        return JsonResponse(answer)

    def complete_view(self, request: HttpRequest) -> HttpResponse:
        """Answer the playground's argument suggestions (``completion/complete``)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.can_use_playground(request):
            raise PermissionDenied
        found = find_entry(request.POST.get("component", ""))
        if found is None or found[1].kind not in ("prompt", "template"):
            raise Http404(gettext("No MCP prompt or resource template is registered under this id."))
        try:
            context = json.loads(request.POST.get("context") or "{}")
        except ValueError:
            context = {}
        server, entry = found
        answer = async_to_sync(complete)(
            server,
            entry,
            request.user,
            request.POST.get("argument", ""),
            request.POST.get("value", ""),
            context if isinstance(context, dict) else {},
        )
        return JsonResponse(answer)


def _shows_app(outcome: Any) -> bool:
    """Return True when a tool call's outcome is a result an App can show."""
    return outcome.error is None and not outcome.input_required and outcome.task_id is None


#: At most this many history entries are shown for one component.
_HISTORY_LENGTH = 100

if apps.is_installed("django.contrib.admin"):
    admin.site.register(McpCatalog, McpCatalogAdmin)
    admin.site.register(McpTask, McpTaskAdmin)
    admin.site.register(McpAuditEntry, McpAuditEntryAdmin)
    admin.site.register(McpIdempotencyKey, McpIdempotencyKeyAdmin)
