"""OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoints.

MCP 2026-07-28 (authorization) makes an HTTP server that requires
authorization publish where clients get tokens: a JSON document at
``/.well-known/oauth-protected-resource`` with the MCP endpoint's path
inserted after it (RFC 9728 §3.1), e.g. ``/.well-known/oauth-protected-
resource/mcp/weather`` for ``/mcp/weather``, and at the bare well-known
path for the origin as a whole. Clients find it from the
``resource_metadata`` of a 401's ``WWW-Authenticate`` header, or try the
path-inserted URL, then the root one.

Well-known URLs sit at the origin root, so mount these patterns at the
site root, outside any prefix the MCP endpoints use::

    path("", include("django_mcp.wellknown")),

The document comes from the ``MCP_RESOURCE_METADATA`` setting, a dict:

``authorization_servers``
    required, non-empty list of issuer URLs
``scopes_supported``
    optional list of scope strings
``bearer_methods_supported``
    default ``["header"]``; only ``"header"`` is allowed, since django_mcp
    reads tokens from the ``Authorization`` header only (never the query
    string or the body)
``resource``
    default: the absolute URL of the endpoint the metadata is about (RFC 9728
    §3.3 requires it to equal the URL the well-known path was built from);
    the origin for the root document

Any other RFC 9728 member (``resource_name``, ``resource_documentation``,
``jwks_uri``, ...) is copied as given. Without the setting both URLs answer
404; a path-inserted URL whose path is not an MCP endpoint also answers 404.
The documents are public, so they carry ``Access-Control-Allow-Origin: *``
for browser-based clients.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import get_script_prefix, path
from django.views import View

from django_mcp.conf import get_setting
from django_mcp.transports.http import endpoint_at

__all__ = [
    "WELL_KNOWN_PATH",
    "ProtectedResourceMetadataView",
    "resource_metadata",
    "resource_metadata_errors",
    "urlpatterns",
]

WELL_KNOWN_PATH: Final = ".well-known/oauth-protected-resource"
"""The RFC 9728 well-known path suffix, without the leading slash."""

_BEARER_METHODS: Final = frozenset({"header"})


def resource_metadata_errors(value: Any) -> list[str]:
    """Return what is wrong with an ``MCP_RESOURCE_METADATA`` value (None is fine)."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [f"must be a dict, got {type(value).__name__}"]
    errors = []
    servers = value.get("authorization_servers")
    if not _is_str_list(servers) or not servers:
        errors.append("'authorization_servers' must be a non-empty list of issuer URLs")
    elif not all(s.startswith(("https://", "http://")) for s in servers):
        errors.append(f"'authorization_servers' must hold absolute http(s) URLs, got {list(servers)!r}")
    scopes = value.get("scopes_supported")
    if scopes is not None and not _is_str_list(scopes):
        errors.append("'scopes_supported' must be a list of strings")
    methods = value.get("bearer_methods_supported")
    if methods is not None and (not _is_str_list(methods) or not set(methods) <= _BEARER_METHODS):
        errors.append(
            f"'bearer_methods_supported' may only list 'header' (tokens are read from the "
            f"Authorization header only), got {methods!r}"
        )
    resource = value.get("resource")
    if resource is not None and (
        not isinstance(resource, str) or not resource.startswith(("https://", "http://")) or "#" in resource
    ):
        errors.append(f"'resource' must be an absolute http(s) URL without a fragment, got {resource!r}")
    return errors


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)


def resource_metadata(request: HttpRequest, mcp_path: str = "") -> dict[str, Any] | None:
    """Return the RFC 9728 document for ``mcp_path`` (None when unconfigured).

    ``mcp_path`` is the endpoint's path without its leading slash, as
    inserted after the well-known path; "" means the origin.

    Raises:
        ImproperlyConfigured: ``MCP_RESOURCE_METADATA`` is malformed.
    """
    configured = get_setting("MCP_RESOURCE_METADATA")
    if configured is None:
        return None
    errors = resource_metadata_errors(configured)
    if errors:
        raise ImproperlyConfigured("MCP_RESOURCE_METADATA: " + "; ".join(errors))
    resource = configured.get("resource")
    if resource is None:
        # RFC 9728 §3.1: a terminating slash after the host is dropped, so
        # the origin's identifier has no path at all.
        resource = request.build_absolute_uri("/" + mcp_path).rstrip("/")
    document: dict[str, Any] = {
        "resource": resource,
        "authorization_servers": list(configured["authorization_servers"]),
    }
    if configured.get("scopes_supported") is not None:
        document["scopes_supported"] = list(configured["scopes_supported"])
    document["bearer_methods_supported"] = list(configured.get("bearer_methods_supported") or ["header"])
    for key, item in configured.items():
        document.setdefault(key, item)
    return document


def _is_mcp_endpoint(full_path: str) -> bool:
    # The inserted path is the endpoint's full path (what challenge() puts
    # in resource_metadata); drop a SCRIPT_NAME prefix before resolving.
    prefix = get_script_prefix()
    if prefix != "/" and full_path.startswith(prefix):
        full_path = "/" + full_path[len(prefix) :]
    return endpoint_at(full_path) is not None


def _not_found(description: str) -> HttpResponse:
    return _cors(JsonResponse({"error": "not_found", "error_description": description}, status=404))


def _cors(response: HttpResponse) -> HttpResponse:
    response["Access-Control-Allow-Origin"] = "*"
    return response


class ProtectedResourceMetadataView(View):
    """Serve the RFC 9728 document, at the root or for one MCP endpoint."""

    http_method_names = ["get", "head", "options"]

    async def get(self, request: HttpRequest, mcp_path: str = "") -> HttpResponse:
        """Answer the JSON document, or 404 JSON."""
        mcp_path = mcp_path.strip("/")
        document = resource_metadata(request, mcp_path)
        if document is None:
            return _not_found("No protected resource metadata is configured (MCP_RESOURCE_METADATA).")
        if mcp_path and not _is_mcp_endpoint("/" + mcp_path):
            return _not_found(f"/{mcp_path} is not an MCP endpoint.")
        return _cors(JsonResponse(document))

    async def options(  # type: ignore[override]  # Django's View.options is async for async views
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        """Answer a CORS preflight (clients may send MCP-Protocol-Version)."""
        response = HttpResponse(status=204)
        response["Allow"] = "GET, HEAD, OPTIONS"
        response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
        response["Access-Control-Allow-Headers"] = "*"
        response["Access-Control-Max-Age"] = "86400"
        return _cors(response)


_view = ProtectedResourceMetadataView.as_view()

urlpatterns = [
    path(WELL_KNOWN_PATH, _view, name="mcp-protected-resource"),
    path(f"{WELL_KNOWN_PATH}/<path:mcp_path>", _view, name="mcp-protected-resource-path"),
]
"""The root metadata document and one per MCP endpoint path, to mount at the site root."""
