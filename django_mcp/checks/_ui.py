"""Checks of MCP Apps: their templates and the origins those load from.

- ``E039`` an MCP App's template (``AppResource.template_name``) is missing
  or does not compile (for each server, from ``check_servers``)
- ``W015`` an App's template loads from an external origin its ``csp`` does
  not declare (the host's Content Security Policy will block it)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.checks import CheckMessage, Error, register
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.utils.translation import gettext as _

from django_mcp.exceptions import SkillError
from django_mcp.registry import registry
from django_mcp.server.compiler import compile_server
from django_mcp.ui.origins import undeclared_origins
from django_mcp.ui.resource import is_app

__all__ = ["check_app_origins", "check_app_templates"]


@register("django_mcp")
def check_app_origins(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn about each external origin an App's templates load from undeclared.

    Hosts build the page's Content Security Policy from its ``_meta.ui.csp``
    and allow nothing else (SEP-1865), so such a script, style, image or
    connection fails in every host.
    """
    app_classes: dict[type[Any], None] = {}
    for server in {*registry.web_servers().values(), *registry.local_servers().values()}:
        try:
            compiled = compile_server(server)
        except (ImproperlyConfigured, SkillError):  # E015 and the skill checks report it
            continue
        for resource in (*compiled.resources.values(), *compiled.unlisted_apps.values()):
            if is_app(resource.component):
                app_classes.setdefault(resource.component, None)
    return [
        CheckWarning(
            _(
                "The MCP App {app_module}.{app_qualname} loads from {found_origin} "
                "({found_source}), which its csp does not declare: hosts block it."
            ).format(
                app_module=app.__module__,
                app_qualname=app.__qualname__,
                found_origin=found.origin,
                found_source=found.source,
            ),
            hint=_(
                "Add {found_origin!r} to the App's Csp({found_field}=...), or inline the file "
                "with {{% mcp_inline_static %}}."
            ).format(found_origin=found.origin, found_field=found.field),
            obj=app,
            id="django_mcp.W015",
        )
        for app in app_classes
        for found in undeclared_origins(app)
    ]


def check_app_templates(where: str, compiled: Any) -> list[CheckMessage]:
    """Report each MCP App whose template is missing or does not compile.

    The template is loaded, not rendered: ``get_context_data()`` may need a
    database that checks must not touch.
    """
    messages: list[CheckMessage] = []
    entries = (*compiled.resources.values(), *compiled.unlisted_apps.values())
    for entry in entries:
        if not is_app(entry.component):
            continue
        name = entry.component.template_name
        try:
            get_template(str(name))  # the compiler refuses a missing one
        except TemplateDoesNotExist:
            problem = _("does not exist")
        except TemplateSyntaxError as exc:
            problem = _("does not compile ({exc})").format(exc=exc)
        else:
            continue
        messages.append(
            Error(
                _(
                    "{where}: App {entry_uri} ({app_module}.{app_qualname}) renders template {name!r}, "
                    "which {problem}."
                ).format(
                    where=where,
                    entry_uri=entry.definition.uri,
                    app_module=entry.component.__module__,
                    app_qualname=entry.component.__qualname__,
                    name=name,
                    problem=problem,
                ),
                hint=_(
                    "Create the template in an app's templates/ folder (or a TEMPLATES DIRS folder), "
                    "or fix template_name; `manage.py startmcpapp` writes one to start from."
                ),
                obj=entry.component,
                id="django_mcp.E039",
            )
        )
    return messages
