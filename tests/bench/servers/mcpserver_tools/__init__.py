"""django-mcp-server's tools live in this app's ``mcp.py`` (its autodiscovery)."""
