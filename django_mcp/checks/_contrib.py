"""Checks of the ``django_mcp.contrib`` tools: the apps they need, the admins they left out.

- ``E025`` a server serves ``ViewSetTools`` but Django REST framework is not
  installed or ``rest_framework`` is not in ``INSTALLED_APPS``
- ``E026`` a server serves ``ModelAdminTools`` but ``django.contrib.admin``
  is not in ``INSTALLED_APPS``
- ``W014`` ``AdminSiteTools()`` left out a ModelAdmin whose tools it could
  not build (its forms fail, or its primary key is a secret)
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from typing import Any

from django.apps import apps
from django.core.checks import CheckMessage, Error, register
from django.core.checks import Warning as CheckWarning
from django.utils.translation import gettext as _

__all__ = ["check_admin_site_tools", "check_contrib_apps"]

#: The apps django_mcp.contrib tool factories need installed.
_CONTRIB_APPS = ("rest_framework", "django.contrib.admin")


@register("django_mcp")
def check_admin_site_tools(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn about each ModelAdmin ``AdminSiteTools()`` could not publish."""
    # Read only where a project called it: importing it loads the admin.
    site_tools = sys.modules.get("django_mcp.contrib.admin._site")
    if site_tools is None:
        return []
    return [
        CheckWarning(
            _(
                "AdminSiteTools() left out the {skipped_model} admin of the "
                "{skipped_site!r} site: {skipped_reason}"
            ).format(skipped_model=skipped.model, skipped_site=skipped.site, skipped_reason=skipped.reason),
            hint=_(
                "Pass exclude=({skipped_model!r},) to AdminSiteTools() to leave it out "
                "on purpose, or publish it with ModelAdminTools(..., model=...) once "
                "its forms build."
            ).format(skipped_model=skipped.model),
            id="django_mcp.W014",
        )
        for skipped in site_tools.skipped_admins()
    ]


def check_contrib_apps(where: str, compiled: Any) -> list[CheckMessage]:
    """Report the apps the ``django_mcp.contrib`` tools of a server need but miss."""
    needed: dict[str, list[str]] = {}
    for name, tool in compiled.tools.items():
        app = getattr(tool.component, "_mcp_requires_app", None)
        if isinstance(app, str) and app in _CONTRIB_APPS:
            needed.setdefault(app, []).append(name)
    messages: list[CheckMessage] = []
    for app, tools in needed.items():
        missing = importlib.util.find_spec(app.partition(".")[0]) is None
        if not missing and apps.is_installed(app):
            continue
        text = (
            _("{where} serves {tools}, which need {app!r}, but it is not installed.")
            if missing
            else _("{where} serves {tools}, which need {app!r}, but it is not in INSTALLED_APPS.")
        ).format(where=where, tools=", ".join(tools), app=app)
        if app == "rest_framework":
            messages.append(
                Error(
                    text,
                    hint=_(
                        "pip install 'django-mcp-toolkit[drf]' and add 'rest_framework' to INSTALLED_APPS."
                    ),
                    obj=compiled.server,
                    id="django_mcp.E025",
                )
            )
        else:
            messages.append(
                Error(
                    text,
                    hint=_(
                        "Add 'django.contrib.admin' (and the apps it needs) to INSTALLED_APPS: "
                        "the tools run the admin's code and log their writes in its LogEntry "
                        "table."
                    ),
                    obj=compiled.server,
                    id="django_mcp.E026",
                )
            )
    return messages
