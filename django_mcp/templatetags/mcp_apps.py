"""Template tags for MCP Apps pages: ``{% load mcp_apps %}``.

An MCP App (extension ``io.modelcontextprotocol/ui``, specification
2026-01-26) is one HTML document that a host renders in a sandboxed iframe
under a Content Security Policy built from the resource's ``_meta.ui.csp``:
the page may load nothing from an origin it did not declare, and its own
site is not ``'self'`` there. So what the page needs is inlined:

* ``{% mcp_app_bridge %}`` writes a ``<script>`` holding the App side of
  the postMessage JSON-RPC bridge (``static/django_mcp/mcp_app_bridge.js``:
  the ``ui/initialize`` handshake, tool input and result, proxied
  ``tools/call`` and ``resources/read``, ``ui/message``, size changes), which
  page code reaches as ``window.mcpApp``. ``name`` and ``version`` (the
  ``appInfo`` sent to the host) default to the document title and
  ``"1.0.0"``; ``auto_resize=False`` stops the size-changed notifications.
* ``{% mcp_inline_static "path" %}`` writes the content of a static file
  found by Django's staticfiles finders: ``.css`` as ``<style>``, ``.js`` as
  ``<script>`` (``.mjs`` as ``<script type="module">``). Another extension,
  or a file no finder locates, is a ``TemplateSyntaxError`` naming it; for
  a literal path that happens when the template is compiled, so a system
  check loading the template reports it at startup. A closing ``</style``
  or ``</script`` (and ``<!--``) in the file is escaped so the file cannot
  end its own element early.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Final

from django import template
from django.contrib.staticfiles import finders
from django.template.base import FilterExpression, Parser, Token
from django.template.context import Context
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

__all__ = ["BRIDGE_PATH", "bridge_source", "mcp_app_bridge", "mcp_inline_static", "register"]

register = template.Library()

BRIDGE_PATH: Final = Path(__file__).resolve().parent.parent / "static" / "django_mcp" / "mcp_app_bridge.js"
"""The App side of the bridge, inlined by ``{% mcp_app_bridge %}``."""

_ELEMENTS: Final = {".css": ("style", ""), ".js": ("script", ""), ".mjs": ("script", ' type="module"')}
_BREAKOUT: Final = re.compile(r"<(/(?:script|style)|!--)", re.IGNORECASE)


@functools.cache
def bridge_source() -> str:
    """Return the bridge script's source, read once."""
    return BRIDGE_PATH.read_text(encoding="utf-8")


@functools.cache
def _bridge_body() -> str:
    # Escaped once: the bridge is our own file, the same at every render.
    return _escape(bridge_source())


def _escape(source: str) -> str:
    # Inside <script> and <style> only "</script", "</style" and "<!--"
    # change how the HTML parser reads on; "<\/" and "<\!--" mean the same
    # in JavaScript strings, regular expressions and comments, and in CSS.
    return _BREAKOUT.sub(lambda m: "<\\" + m.group(1), source)


@register.simple_tag
def mcp_app_bridge(name: str = "", version: str = "", *, auto_resize: bool = True) -> SafeString:
    """Return the ``<script>`` element of the App side of the MCP Apps bridge."""
    attributes = format_html(
        '<script data-mcp-app-name="{}" data-mcp-app-version="{}" data-mcp-auto-resize="{}">',
        name,
        version,
        "true" if auto_resize else "false",
    )
    return mark_safe(f"{attributes}\n{_bridge_body()}</script>")  # noqa: S308 - our own file


def _find(path: str) -> str:
    """Return the file the staticfiles finders locate for ``path``."""
    if Path(path).suffix.lower() not in _ELEMENTS:
        raise template.TemplateSyntaxError(
            f"mcp_inline_static inlines .css, .js or .mjs files, not {path!r}."
        )
    found = finders.find(path)
    if not isinstance(found, str):
        raise template.TemplateSyntaxError(
            f"mcp_inline_static: no static file {path!r} was found by the staticfiles finders."
        )
    return found


def _inline(path: str, found: str) -> SafeString:
    try:
        source = Path(found).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise template.TemplateSyntaxError(
            f"mcp_inline_static: the static file {path!r} cannot be read as UTF-8 text."
        ) from exc
    element, extra = _ELEMENTS[Path(path).suffix.lower()]
    return mark_safe(f"<{element}{extra}>\n{_escape(source)}</{element}>")  # noqa: S308 - escaped above


class _InlineStaticNode(template.Node):
    def __init__(self, path: FilterExpression, found: str | None) -> None:
        self.path = path
        self.found = found

    def render(self, context: Context) -> SafeString:
        # join() gives a plain str: a literal resolves to a SafeString.
        path = "".join([str(self.path.resolve(context))])
        # The file is read at each render, so an edited file shows at once.
        return _inline(path, self.found if self.found is not None else _find(path))


@register.tag
def mcp_inline_static(parser: Parser, token: Token) -> template.Node:
    """Compile ``{% mcp_inline_static "path" %}``: a static file's content, inlined."""
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError(f"{bits[0]} takes one argument: the static file's path.")
    literal = len(bits[1]) >= 2 and bits[1][0] in "\"'" and bits[1][-1] == bits[1][0]
    # A literal path is looked up now, so a missing file fails the template's
    # compilation (and so the system check that loads it), not a read.
    found = _find(bits[1][1:-1]) if literal else None
    return _InlineStaticNode(parser.compile_filter(bits[1]), found)
