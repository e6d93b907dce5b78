"""Migrations of django_mcp: one unmanaged model, so no table is ever created."""

__all__: list[str] = []
