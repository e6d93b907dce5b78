"""Template tag libraries: ``mcp_apps`` for MCP Apps pages."""

__all__: list[str] = []
