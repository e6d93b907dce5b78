"""``mcp_catalog`` and ``mcp_stdio``."""

__all__: list[str] = []
