"""The external origins an App's templates load from, against its ``Csp``.

A host renders an App under a Content Security Policy built from the
App's ``_meta.ui.csp`` and MUST NOT allow undeclared domains (SEP-1865,
"UI Resource Format", Host Behavior), so a page loading a script from a
CDN it did not declare is broken in every host. ``undeclared_origins()``
reads the sources (never renders them: a check must not run page code or
queries) and reports each ``http(s)``, ``ws(s)`` or protocol-relative
(``//host``) origin found:

* in a ``src`` or ``srcset`` attribute, or the ``href`` of a ``<link>``,
  in CSS ``url(...)`` or ``@import "..."``: a resource, which
  ``resource_domains`` must declare (``connect_domains`` is accepted too);
* as the first argument of ``fetch(``, ``new WebSocket(`` or
  ``new EventSource(``: a connection, which ``connect_domains`` must
  declare.

The sources read are the App's template, the templates it names with a
literal ``{% extends %}`` or ``{% include %}`` (recursively), and the static
files it inlines with a literal ``{% mcp_inline_static %}``. Links
(``<a href>``) are navigation, not loads, and are ignored; so are URLs built
from template variables, which no reading of the source can know.
Declarations match as CSP source expressions do: same scheme, host and
port, ``*.`` standing for any subdomain (a protocol-relative reference
matches an ``https`` declaration).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from django.contrib.staticfiles import finders
from django.template import TemplateDoesNotExist, TemplateSyntaxError, engines

from django_mcp.ui.resource import AppResource

__all__ = ["Reference", "undeclared_origins"]

_ORIGIN: Final = r"(?P<origin>(?:(?:https?|wss?):)?//[A-Za-z0-9.-]+(?::[0-9]{1,5})?)"
_RESOURCE_PATTERNS: Final = (
    re.compile(r"""\b(?:src|srcset)\s*=\s*["']?\s*""" + _ORIGIN, re.IGNORECASE),
    re.compile(r"""<link\b[^>]*?\bhref\s*=\s*["']?\s*""" + _ORIGIN, re.IGNORECASE),
    re.compile(r"""url\(\s*["']?\s*""" + _ORIGIN, re.IGNORECASE),
    re.compile(r"""@import\s+["']\s*""" + _ORIGIN, re.IGNORECASE),
)
_CONNECT_PATTERNS: Final = (re.compile(r"""\b(?:fetch|WebSocket|EventSource)\(\s*["'`]\s*""" + _ORIGIN),)
_NAMED_TEMPLATE: Final = re.compile(r"""{%\s*(?:extends|include)\s+["']([^"']+)["']""")
_INLINED_STATIC: Final = re.compile(r"""{%\s*mcp_inline_static\s+["']([^"']+)["']\s*%}""")
_MAX_TEMPLATES: Final = 50


class Reference(NamedTuple):
    """An external origin a page loads from that its ``Csp`` does not declare."""

    #: The origin as written, normalised to ``scheme://host[:port]``.
    origin: str
    #: ``"resource_domains"`` or ``"connect_domains"``: where to declare it.
    field: str
    #: The template or static file it was found in.
    source: str


def undeclared_origins(app: type[AppResource]) -> list[Reference]:
    """Return the external origins ``app``'s sources use but its ``csp`` lacks, once each."""
    csp = app.csp
    kinds = (
        ("resource_domains", _RESOURCE_PATTERNS, (*csp.resource_domains, *csp.connect_domains)),
        ("connect_domains", _CONNECT_PATTERNS, csp.connect_domains),
    )
    found: dict[tuple[str, str], Reference] = {}
    for source, text in _sources(app.template_name):
        for field, patterns, declared in kinds:
            for origin in _origins(text, patterns):
                if not any(_matches(origin, allowed) for allowed in declared):
                    found.setdefault((origin, field), Reference(origin, field, source))
    return list(found.values())


def _sources(template_name: str | None) -> Iterator[tuple[str, str]]:
    """Yield ``(name, text)`` for the template, the templates it names and the files it inlines."""
    pending = [template_name] if template_name else []
    seen: set[str] = set()
    while pending and len(seen) < _MAX_TEMPLATES:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        text = _template_source(name)
        if text is None:
            continue
        yield name, text
        pending.extend(_NAMED_TEMPLATE.findall(text))
        for path in _INLINED_STATIC.findall(text):
            found = finders.find(path)
            if isinstance(found, str):
                try:
                    with open(found, encoding="utf-8") as file:
                        yield path, file.read()
                except (OSError, UnicodeDecodeError):
                    continue


def _template_source(name: str) -> str | None:
    # A missing or broken template is another check's report (the App's
    # own template) or the page's error at render time (one it includes).
    for engine in engines.all():
        try:
            template = engine.get_template(name)
        except (TemplateDoesNotExist, TemplateSyntaxError):
            continue
        origin = getattr(getattr(template, "template", None), "source", None)
        if isinstance(origin, str):
            return origin
    return None


def _origins(text: str, patterns: Iterable[re.Pattern[str]]) -> Iterator[str]:
    """Yield the origins the patterns find, in the order they appear."""
    matches = sorted((m.start(), m.group("origin")) for pattern in patterns for m in pattern.finditer(text))
    for _, origin in matches:
        yield _normalise(origin)


def _normalise(origin: str) -> str:
    if origin.startswith("//"):
        origin = "https:" + origin
    scheme, _, rest = origin.partition("://")
    return f"{scheme.lower()}://{rest.lower()}"


def _matches(origin: str, allowed: str) -> bool:
    """Return True when the CSP source expression ``allowed`` covers ``origin``."""
    scheme, _, host = origin.partition("://")
    allowed_scheme, _, allowed_host = allowed.lower().partition("://")
    if scheme != allowed_scheme:
        return False
    if allowed_host.startswith("*."):
        return host.endswith(allowed_host[1:])
    return host == allowed_host
