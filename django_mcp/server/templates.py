"""RFC 6570 URI templates: expansion and verified inverse matching.

Expansion covers RFC 6570 level 4: the operators none, ``+``, ``#``, ``.``,
``/``, ``;``, ``?`` and ``&``, the explode modifier ``*`` and the prefix
modifier ``:n``. The ``uritemplate`` package parses each expression and
expands each variable; values are normalized first so that the result
follows the RFC where ``uritemplate`` 4.x does not:

- ``True``/``False`` render as ``true``/``false`` (JSON style), not
  ``True``/``False``.
- Mappings keep their insertion order; ``uritemplate`` sorts dict keys.
- ``None``, an empty list and an empty mapping are undefined and omitted
  (RFC 6570 §2.3); ``None`` list members and ``None``-valued pairs are
  skipped.
- Text is percent-encoded as UTF-8. A prefix counts characters, not octets,
  and is applied before encoding (§2.4.1); in ``{+var:n}``/``{#var:n}`` a
  pct-encoded triplet counts as one character so it is never split.
- Reserved expansion (``+``, ``#``) passes pct-encoded triplets through and
  encodes every other disallowed character, a bare ``%`` included (§3.2.3).
- Literal characters outside ASCII (``ucschar``/``iprivate``) are
  pct-encoded in the output (§3.1).

Refused values: a prefix modifier applied to a list or mapping raises
``TemplateError`` (§2.4.1 defines prefixes for strings only); bytes, sets,
other iterables and nested containers raise ``TypeError``. Other scalars
(numbers, UUIDs, ...) render through ``str()``. One ``uritemplate`` quirk is
kept: an empty member of an exploded ``;`` value renders ``name=`` where
§3.2.7 writes ``name``.

The constructor validates the template against the RFC 6570 §2 grammar:
balanced braces, non-empty expressions, valid variable names, prefix
lengths 1-9999, no reserved operators (``=`` ``,`` ``!`` ``@`` ``|``) and no
characters that a literal may not contain (space, ``"``, ``'``, ``<``,
``>``, ``\\``, ``^``, ``` ` ```, ``|``, controls, a bare ``%``).

Matching is the inverse, which RFC 6570 leaves undefined (§1.4). It is
automatic for *simple* templates, decided once at construction:

- every expression is a single unexploded, unprefixed variable with any
  operator, or a list of such variables with ``?`` or ``&``;
- no capture is followed by the next one with nothing between them, or
  only by characters it could itself contain: ``{a}{b}``,
  ``{first}-{last}`` (``-`` is unreserved) and ``{+path}/{name}`` (``+``
  keeps ``/``) are refused. This rule is stricter than it needs to be
  (``{+path}/{name}`` does split one way only) so that it stays easy to
  state;
- and no URI has two parses, checked on the template's Glushkov
  automaton: ``{/a}{/b}`` is refused (``/x`` fills either variable), while
  ``{name}.json``, ``{a}/{b}`` and ``{?q}{&lang}`` are simple.

Captures are anchored to the whole URI and percent-decoded as strict UTF-8
(invalid UTF-8 does not match). In ``{+var}``/``{#var}`` a triplet of a
character that expansion passes through (unreserved, reserved, ``%``) stays
encoded, because such a value may carry triplets (§3.2.3). An optional
expression (``#`` ``.`` ``/`` ``;`` ``?`` ``&``) that is absent from the URI
leaves its variables out of the result; an empty ``{var}`` gives ``""``.
Automatic matching recovers string values only.

Other templates need a synchronous ``matcher`` (a resource's ``match(uri)``
staticmethod or classmethod); without one the constructor raises
``TemplateError``. A supplied matcher is always used, even for a simple
template. Every candidate, automatic or custom, is verified: its keys must
be template variables and expanding it must reproduce the URI exactly
(uppercase hex, no extra encoding), or ``match`` returns ``None``. A
matcher that raises, or returns something other than a mapping or
``None``, is a programming error and propagates.
"""

from __future__ import annotations

import inspect
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeAlias

