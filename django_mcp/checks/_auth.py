"""Checks of who may call: authentication backends, rate limit, protected resource metadata.

- ``E011`` ``MCP_AUTHENTICATION_BACKENDS`` is not a list of dotted paths
- ``E012`` an ``MCP_AUTHENTICATION_BACKENDS`` entry cannot be imported
- ``E013`` an ``MCP_AUTHENTICATION_BACKENDS`` entry has no ``authenticate()``
- ``E014`` ``MCP_RATE_LIMIT`` is not ``None`` or a rate such as ``"60/m"``
- ``E016`` ``MCP_RESOURCE_METADATA`` is malformed
"""

from __future__ import annotations

from django.core.checks import CheckMessage, Error
from django.utils.translation import gettext as _

from django_mcp.checks._loading import import_dotted
from django_mcp.conf import get_setting
from django_mcp.ratelimit import parse_rate
from django_mcp.wellknown import resource_metadata_errors

__all__ = ["check_authentication_backends", "check_rate_limit", "check_resource_metadata"]


def check_authentication_backends() -> list[CheckMessage]:
    """Report each authentication backend that is not an importable class with ``authenticate()``."""
    paths = get_setting("MCP_AUTHENTICATION_BACKENDS")
    if not isinstance(paths, list | tuple):
        return [
            Error(
                _("MCP_AUTHENTICATION_BACKENDS must be a list of dotted paths, got {paths!r}.").format(
                    paths=paths
                ),
                hint=_('Write it as a list, e.g. ["myapp.auth.TokenAuthenticator"].'),
                id="django_mcp.E011",
            )
        ]
    messages: list[CheckMessage] = []
    for path in paths:
        backend, problem = import_dotted(path)
        if problem is not None:
            messages.append(
                Error(
                    _("MCP_AUTHENTICATION_BACKENDS entry {path!r} cannot be imported: {problem}.").format(
                        path=path, problem=problem
                    ),
                    hint=_("Check the dotted path: module path, then the class name."),
                    id="django_mcp.E012",
                )
            )
        elif not (isinstance(backend, type) and callable(getattr(backend, "authenticate", None))):
            messages.append(
                Error(
                    _(
                        "MCP_AUTHENTICATION_BACKENDS entry {path!r} is not a class with an "
                        "authenticate(request) method."
                    ).format(path=path),
                    hint=_(
                        "Each entry names a class; django_mcp instantiates it without "
                        "arguments and calls authenticate(request), which returns a user or "
                        "None."
                    ),
                    id="django_mcp.E013",
                )
            )
    return messages


def check_rate_limit() -> list[CheckMessage]:
    """Report an ``MCP_RATE_LIMIT`` that is not None or a rate."""
    rate = get_setting("MCP_RATE_LIMIT")
    if rate is None:
        return []
    try:
        parse_rate(rate)
    except ValueError:
        return [
            Error(
                _("MCP_RATE_LIMIT must be None or a rate like '60/m', got {rate!r}.").format(rate=rate),
                hint=_(
                    "Write a positive number of calls, a slash and a period: s (second), m "
                    "(minute), h (hour) or d (day); None means unlimited."
                ),
                id="django_mcp.E014",
            )
        ]
    return []


def check_resource_metadata() -> list[CheckMessage]:
    """Report each problem of ``MCP_RESOURCE_METADATA``."""
    return [
        Error(
            _("MCP_RESOURCE_METADATA {problem}.").format(problem=problem),
            hint=_(
                "Give a dict with at least 'authorization_servers' (issuer URLs), or "
                "None to publish no protected resource metadata."
            ),
            id="django_mcp.E016",
        )
        for problem in resource_metadata_errors(get_setting("MCP_RESOURCE_METADATA"))
    ]
