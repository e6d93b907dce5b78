"""Framing: no page of the MCP section may be shown inside another site's frame.

The playground runs a tool as the signed-in staff member at the click of a
CSRF-protected button, so a page that framed it could trick them into that
click (clickjacking). Django's protection, ``XFrameOptionsMiddleware``, is
only there when the project lists it; the section does not count on it.
Every view its ModelAdmins serve answers ``X-Frame-Options: DENY`` itself
(RFC 7034), through Django's ``xframe_options_deny``, which leaves alone a
header a view already set (the middleware, which comes later, then leaves
it alone too). This is the one place that does it: the section's
ModelAdmins inherit ``DenyFraming``, whose ``urls`` wrap the views of
``get_urls()``, the ones a ModelAdmin adds included.
"""

from __future__ import annotations

from typing import Protocol

from django.urls import URLPattern
from django.views.decorators.clickjacking import xframe_options_deny

__all__ = ["DenyFraming", "deny_framing"]


class _HasUrls(Protocol):
    def get_urls(self) -> list[URLPattern]: ...


def deny_framing(patterns: list[URLPattern]) -> list[URLPattern]:
    """Return ``patterns`` with each view answering ``X-Frame-Options: DENY``."""
    return [
        URLPattern(pattern.pattern, xframe_options_deny(pattern.callback), pattern.default_args, pattern.name)
        for pattern in patterns
    ]


class DenyFraming:
    """Make every page a ModelAdmin serves refuse framing (list it before ``ModelAdmin``)."""

    @property
    def urls(self: _HasUrls) -> list[URLPattern]:
        """Return the admin's URL patterns (``get_urls()``) with framing denied."""
        return deny_framing(self.get_urls())
