"""Management commands of django_mcp."""

__all__: list[str] = []
