"""Checks every component declaration shares: names, text, icons, permissions.

Each ``compile_*`` function starts from ``common_fields()``; a mistake
raises ``ImproperlyConfigured`` naming the offending class.
"""

from __future__ import annotations

import difflib
import inspect
import re
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from django_mcp.protocol._base import UNSET
from django_mcp.protocol.ui import META_KEY as UI_META_KEY
from django_mcp.response import check_meta_keys
from django_mcp.server.primitives import Icon
from django_mcp.ui.resource import is_app

__all__ = [
    "checked_str",
    "common_fields",
    "default_name",
    "icons_of",
    "optional_str",
    "permissions_of",
    "qualname",
    "refuse_misspellings",
    "with_ui_meta",
]

# MCP 2026-07-28 server/tools "Tool names": 1-128 chars of A-Z a-z 0-9 _ - .
_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def default_name(component: type[Any], suffix: str) -> str:
    """Return the kebab-case class name without its ``suffix``.

    ``OrderSummaryTool`` -> ``order-summary``, ``HTTPStatusTool`` -> ``http-status``.
    """
    base = component.__name__
    if suffix and base.endswith(suffix) and base != suffix:
        base = base[: -len(suffix)]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", base)
    return words.replace("_", "-").lower()


def refuse_misspellings(declared: type[Any], label: str) -> None:
    """Refuse a class attribute that looks like a misspelt declaration.

    ``tool = (MyTool,)`` on a Server would otherwise serve an empty server.
    Attributes the django_mcp base classes declare are known; a data
    attribute of the user's classes that is not known but close to a known
    one (``mimetype``, ``uri_templates``, ``resource``) is a mistake. Other
    attributes (helpers, constants) and methods are the user's own.
    """
    known = {
        name
        for base in declared.__mro__
        if base.__module__.startswith("django_mcp.")
        for name in vars(base)
        if not name.startswith("_")
    }
    for base in declared.__mro__:
        if base.__module__.startswith("django_mcp.") or base is object:
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in known or callable(value):
                continue
            if isinstance(value, staticmethod | classmethod | property):
                continue
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
            if close:
                raise ImproperlyConfigured(
                    f"{label}.{name} is not something django_mcp reads: did you mean {close[0]!r}?"
                )


def common_fields(component: type[Any], suffix: str, *, strict_name: bool) -> dict[str, Any]:
    """Return the fields every component definition has, checked (name, title, icons, ...)."""
    label = qualname(component)
    refuse_misspellings(component, label)
    name = component.__dict__.get("name") or default_name(component, suffix)
    if not isinstance(name, str) or not name:
        raise ImproperlyConfigured(f"{label}.name must be a non-empty string")
    if strict_name and not _NAME_RE.match(name):
        raise ImproperlyConfigured(
            f"{label}.name {name!r} is invalid: use 1-128 characters from A-Z a-z 0-9 _ - ."
        )
    description = component.description
    if description is None and component.__doc__ and component.__dict__.get("__doc__"):
        description = inspect.cleandoc(component.__doc__)
    meta = component.meta
    if meta is not None:
        try:
            check_meta_keys(meta)
        except (TypeError, ValueError) as exc:
            raise ImproperlyConfigured(f"{label}.meta: {exc}") from None
    # An App's ``permissions`` are sandbox permissions (``ui.resource``).
    permissions = () if is_app(component) else permissions_of(component, label)
    authorize = getattr(component, "authorize", None)
    return {
        "name": name,
        "title": optional_str(component, "title", label),
        "description": UNSET if description is None else checked_str(description, label, "description"),
        "icons": icons_of(component, label),
        "meta": UNSET if meta is None else dict(meta),
        "permissions": permissions,
        "has_authorize": callable(authorize),
    }


def permissions_of(component: type[Any], label: str) -> tuple[str, ...]:
    """Return a component's ``permissions``: a tuple of ``app_label.codename`` strings."""
    permissions = component.permissions
    if isinstance(permissions, str) or not all(isinstance(p, str) and "." in p for p in permissions):
        raise ImproperlyConfigured(
            f"{label}.permissions must be a tuple of 'app_label.codename' strings, got {permissions!r}"
        )
    return tuple(permissions)


def with_ui_meta(meta: Any, ui: dict[str, Any], label: str) -> dict[str, Any]:
    """Return a component's ``meta`` with the MCP Apps ``ui`` key added."""
    declared = {} if meta is UNSET else dict(meta)
    if UI_META_KEY in declared:
        raise ImproperlyConfigured(
            f"{label}.meta sets {UI_META_KEY!r}, which django_mcp publishes for MCP Apps: use app, "
            "app_visibility (tools) or csp, permissions, domain, prefers_border (AppResource) instead"
        )
    return {**declared, UI_META_KEY: ui}


def icons_of(owner: Any, label: str) -> tuple[Icon, ...] | Any:
    """Return ``owner.icons`` as a tuple of ``Icon`` (UNSET when there are none)."""
    icons = owner.icons
    if isinstance(icons, str) or not all(isinstance(i, Icon) for i in icons):
        raise ImproperlyConfigured(f"{label}.icons must be a tuple of Icon")
    return tuple(icons) or UNSET


def optional_str(owner: Any, attr: str, label: str) -> Any:
    """Return the string ``owner.<attr>``, or UNSET when it is None."""
    value = getattr(owner, attr, None)
    return UNSET if value is None else checked_str(value, label, attr)


def checked_str(value: Any, label: str, attr: str) -> str:
    """Return ``value``, refusing anything but a string."""
    if not isinstance(value, str):
        raise ImproperlyConfigured(f"{label}.{attr} must be a string, got {value!r}")
    return value


def qualname(component: type[Any]) -> str:
    """Return ``module.QualName`` of a class: how error messages name it."""
    return f"{component.__module__}.{component.__qualname__}"
