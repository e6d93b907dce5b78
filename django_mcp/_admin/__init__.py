"""The admin section's internals: catalog data, playground forms and calls.

``django_mcp.admin`` holds the ``ModelAdmin`` that serves the pages; this
package holds what those pages are built from, free of views.
"""

__all__: list[str] = []
