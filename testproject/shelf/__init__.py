"""A personal bookshelf: admin and REST API scoped to their owner, served over MCP."""
