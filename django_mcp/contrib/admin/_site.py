"""Every ModelAdmin of an admin site as tools, in one line.

``AdminSiteTools()`` walks the site's registry (``AdminSite._registry``,
model -> ModelAdmin instance) and returns ``ModelAdminTools`` of each, named
``<app_label>-<model_name>-<action>`` (``auth-user-get``):

* ``exclude`` names models as ``"app_label.Model"`` (case-insensitive); a
  name the site does not have is an error, so a typo cannot publish what
  it meant to hide.
* Unmanaged models are left out: in the admin they are usually sections
  without a table (django_mcp's own catalog, django-rq's queues); publish
  one with ``ModelAdminTools`` when it has real rows.
* An admin whose forms cannot be built for the published schemas is left
  out and reported by ``manage.py check`` (``django_mcp.W014``), so one
  third-party admin cannot stop the server from starting.
* ``actions`` may name admin actions (``delete_selected``) besides the
  standard ones: each admin gets those it has.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured

from django_mcp.contrib.admin._factory import STANDARD_ACTIONS, ModelAdminTools
from django_mcp.server.primitives import Tool

__all__ = ["AdminSiteTools", "Skipped", "skipped_admins"]

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Skipped:
    """A ModelAdmin ``AdminSiteTools`` left out, and why."""

    site: str
    model: str
    reason: str


_skipped: dict[tuple[str, str], Skipped] = {}


def skipped_admins() -> list[Skipped]:
    """Return the admins ``AdminSiteTools`` could not publish (for the system checks)."""
    return list(_skipped.values())


def AdminSiteTools(  # noqa: N802 - spelled like the classes it returns
    site: admin.AdminSite | None = None,
    *,
    actions: Iterable[str] = ("list", "get"),
    exclude: Iterable[str] = (),
    hidden_fields: Iterable[str] = (),
) -> tuple[type[Tool[Any, Any]], ...]:
    """Return the tools of ``actions`` for every ModelAdmin registered on ``site``.

    ``site`` defaults to ``django.contrib.admin.site``. Each tool is what
    ``ModelAdminTools`` makes, prefixed ``<app_label>-<model_name>``.

    Raises:
        ImproperlyConfigured: ``actions`` or ``exclude`` is a string, or
            ``exclude`` names a model the site does not have.
    """
    site = admin.site if site is None else site
    for name, value in (("actions", actions), ("exclude", exclude), ("hidden_fields", hidden_fields)):
        if isinstance(value, str):
            raise ImproperlyConfigured(f"AdminSiteTools(): {name} must be a tuple of names, not a string")
    names = tuple(actions)
    registry = dict(site._registry)  # AdminSite has no public way to list its ModelAdmins
    labels = {model._meta.label_lower: model for model in registry}
    written = {str(label).lower(): str(label) for label in exclude}
    excluded = set(written)
    unknown = sorted(written[label] for label in excluded - labels.keys())
    if unknown:
        raise ImproperlyConfigured(
            f"AdminSiteTools(): exclude names models the {site.name!r} admin site does not have: "
            f"{', '.join(unknown)} (write them as 'app_label.Model')"
        )
    tools: list[type[Tool[Any, Any]]] = []
    for label, model in sorted(labels.items()):
        opts = model._meta
        if label in excluded or not opts.managed:
            continue
        model_admin = registry[model]
        # An admin action only where this admin has it (delete_selected is
        # everyone's unless the admin turns actions off).
        own = tuple(name for name in names if name in STANDARD_ACTIONS or model_admin.get_action(name))
        try:
            tools += ModelAdminTools(
                type(model_admin),
                prefix=f"{opts.app_label}-{opts.model_name}",
                actions=own,
                site=site,
                model=model,
                hidden_fields=hidden_fields,
            )
        except ImproperlyConfigured as exc:
            _skipped[(site.name, label)] = Skipped(site=site.name, model=opts.label, reason=str(exc))
            logger.warning("AdminSiteTools(): left out %s: %s", opts.label, exc)
        else:
            _skipped.pop((site.name, label), None)
    return tuple(tools)
