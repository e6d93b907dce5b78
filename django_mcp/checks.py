"""System checks for django_mcp settings and registered servers."""

from __future__ import annotations

__all__: list[str] = []
