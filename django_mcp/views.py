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

``server_card_view``: the ``GET <endpoint>/server-card`` route
``django_mcp.urls`` adds next to each web server, serving its Server Card
(``django_mcp.server_card``, SEP-2127, a draft) as
``application/mcp-server-card+json`` with its endpoint's absolute URL as
the remote, a strong ``ETag`` (``If-None-Match`` answers 304), public
caching for an hour and CORS open to every origin, as the draft asks. A
server whose card cannot be built (its name is not ``namespace/name``, it
has no description of 1-100 characters) answers 404.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import reverse
from django.views import defaults
from django.views.decorators.http import require_safe

from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InvalidRequest
from django_mcp.server.server import Server
from django_mcp.server_card import MEDIA_TYPE, CardError, encode_card, etag, server_card
from django_mcp.transports.http import endpoint_at

__all__ = ["bad_request", "server_card_view"]

logger = logging.getLogger(__name__)

#: The draft's CORS and caching headers of a hosted card.
_CARD_HEADERS: dict[str, str] = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Expose-Headers": "ETag",
    "Cache-Control": "public, max-age=3600",
}


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


@require_safe
def server_card_view(request: HttpRequest, *, server: type[Server], endpoint: str) -> HttpResponse:
    """Serve ``server``'s card; ``endpoint`` is the URL name of its MCP route."""
    url = request.build_absolute_uri(reverse(endpoint))
    try:
        body = encode_card(server_card(server, url=url))
    except CardError as exc:
        logger.debug("No server card for %s: %s", server.__qualname__, exc)
        raise Http404("No server card") from None
    tag = etag(body)
    if tag in (request.headers.get("If-None-Match") or "").replace(" ", "").split(","):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type=MEDIA_TYPE)
    response["ETag"] = tag
    for header, value in _CARD_HEADERS.items():
        response[header] = value
    return response
