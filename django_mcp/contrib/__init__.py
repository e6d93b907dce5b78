"""Optional integrations with third-party packages, one module each.

Each module imports its package at import time, so import a module only when
its extra is installed (e.g. ``pip install 'django-mcp-toolkit[oauth]'`` for
``django_mcp.contrib.oauth_toolkit``).
"""

__all__: list[str] = []
