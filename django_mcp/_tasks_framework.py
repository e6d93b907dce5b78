"""Find Django's Tasks framework: Django 6's ``django.tasks``, else the backport.

Imported lazily by whoever needs the framework, so django_mcp imports (and
runs tasks in its in-process pool) without it.
"""

from __future__ import annotations

import importlib
from typing import Any

from django.core.exceptions import ImproperlyConfigured

__all__ = ["framework", "framework_module"]


def framework() -> Any:
    """Return the Tasks framework's package (``django.tasks``, else ``django_tasks``).

    Raises:
        ImproperlyConfigured: neither can be imported.
    """
    for name in ("django.tasks", "django_tasks"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImproperlyConfigured(
        "MCP tasks need Django's Tasks framework: use Django 6, or install "
        "'django-mcp-toolkit[tasks]' (the django-tasks backport)"
    )


def framework_module(name: str) -> Any:
    """Return the framework's submodule ``name`` (``"base"``, ``"backends.base"``, ...)."""
    return importlib.import_module(f"{framework().__name__}.{name}")