from django_mcp.server._template_match import RESERVED_VALUE_CHARS, Capture, Compiler
from django_mcp.server._template_syntax import (
    BARE_PERCENT,
    PCT,
    RESERVED,
    Expression,
    TemplateError,
    VarSpec,
    tokenize,
)

__all__ = ["TemplateError", "UriTemplate"]

_Matcher: TypeAlias = Callable[[str], Mapping[str, Any] | None]
_Prepared: TypeAlias = str | list[str] | list[tuple[str, str]]

_PCT_OR_CHAR: Final = re.compile(rf"{PCT}|.", re.DOTALL)
# Characters reserved expansion copies as-is, so their triplets stay
# encoded when a "+"/"#" capture is decoded.
_PASS_THROUGH: Final = RESERVED_VALUE_CHARS


def _render(value: Any, name: str) -> str:
    """Render a scalar value as text; booleans are JSON-style."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray, memoryview, Iterable)):
        kind = type(value).__name__
        raise TypeError(f"URI template variable {name!r}: cannot expand a {kind} here")
    return str(value)


def _encode_reserved(text: str) -> str:
    """Encode ``text`` for reserved expansion (RFC 6570 §3.2.3).

    Triplets pass through and everything outside unreserved/reserved is
    encoded, a bare ``%`` included. The result has no bare ``%``, so
    ``uritemplate`` then copies it unchanged.
    """
    return urllib.parse.quote(BARE_PERCENT.sub("%25", text), safe=RESERVED + "%")


def _truncate(text: str, length: int, *, reserved: bool) -> str:
    """Keep ``length`` characters; a triplet counts as one if ``reserved``."""
    if not reserved:
        return text[:length]
    return "".join(_PCT_OR_CHAR.findall(text)[:length])


def _decode(raw: str, *, reserved: bool) -> str | None:
    """Percent-decode a capture as strict UTF-8, or return None."""
    try:
        if not reserved:
            return urllib.parse.unquote_to_bytes(raw).decode("utf-8")
        out: list[str] = []
        pending = bytearray()
        for token in _PCT_OR_CHAR.findall(raw):
            byte = int(token[1:], 16) if len(token) == 3 else None
            if byte is not None and byte >= 0x80:
                pending.append(byte)
                continue
            out.append(pending.decode("utf-8"))
            pending.clear()
            if byte is None or chr(byte) in _PASS_THROUGH:
                out.append(token)
            else:
                out.append(chr(byte))
        out.append(pending.decode("utf-8"))
        return "".join(out)
    except UnicodeDecodeError:
        return None


class UriTemplate:
    """Expand an RFC 6570 URI template and match URIs back to variables.

    Pass ``matcher`` (a resource's synchronous ``match(uri)``) for templates
    that are not simple; the module docstring states the rules.

    Raises:
        TemplateError: the template is invalid, or is not simple and no
            ``matcher`` was given.
    """

    __slots__ = (
        "_captures",
        "_matcher",
        "_names",
        "_parts",
        "_regex",
        "is_simple",
        "template",
        "variable_names",
    )

    template: str
    """The template as written."""
    variable_names: tuple[str, ...]
    """Variable names in order of first appearance, without repeats."""
    is_simple: bool
    """Whether URIs can be matched without a custom matcher."""

    def __init__(self, template: str, *, matcher: _Matcher | None = None) -> None:
        if matcher is not None and (not callable(matcher) or inspect.iscoroutinefunction(matcher)):
            raise TypeError(f"matcher for URI template {template!r} must be a synchronous callable")
        self.template = template
        self._parts = tokenize(template)
        names = (spec.name for part in self._parts if isinstance(part, Expression) for spec in part.specs)
        self.variable_names = tuple(dict.fromkeys(names))
        self._names = frozenset(self.variable_names)
        self._matcher = matcher
        self._regex: re.Pattern[str] | None = None
        self._captures: tuple[Capture, ...] = ()
        compiler = Compiler(self._parts)
        reason = compiler.run()
        self.is_simple = reason is None
        if reason is None:
            self._regex = re.compile("".join(compiler.pattern))
            self._captures = tuple(compiler.captures)
        elif matcher is None:
            raise TemplateError(
                template,
                f"{reason}, so it cannot be matched automatically; the resource"
                " must define a synchronous match(uri) staticmethod or classmethod",
            )

    def __repr__(self) -> str:
        return f"UriTemplate({self.template!r})"

    def expand(self, variables: Mapping[str, Any]) -> str:
        """Return the URI for ``variables``; absent or None ones are undefined.

        Raises:
            TemplateError: a prefixed variable's value is a list or mapping.
            TypeError: a value cannot be expanded (bytes, set, nested list).
        """
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
                continue
            pieces: list[str] = []
            lead_in = part.operator.variable_prefix()
            for spec in part.specs:
                prepared = self._prepare(part, spec, variables.get(spec.name))
                if prepared is None:
                    continue
                # uritemplate takes a list of pairs as an ordered mapping,
                # though its annotations do not say so.
                values: dict[str, Any] = {spec.name: prepared}
                expanded = spec.expander.expand(values)[spec.expander.original]
                # Each variable is expanded alone so that its own prefix
                # applies (RFC 6570 §3.2.6: "{/var:1,var}" is "/v/value");
                # drop the lead-in and join as uritemplate would.
                pieces.append(expanded[len(lead_in) :])
            if pieces:
                out.append(lead_in + part.operator.expansion_separator().join(pieces))
        return "".join(out)

    def match(self, uri: str) -> dict[str, Any] | None:
        """Return the variables that expand to exactly ``uri``, or None.

        Raises:
            TypeError: the custom matcher returned neither a mapping nor
                None, or a value that cannot be expanded.
        """
        if self._matcher is not None:
            candidate = self._matcher(uri)
            if candidate is None:
                return None
            if not isinstance(candidate, Mapping):
                raise TypeError(
                    f"matcher for URI template {self.template!r} returned"
                    f" {type(candidate).__name__}; expected a mapping or None"
                )
            result: dict[str, Any] | None = dict(candidate)
        else:
            result = self._match_simple(uri)
        if result is None or not all(isinstance(key, str) and key in self._names for key in result):
            return None
        # Verify every candidate: this rules out partial matches, extra or
        # lossy values and non-canonical encodings (lowercase hex).
        return result if self.expand(result) == uri else None

    def _match_simple(self, uri: str) -> dict[str, Any] | None:
        assert self._regex is not None
        found = self._regex.fullmatch(uri)
        if found is None:
            return None
        result: dict[str, Any] = {}
        for capture in self._captures:
            raw: str | None = found.group(capture.group)
            if raw is None:
                marker = capture.marker_group
                if marker is None or found.group(marker) is None:
                    continue  # an optional expression left out: undefined
                raw = ""  # ";name" without "=value"
            value = _decode(raw, reserved=capture.reserved)
            # A repeated variable must capture the same value every time.
            if value is None or result.setdefault(capture.name, value) != value:
                return None
        return result

    def _prepare(self, expression: Expression, spec: VarSpec, value: Any) -> _Prepared | None:
        """Normalize one value for uritemplate; None means undefined."""
        if value is None:
            return None
        reserved = expression.reserved
        encode: Callable[[str], str] = _encode_reserved if reserved else str
        if isinstance(value, (Mapping, list, tuple)):
            if spec.prefix is not None:
                raise TemplateError(
                    self.template,
                    f"prefix modifier on {spec.name!r} in {expression.text}"
                    f" applies to strings only, got a {type(value).__name__}"
                    " (RFC 6570 §2.4.1)",
                )
            if isinstance(value, Mapping):
                # A list of pairs keeps the mapping's order, where
                # uritemplate would sort a dict's keys.
                pairs = [
                    (encode(_render(key, spec.name)), encode(_render(item, spec.name)))
                    for key, item in value.items()
                    if item is not None
                ]
                return pairs or None
            items = [encode(_render(item, spec.name)) for item in value if item is not None]
            return items or None
        text = _render(value, spec.name)
        if spec.prefix is not None:
            text = _truncate(text, spec.prefix, reserved=reserved)
        return encode(text)
