"""MCP wire types (msgspec Structs): no Django imports, no behaviour."""

__all__: list[str] = []
