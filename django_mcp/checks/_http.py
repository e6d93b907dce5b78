"""Checks of how MCP is served over HTTP: allowed origins, client address, Host errors.

- ``E004`` ``MCP_ALLOWED_ORIGINS`` is not a list of strings
- ``E005`` an ``MCP_ALLOWED_ORIGINS`` entry is not an origin
- ``E017`` ``MCP_CLIENT_IP`` is not None, a callable or an importable dotted
  path

Deployment (``manage.py check --deploy``):

- ``W001`` ``MCP_ALLOWED_ORIGINS`` is empty while ``ALLOWED_HOSTS`` names a
  public host
- ``W013`` ``CommonMiddleware`` would answer a disallowed ``Host`` with HTML
  (``handler400`` is not ``django_mcp.views.bad_request``)
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error
from django.core.checks import Warning as CheckWarning
from django.urls import get_resolver
from django.utils.translation import gettext as _

from django_mcp.checks._loading import import_dotted, load_urlconf
from django_mcp.conf import get_setting
from django_mcp.registry import registry
from django_mcp.transports._origin import is_loopback_host, normalize_origin
from django_mcp.views import bad_request

__all__ = ["check_client_ip", "check_host_errors_deploy", "check_origins", "check_origins_deploy"]

# Django's test runner appends "testserver" to ALLOWED_HOSTS; no browser uses it.
_TEST_HOSTS = frozenset({"testserver"})
_COMMON_MIDDLEWARE = "django.middleware.common.CommonMiddleware"
_BAD_REQUEST = "django_mcp.views.bad_request"


def check_origins() -> list[CheckMessage]:
    """Report an ``MCP_ALLOWED_ORIGINS`` that is not a list of origins."""
    origins = get_setting("MCP_ALLOWED_ORIGINS")
    if not isinstance(origins, list | tuple) or not all(isinstance(item, str) for item in origins):
        return [
            Error(
                _("MCP_ALLOWED_ORIGINS must be a list of strings, got {origins!r}.").format(origins=origins),
                hint=_('Write it as a list, e.g. MCP_ALLOWED_ORIGINS = ["https://app.example.com"].'),
                id="django_mcp.E004",
            )
        ]
    messages: list[CheckMessage] = []
    for origin in origins:
        if normalize_origin(origin) is None:
            messages.append(
                Error(
                    _("MCP_ALLOWED_ORIGINS entry {origin!r} is not an origin.").format(origin=origin),
                    hint=_(
                        "Write an origin as scheme://host[:port] with an http or https scheme "
                        'and no path, e.g. "https://app.example.com".'
                    ),
                    id="django_mcp.E005",
                )
            )
    return messages


def check_client_ip() -> list[CheckMessage]:
    """Report an ``MCP_CLIENT_IP`` that is not None or a function."""
    value = get_setting("MCP_CLIENT_IP")
    if value is None or callable(value):
        return []
    function, problem = import_dotted(value)
    if problem is None and callable(function):
        return []
    return [
        Error(
            (
                _("MCP_CLIENT_IP must be None or a function (or its dotted path), got {value!r}: {problem}.")
                if problem
                else _("MCP_CLIENT_IP must be None or a function (or its dotted path), got {value!r}.")
            ).format(value=value, problem=problem),
            hint=_(
                "Name a function taking the HttpRequest and returning the client "
                'address or None, e.g. "myproject.proxies.client_ip"; None uses '
                "REMOTE_ADDR."
            ),
            id="django_mcp.E017",
        )
    ]


def check_origins_deploy() -> list[CheckMessage]:
    """Warn when browser clients on a public host would be refused for want of allowed origins."""
    origins = get_setting("MCP_ALLOWED_ORIGINS")
    public = [host for host in settings.ALLOWED_HOSTS if _is_public_host(host)]
    if origins or not public:
        return []
    return [
        CheckWarning(
            _(
                "MCP_ALLOWED_ORIGINS is empty but ALLOWED_HOSTS serves "
                "{join_map_repr_public}: browser-based MCP clients on those hosts will "
                "be refused (403)."
            ).format(join_map_repr_public=", ".join(map(repr, public))),
            hint=_(
                "List the origins of browser clients you trust, e.g. "
                'MCP_ALLOWED_ORIGINS = ["https://app.example.com"]; clients that send '
                "no Origin header are not affected."
            ),
            id="django_mcp.W001",
        )
    ]


def check_host_errors_deploy() -> list[CheckMessage]:
    """Warn when Django's handler would answer an MCP client's disallowed Host with HTML."""
    if _COMMON_MIDDLEWARE not in settings.MIDDLEWARE:
        return []
    try:
        load_urlconf()
        handler = get_resolver().resolve_error_handler(400)
    except Exception:  # noqa: BLE001 - Django's own URL checks report a broken URLconf
        return []
    if handler is bad_request or not (registry.web_servers() or registry.mounted_servers()):
        return []
    return [
        CheckWarning(
            _(
                "CommonMiddleware checks the Host header before the MCP endpoint runs: "
                "under Django's own handler an MCP client sending a disallowed Host "
                "gets Django's HTML 400 page, not a JSON-RPC error."
            ),
            hint=_(
                'Set handler400 = "{bad_request}" in the root URLconf, or serve MCP '
                "through django_mcp.asgi.McpASGIApp / django_mcp.wsgi.McpWSGIApp (no "
                "middleware runs there)."
            ).format(bad_request=_BAD_REQUEST),
            id="django_mcp.W013",
        )
    ]


def _is_public_host(host: Any) -> bool:
    if not isinstance(host, str) or not host or host in _TEST_HOSTS:
        return False
    if host == "*":
        return True
    name = host.lstrip(".")
    if name.startswith("[") and "]" in name:  # "[::1]" or "[::1]:8000"
        name = name[: name.index("]") + 1]
    elif name.count(":") == 1:  # "localhost:8000"
        name = name.split(":", 1)[0]
    return not is_loopback_host(name)
