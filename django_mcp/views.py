"""``bad_request``: the ``handler400`` that answers MCP clients with JSON-RPC, not HTML.

Django's ``CommonMiddleware`` checks the ``Host`` header before any view
runs: a disallowed one never reaches the MCP endpoint, and Django answers
it with its HTML 400 page. Name this view as the project's ``handler400``
(in the root URLconf) and a request to an MCP endpoint gets a JSON-RPC
error instead (403 for a disallowed host, as the endpoint answers it
itself; 400 for any other bad request); every other path keeps Django's
own page::

    # urls.py (ROOT_URLCONF)
    handler400 = "django_mcp.views.bad_request"

``McpASGIApp`` and ``McpWSGIApp`` need none of this: they run no
middleware, and the endpoint refuses a disallowed host itself.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.views import defaults

from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InvalidRequest
from django_mcp.transports.http import endpoint_at

__all__ = ["bad_request"]


def bad_request(request: HttpRequest, exception: Exception | None = None, **kwargs: Any) -> HttpResponse:
    """Answer a bad request: JSON-RPC for an MCP endpoint, Django's page elsewhere."""
    if endpoint_at(request.path_info) is None:
        return defaults.bad_request(request, exception, **kwargs)  # type: ignore[arg-type]
    if isinstance(exception, DisallowedHost):
        body, status = encode_error(None, InvalidRequest("Forbidden: host not allowed")), 403
    else:
        body, status = encode_error(None, InvalidRequest("Bad request")), 400
    response = HttpResponse(body, status=status, content_type="application/json")
    response["X-Content-Type-Options"] = "nosniff"
    return response
