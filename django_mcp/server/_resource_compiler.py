"""Compile a ``Resource`` declaration: a fixed URI or a URI template, or an MCP App."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ResourceDefinition, ResourceTemplateDefinition
from django_mcp.response import ContentAnnotations
from django_mcp.server._compiled import CompiledResource
from django_mcp.server._declarations import common_fields, optional_str, qualname, with_ui_meta
from django_mcp.server.handlers import plan_completer, plan_handler
from django_mcp.server.primitives import CacheHint, Resource
from django_mcp.server.templates import TemplateError, UriTemplate
from django_mcp.ui.resource import app_uri, is_app, resource_ui_meta

__all__ = ["compile_resource"]

_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


def compile_resource(component: type[Resource], server_name: str) -> CompiledResource:
    """Compile a resource, a resource template or an MCP App (whose URI names ``server_name``)."""
    label = qualname(component)
    common = common_fields(component, "App" if is_app(component) else "Resource", strict_name=False)
    uri, uri_template = component.uri, component.uri_template
    if is_app(component):
        uri = app_uri(component, server_name, common["name"])
        common["meta"] = with_ui_meta(common["meta"], resource_ui_meta(component), label)
    if (uri is None) == (uri_template is None):
        raise ImproperlyConfigured(f"{label} must declare exactly one of uri or uri_template")
    mime_type = optional_str(component, "mime_type", label)
    cache = component.cache if component.cache is not None else CacheHint()
    if not isinstance(cache, CacheHint):
        raise ImproperlyConfigured(f"{label}.cache must be a CacheHint")
    annotations = component.annotations
    if annotations is not None and not isinstance(annotations, ContentAnnotations):
        raise ImproperlyConfigured(f"{label}.annotations must be a ContentAnnotations")
    wire_annotations = UNSET if annotations is None else annotations.to_wire()
    size = component.size
    if size is not None and (type(size) is not int or size < 0):
        raise ImproperlyConfigured(f"{label}.size must be a non-negative int, got {size!r}")
    template: UriTemplate | None = None
    definition: ResourceDefinition | ResourceTemplateDefinition
    if uri is not None:
        if not isinstance(uri, str) or not _URI_RE.match(uri):
            raise ImproperlyConfigured(f"{label}.uri must be an absolute URI, got {uri!r}")
        values: tuple[str, ...] = ()
        definition = ResourceDefinition(
            uri=uri,
            name=common["name"],
            title=common["title"],
            description=common["description"],
            mime_type=mime_type,
            size=UNSET if size is None else size,
            icons=common["icons"],
            annotations=wire_annotations,
            meta=common["meta"],
        )
    else:
        template = _template(component, uri_template, label)
        values = template.variable_names
        definition = ResourceTemplateDefinition(
            uri_template=template.template,
            name=common["name"],
            title=common["title"],
            description=common["description"],
            mime_type=mime_type,
            icons=common["icons"],
            annotations=wire_annotations,
            meta=common["meta"],
        )
    handler = plan_handler(component, "handle", label, values=values)
    completer = plan_completer(component, label) if template is not None else None
    return CompiledResource(
        component=component,
        name=common["name"],
        handler=handler,
        permissions=common["permissions"],
        has_authorize=common["has_authorize"],
        completer=completer,
        definition=definition,
        template=template,
        mime_type=None if mime_type is UNSET else mime_type,
        cache=cache,
    )


def _template(component: type[Resource], uri_template: Any, label: str) -> UriTemplate:
    if not isinstance(uri_template, str) or not uri_template:
        raise ImproperlyConfigured(f"{label}.uri_template must be a non-empty string")
    matcher = component.__dict__.get("match")
    if matcher is None:
        matcher = next((vars(base)["match"] for base in component.__mro__[1:] if "match" in vars(base)), None)
    bound: Callable[[str], Any] | None = None
    if matcher is not None:
        if not isinstance(matcher, staticmethod | classmethod):
            raise ImproperlyConfigured(
                f"{label}.match must be a synchronous @staticmethod or @classmethod match(uri)"
            )
        if inspect.iscoroutinefunction(matcher.__func__):
            raise ImproperlyConfigured(f"{label}.match must be synchronous, not async")
        bound = component.match  # type: ignore[attr-defined]
    try:
        return UriTemplate(uri_template, matcher=bound)
    except TemplateError as exc:
        raise ImproperlyConfigured(f"{label}.uri_template: {exc}") from None
