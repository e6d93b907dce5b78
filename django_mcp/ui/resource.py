"""``AppResource`` and ``Csp``: an MCP App's page, declared like a resource.

An App (the ``io.modelcontextprotocol/ui`` extension, SEP-1865) is a
``ui://`` resource whose content is one whole HTML document, MIME type
``text/html;profile=mcp-app``, that a host renders in a sandboxed iframe
beside the results of the tools linking it (``Tool.app``). Here the
document is a Django template rendered with ``get_context_data()``, never
with the request or its user: hosts may prefetch the page and cache it for
everyone (SEP-1865 "Resource Discovery"), so per-user data belongs in the
tool result. ``Csp`` lists the external origins the page needs; a host
allows nothing undeclared.

The compiler (``django_mcp.server.compiler``) checks the declaration; the
system check ``django_mcp.E039`` loads the template at startup.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any, ClassVar, TypeGuard

from django.core.exceptions import ImproperlyConfigured
from django.template.loader import render_to_string

from django_mcp.protocol.ui import META_KEY, MIME_TYPE, PERMISSIONS
from django_mcp.response import McpResponse
from django_mcp.server.primitives import CacheHint, Resource

__all__ = ["APP_CACHE", "AppResource", "Csp", "app_uri", "is_app", "resource_ui_meta"]

APP_CACHE = CacheHint(ttl_ms=600_000, scope="public")
"""An App page's default cache hint: fresh for 10 minutes, shareable."""

# An origin as CSP source expressions write it: a scheme, "://", a host
# (optionally "*." first) and an optional port. Quotes, spaces, commas
# and semicolons would let a value add CSP directives of its own.
_UI_URI_RE = re.compile(r"^ui://[^\s/]+(?:/\S*)?$")
_ORIGIN_RE = re.compile(r"^[a-z][a-z0-9+.-]*://(?:\*\.)?[A-Za-z0-9.-]+(?::[0-9]{1,5})?$")


@dataclasses.dataclass(frozen=True, slots=True)
class Csp:
    """The external origins an App's page may reach (SEP-1865 ``McpUiResourceCsp``).

    Each field is a tuple of origins such as ``"https://api.example.com"``
    or ``"https://*.example.com"``: ``connect_domains`` for fetch, XHR and
    WebSocket, ``resource_domains`` for scripts, styles, images, fonts and
    media, ``frame_domains`` for nested iframes, ``base_uri_domains`` for
    ``<base href>``. Empty means none: with all four empty the host applies
    the specification's restrictive default policy.
    """

    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()
    frame_domains: tuple[str, ...] = ()
    base_uri_domains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, str) or not isinstance(value, Iterable):
                raise ValueError(f"Csp.{field.name} must be a tuple of origins, got {value!r}")
            origins = tuple(value)
            for origin in origins:
                if not isinstance(origin, str) or not _ORIGIN_RE.match(origin):
                    raise ValueError(
                        f"Csp.{field.name}: {origin!r} is not an origin such as 'https://api.example.com' "
                        "or 'https://*.example.com'"
                    )
            object.__setattr__(self, field.name, origins)

    def to_wire(self) -> dict[str, list[str]]:
        """Return the ``csp`` object of ``_meta.ui``: the non-empty lists, camelCase."""
        return {
            _camel(field.name): list(getattr(self, field.name))
            for field in dataclasses.fields(self)
            if getattr(self, field.name)
        }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


