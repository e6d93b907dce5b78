"""What the checks load to look at: a dotted path, the root URLconf."""

from __future__ import annotations

from typing import Any

from django.urls import get_resolver
from django.utils.module_loading import import_string

__all__ = ["import_dotted", "load_urlconf"]


def import_dotted(path: Any) -> tuple[Any, str | None]:
    """Return ``(object, None)`` or ``(None, reason it cannot be imported)``."""
    if not isinstance(path, str) or not path:
        return None, f"expected a dotted path string, got {path!r}"
    try:
        return import_string(path), None
    except ImportError as exc:
        return None, str(exc)


def load_urlconf() -> None:
    """Load the root URLconf, so ``Server.as_view()`` has registered what it mounts."""
    get_resolver().url_patterns  # noqa: B018 - loading is the point