class AppResource(Resource):
    """An MCP App: a Django template served as a ``ui://`` HTML document.

    ``template_name`` is rendered with ``get_context_data()`` into a whole
    HTML document, read with ``resources/read`` as
    ``text/html;profile=mcp-app``. ``uri`` defaults to
    ``ui://<server name>/<name>`` and must start with ``ui://``. ``csp``,
    ``permissions`` (sandbox permissions, among ``"camera"``,
    ``"microphone"``, ``"geolocation"`` and ``"clipboard_write"``, not Django
    permissions: the page is the same for every caller), ``domain`` and
    ``prefers_border`` are published as ``_meta.ui`` on the resource's
    listing and on its content. A tool shows its results in the App with
    ``app = MyApp``. See ``docs/apps.md``.
    """

    _suffix = "App"
    mime_type: ClassVar[str | None] = MIME_TYPE
    cache: ClassVar[CacheHint | None] = APP_CACHE
    #: The Django template rendered into the page.
    template_name: ClassVar[str | None] = None
    #: The external origins the page may reach.
    csp: ClassVar[Csp] = Csp()
    #: Sandbox permissions the page asks the host for (hosts may refuse).
    permissions: ClassVar[Iterable[str]] = ()
    #: A dedicated sandbox origin, in the format the host documents.
    domain: ClassVar[str | None] = None
    #: True: ask the host for a visible border; False: none; None: host decides.
    prefers_border: ClassVar[bool | None] = None

    def get_context_data(self) -> dict[str, Any]:
        """Return the template context; override to add to it.

        The page is the same for every caller: never put the user, the
        request or anything that depends on them here.
        """
        return {"app": self}

    def render(self) -> str:
        """Return the rendered HTML document."""
        assert self.template_name is not None  # the compiler refuses a missing one
        rendered = render_to_string(self.template_name, self.get_context_data())
        # A plain str: the wire encoder takes no str subclass (SafeString).
        return str.__str__(rendered)

    def handle(self) -> McpResponse:
        """Return the rendered page, its content carrying ``_meta.ui``."""
        return McpResponse.text(self.render()).withContentMeta({META_KEY: resource_ui_meta(type(self))})


def is_app(component: object) -> TypeGuard[type[AppResource]]:
    """Return True for an ``AppResource`` subclass."""
    return isinstance(component, type) and issubclass(component, AppResource)


def app_uri(component: type[AppResource], server_name: str, name: str) -> str:
    """Return an App's URI: its ``uri``, else ``ui://<server name>/<name>``.

    Raises:
        ImproperlyConfigured: the URI is not a ``ui://`` URI (SEP-1865
            "Content Requirements": MUST), or the App has a
            ``uri_template`` or no ``template_name``.
    """
    label = f"{component.__module__}.{component.__qualname__}"
    if component.uri_template is not None:
        raise ImproperlyConfigured(f"{label}: an App has one fixed ui:// uri, not a uri_template")
    if component.template_name is None or not isinstance(component.template_name, str):
        raise ImproperlyConfigured(f"{label}.template_name must name the Django template of the page")
    uri = component.uri if component.uri is not None else f"ui://{server_name}/{name}"
    if not isinstance(uri, str) or not _UI_URI_RE.match(uri):
        raise ImproperlyConfigured(
            f"{label}.uri must be a ui:// URI without spaces, such as 'ui://shop/orders', got {uri!r}"
        )
    return uri


def resource_ui_meta(component: type[AppResource]) -> dict[str, Any]:
    """Return an App's ``_meta.ui`` (SEP-1865 ``UIResourceMeta``), or raise.

    Empty settings are left out: no ``csp`` key when no origin is declared
    (the host then applies the specification's restrictive default).

    Raises:
        ImproperlyConfigured: an attribute has the wrong type or value.
    """
    label = f"{component.__module__}.{component.__qualname__}"
    meta: dict[str, Any] = {}
    csp = component.csp
    if not isinstance(csp, Csp):
        raise ImproperlyConfigured(f"{label}.csp must be a django_mcp.Csp, got {csp!r}")
    wire_csp = csp.to_wire()
    if wire_csp:
        meta["csp"] = wire_csp
    permissions = component.permissions
    if isinstance(permissions, str) or not all(p in PERMISSIONS for p in permissions):
        raise ImproperlyConfigured(
            f"{label}.permissions must be a tuple of sandbox permissions among "
            f"{', '.join(map(repr, PERMISSIONS))}, got {permissions!r} (an App's page is the same for "
            "every caller: guard the tools, not the page)"
        )
    if permissions:
        meta["permissions"] = {PERMISSIONS[p]: {} for p in permissions}
    domain = component.domain
    if domain is not None:
        if not isinstance(domain, str) or not domain or any(c.isspace() for c in domain):
            raise ImproperlyConfigured(f"{label}.domain must be None or a host name, got {domain!r}")
        meta["domain"] = domain
    border = component.prefers_border
    if border is not None:
        if not isinstance(border, bool):
            raise ImproperlyConfigured(f"{label}.prefers_border must be None, True or False, got {border!r}")
        meta["prefersBorder"] = border
    return meta
