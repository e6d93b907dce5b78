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
import string
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from uritemplate.variable import Operator, URIVariable

__all__ = ["TemplateError", "UriTemplate"]

_Matcher: TypeAlias = Callable[[str], Mapping[str, Any] | None]
_Prepared: TypeAlias = str | list[str] | list[tuple[str, str]]

_UNRESERVED: Final = frozenset(string.ascii_letters + string.digits + "-._~")
_RESERVED: Final = ":/?#[]@!$&'()*+,;="
_RESERVED_OPERATORS: Final = frozenset("+#")
_NAMED_QUERY_OPERATORS: Final = frozenset("?&")
# RFC 6570 §2.2: op-reserve, kept for future extensions.
_FUTURE_OPERATORS: Final = frozenset("=,!@|")
_OPERATOR_CHARS: Final = frozenset("+#./;?&")

# Characters a value capture can hold (a pct-encoded triplet is "%" followed
# by two hex digits, which are unreserved): unreserved for most operators,
# unreserved plus reserved for "+" and "#".
_VALUE_CHARS: Final = _UNRESERVED | {"%"}
_RESERVED_VALUE_CHARS: Final = _VALUE_CHARS | frozenset(_RESERVED)
# Characters reserved expansion copies as-is, so their triplets stay
# encoded when a "+"/"#" capture is decoded.
_PASS_THROUGH: Final = _RESERVED_VALUE_CHARS

_PCT: Final = "%[0-9A-Fa-f]{2}"
_VALUE_RE: Final = rf"((?:[A-Za-z0-9\-._~]|{_PCT})*)"
_RESERVED_VALUE_RE: Final = (
    rf"((?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|{_PCT})*)"
)

_VARCHAR: Final = rf"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC: Final = re.compile(
    rf"(?P<name>{_VARCHAR}(?:\.?{_VARCHAR})*)(?::(?P<prefix>[0-9]+)|(?P<explode>\*))?"
)
_PREFIX_DIGITS: Final = re.compile(r"[1-9][0-9]{0,3}")
_BARE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PCT_OR_CHAR: Final = re.compile(rf"{_PCT}|.", re.DOTALL)

# RFC 6570 §2.1 "literals", ASCII part; "%" is allowed only as a triplet.
_LITERAL_ASCII: Final = frozenset(
    chr(code)
    for low, high in (
        (0x21, 0x21), (0x23, 0x24), (0x25, 0x25), (0x26, 0x26),
        (0x28, 0x3B), (0x3D, 0x3D), (0x3F, 0x5B), (0x5D, 0x5D),
        (0x5F, 0x5F), (0x61, 0x7A), (0x7E, 0x7E),
    )
    for code in range(low, high + 1)
)


class TemplateError(ValueError):
    """Report an invalid, ambiguous or unsupported URI template or value."""

    def __init__(self, template: str, reason: str) -> None:
        super().__init__(template, reason)
        self.template = template
        self.reason = reason

    def __str__(self) -> str:
        return f"URI template {self.template!r}: {self.reason}"

    def __repr__(self) -> str:
        return f"TemplateError(template={self.template!r}, reason={self.reason!r})"


@dataclass(frozen=True, slots=True)
class _VarSpec:
    """One variable of an expression, with its modifier."""

    name: str
    explode: bool
    prefix: int | None
    # uritemplate expander for this variable alone and without its prefix:
    # the prefix is applied here, before encoding (RFC 6570 §2.4.1).
    expander: URIVariable


@dataclass(frozen=True, slots=True)
class _Expression:
    """A parsed ``{...}`` expression."""

    text: str
    operator: Operator
    specs: tuple[_VarSpec, ...]

    @property
    def reserved(self) -> bool:
        """Return whether the operator keeps reserved characters."""
        return self.operator.value in _RESERVED_OPERATORS


@dataclass(frozen=True, slots=True)
class _Capture:
    """Where a variable's value sits in the compiled match regex."""

    name: str
    group: int
    # Group of the ";name" marker: its presence with no "=value" means "".
    marker_group: int | None
    reserved: bool


@dataclass(frozen=True, slots=True)
class _Fragment:
    """Glushkov sets of a sub-expression: nullable, first and last positions."""

    nullable: bool
    first: frozenset[int]
    last: frozenset[int]


_EMPTY_FRAGMENT: Final = _Fragment(
    nullable=True, first=frozenset(), last=frozenset()
)


class _Automaton:
    """A Glushkov automaton: one state per character position, plus state 0.

    A regular expression is unambiguous exactly when its Glushkov automaton
    is (Book, Even, Greibach and Ott, 1971), and an automaton is ambiguous
    exactly when a pair of distinct states is both reachable and
    co-reachable in its self-product.
    """

    def __init__(self) -> None:
        # State 0 is the initial state; it matches no character.
        self.charsets: list[frozenset[str]] = [frozenset()]
        self.owners: list[int] = [-1]
        self.follow: list[set[int]] = [set()]

    def position(
        self, chars: frozenset[str], owner: int, *, star: bool = False
    ) -> _Fragment:
        """Add a position matching one of ``chars`` (any number if ``star``)."""
        index = len(self.charsets)
        self.charsets.append(chars)
        self.owners.append(owner)
        self.follow.append({index} if star else set())
        only = frozenset({index})
        return _Fragment(nullable=star, first=only, last=only)

    def literal(self, text: str, owner: int) -> _Fragment:
        """Add one position per character of ``text``."""
        fragment = _EMPTY_FRAGMENT
        for char in text:
            fragment = self.then(fragment, self.position(frozenset(char), owner))
        return fragment

    def then(self, left: _Fragment, right: _Fragment) -> _Fragment:
        """Concatenate two fragments."""
        for position in left.last:
            self.follow[position] |= right.first
        return _Fragment(
            nullable=left.nullable and right.nullable,
            first=left.first | right.first if left.nullable else left.first,
            last=right.last | left.last if right.nullable else right.last,
        )

    @staticmethod
    def optional(inner: _Fragment) -> _Fragment:
        """Make a fragment optional."""
        return _Fragment(nullable=True, first=inner.first, last=inner.last)

    def ambiguous_owners(self, whole: _Fragment) -> list[int]:
        """Return the owners of states where two parses diverge, if any."""
        self.follow[0] = set(whole.first)
        accepting = set(whole.last) | ({0} if whole.nullable else set())
        start = (0, 0)
        reached = {start}
        backward: dict[tuple[int, int], list[tuple[int, int]]] = {}
        queue = deque([start])
        while queue:
            pair = queue.popleft()
            left, right = pair
            for left_next in self.follow[left]:
                for right_next in self.follow[right]:
                    if not self.charsets[left_next] & self.charsets[right_next]:
                        continue
                    # Pairs are unordered: the product is symmetric.
                    target = (
                        min(left_next, right_next),
                        max(left_next, right_next),
                    )
                    backward.setdefault(target, []).append(pair)
                    if target not in reached:
                        reached.add(target)
                        queue.append(target)
        live = {pair for pair in reached if accepting.issuperset(pair)}
        queue = deque(live)
        while queue:
            for source in backward.get(queue.popleft(), ()):
                if source not in live:
                    live.add(source)
                    queue.append(source)
        diverging = (pair for pair in live if pair[0] != pair[1])
        return sorted({self.owners[state] for pair in diverging for state in pair})


def _parse_literal(template: str, start: int, text: str) -> str:
    """Validate a literal run and return it with non-ASCII pct-encoded."""
    bare = _BARE_PERCENT.search(text)
    if bare is not None:
        where = start + bare.start()
        raise TemplateError(
            template, f"'%' at position {where} does not start a pct-encoded triplet"
        )
    out: list[str] = []
    for offset, char in enumerate(text):
        if char in _LITERAL_ASCII:
            out.append(char)
        elif _is_ucschar_or_iprivate(ord(char)):
            # RFC 6570 §3.1: copy the pct-encoded form of such a literal.
            out.append(urllib.parse.quote(char, safe=""))
        else:
            raise TemplateError(
                template,
                f"character {char!r} at position {start + offset}"
                " is not allowed in a literal (RFC 6570 §2.1)",
            )
    return "".join(out)


def _is_ucschar_or_iprivate(code: int) -> bool:
    """Return whether ``code`` is RFC 3987 ``ucschar`` or ``iprivate``."""
    if code < 0x10000:
        # ucschar up to U+FFEF, with iprivate U+E000-F8FF in between.
        return (
            0xA0 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFDCF
            or 0xFDF0 <= code <= 0xFFEF
        )
    # Planes 1-16 except each plane's last two code points and U+E0000-E0FFF.
    return (code & 0xFFFF) <= 0xFFFD and not 0xE0000 <= code <= 0xE0FFF


def _parse_expression(template: str, body: str) -> _Expression:
    """Validate an expression body (between braces) and parse it."""
    text = "{" + body + "}"
    operator_char = body[0]
    if operator_char in _FUTURE_OPERATORS:
        raise TemplateError(
            template,
            f"operator {operator_char!r} in {text} is reserved (RFC 6570 §2.2)",
        )
    var_list = body[1:] if operator_char in _OPERATOR_CHARS else body
    for varspec in var_list.split(","):
        found = _VARSPEC.fullmatch(varspec)
        if found is None:
            raise TemplateError(template, f"invalid variable {varspec!r} in {text}")
        digits = found["prefix"]
        if digits is not None and _PREFIX_DIGITS.fullmatch(digits) is None:
            raise TemplateError(
                template,
                f"prefix length {digits!r} in {text} is not an integer from 1 to 9999",
            )
    # The grammar is checked, so uritemplate's own parse is reliable.
    parsed = URIVariable(body)
    op_value: str = parsed.operator.value
    specs = tuple(
        _VarSpec(
            name=name,
            explode=options["explode"],
            prefix=options["prefix"],
            expander=URIVariable(op_value + name + ("*" if options["explode"] else "")),
        )
        for name, options in parsed.variables
    )
    return _Expression(text=text, operator=parsed.operator, specs=specs)


def _tokenize(template: str) -> list[str | _Expression]:
    """Split a template into normalized literals and parsed expressions."""
    parts: list[str | _Expression] = []
    position = 0
    while position < len(template):
        opening = template.find("{", position)
        closing = template.find("}", position)
        if closing != -1 and (opening == -1 or closing < opening):
            raise TemplateError(template, f"unmatched '}}' at position {closing}")
        if opening == -1:
            opening = len(template)
        if opening > position:
            literal = template[position:opening]
            parts.append(_parse_literal(template, position, literal))
        if opening == len(template):
            break
        if closing == -1 or template.find("{", opening + 1, closing) != -1:
            raise TemplateError(template, f"unclosed '{{' at position {opening}")
        if closing == opening + 1:
            raise TemplateError(template, f"empty expression at position {opening}")
        parts.append(_parse_expression(template, template[opening + 1 : closing]))
        position = closing + 1
    return parts


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
    return urllib.parse.quote(_BARE_PERCENT.sub("%25", text), safe=_RESERVED + "%")


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
        if matcher is not None and (
            not callable(matcher) or inspect.iscoroutinefunction(matcher)
        ):
            raise TypeError(
                f"matcher for URI template {template!r} must be a synchronous callable"
            )
        self.template = template
        self._parts = _tokenize(template)
        names = (
            spec.name
            for part in self._parts
            if isinstance(part, _Expression)
            for spec in part.specs
        )
        self.variable_names = tuple(dict.fromkeys(names))
        self._names = frozenset(self.variable_names)
        self._matcher = matcher
        self._regex: re.Pattern[str] | None = None
        self._captures: tuple[_Capture, ...] = ()
        compiler = _Compiler(self._parts)
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
        if result is None or not all(
            isinstance(key, str) and key in self._names for key in result
        ):
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

    def _prepare(
        self, expression: _Expression, spec: _VarSpec, value: Any
    ) -> _Prepared | None:
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
            items = [
                encode(_render(item, spec.name)) for item in value if item is not None
            ]
            return items or None
        text = _render(value, spec.name)
        if spec.prefix is not None:
            text = _truncate(text, spec.prefix, reserved=reserved)
        return encode(text)


def _not_simple_reason(expression: _Expression) -> str | None:
    """Return why an expression cannot be inverted on its own, or None."""
    for spec in expression.specs:
        if spec.explode:
            return f"{expression.text} explodes {spec.name!r}"
        if spec.prefix is not None:
            return f"{expression.text} truncates {spec.name!r} with a prefix"
    if (
        len(expression.specs) > 1
        and expression.operator.value not in _NAMED_QUERY_OPERATORS
    ):
        # A list value would expand with raw commas/separators between
        # members, indistinguishable from the separators between variables.
        return f"{expression.text} lists several variables outside a query"
    return None


class _Compiler:
    """Build the match regex of a template and check that it is simple.

    Two checks run: the separator rule against the previous capture, then
    the automaton check for any remaining double parse. The automaton sees
    a value as any run of its allowed characters, which can only add
    parses, so it errs on the side of refusing.
    """

    def __init__(self, parts: list[str | _Expression]) -> None:
        self.parts = parts
        self.pattern: list[str] = []
        self.captures: list[_Capture] = []
        self._automaton = _Automaton()
        self._whole = _EMPTY_FRAGMENT
        self._groups = 0
        self._previous: _Expression | None = None
        self._previous_chars: frozenset[str] = frozenset()
        self._gap = ""
        self._separated = False
        self._conflict: str | None = None

    def run(self) -> str | None:
        """Compile every part; return why the template is not simple, or None."""
        automaton = self._automaton
        for index, part in enumerate(self.parts):
            if isinstance(part, str):
                self.pattern.append(re.escape(part))
                self._whole = automaton.then(self._whole, self._literal(part, index))
                continue
            reason = _not_simple_reason(part)
            if reason is not None:
                return reason
            self._whole = automaton.then(self._whole, self._expression(part, index))
        if self._conflict is not None:
            return self._conflict
        owners = automaton.ambiguous_owners(self._whole)
        if owners:
            names = ", ".join(self._describe(owner) for owner in owners)
            return f"{names} can split the same URI in more than one way"
        # Unambiguity also bounds backtracking: at most one live parse per
        # automaton state and URI position, so matching stays linear in the
        # URI for a given template.
        return None

    def _expression(self, part: _Expression, index: int) -> _Fragment:
        """Add the regex and automaton of one simple expression."""
        automaton = self._automaton
        op = part.operator.value
        if op in _NAMED_QUERY_OPERATORS:
            whole = _EMPTY_FRAGMENT
            for position, spec in enumerate(part.specs):
                self._group(spec.name)
                self.pattern.append(f"(?:[?&]{re.escape(spec.name)}={_VALUE_RE})?")
                lead = op if position == 0 else "&"
                self._separator(frozenset("?&"), lead)
                item = automaton.then(
                    automaton.position(frozenset("?&"), index),
                    self._literal(spec.name + "=", index),
                )
                item = automaton.then(item, self._value(_VALUE_CHARS, part, index))
                whole = automaton.then(whole, automaton.optional(item))
            return whole
        name = part.specs[0].name
        if op == ";":
            marker = self._group(None)
            self._group(name, marker_group=marker)
            self.pattern.append(f"(?:(;{re.escape(name)})(?:={_VALUE_RE})?)?")
            head = self._literal(";" + name, index)
            value = automaton.then(
                self._literal("=", index), self._value(_VALUE_CHARS, part, index)
            )
            item = automaton.then(head, automaton.optional(value))
            return automaton.optional(item)
        reserved = part.reserved
        self._group(name, reserved=reserved)
        value_re = _RESERVED_VALUE_RE if reserved else _VALUE_RE
        chars = _RESERVED_VALUE_CHARS if reserved else _VALUE_CHARS
        if not op or op == "+":
            self.pattern.append(value_re)
            return self._value(chars, part, index)
        # "#", "." and "/": a lead-in character, then the value.
        self.pattern.append(f"(?:{re.escape(op)}{value_re})?")
        head = self._literal(op, index)
        return automaton.optional(
            automaton.then(head, self._value(chars, part, index))
        )

    def _group(
        self,
        name: str | None,
        *,
        marker_group: int | None = None,
        reserved: bool = False,
    ) -> int:
        """Number the next regex group and record it as a capture of ``name``."""
        self._groups += 1
        if name is not None:
            self.captures.append(_Capture(name, self._groups, marker_group, reserved))
        return self._groups

    def _literal(self, text: str, index: int) -> _Fragment:
        """Add fixed characters to the automaton and the product rule."""
        for char in text:
            self._separator(frozenset(char), char)
        return self._automaton.literal(text, index)

    def _separator(self, chars: frozenset[str], display: str) -> None:
        self._gap += display
        if not chars & self._previous_chars:
            self._separated = True

    def _value(self, chars: frozenset[str], part: _Expression, index: int) -> _Fragment:
        """Add a value capture; apply the product rule against the last one."""
        previous = self._previous
        if previous is not None and not self._separated and self._conflict is None:
            if self._gap:
                self._conflict = (
                    f"{previous.text} can itself contain {self._gap!r},"
                    f" the separator before {part.text}"
                )
            else:
                self._conflict = f"{previous.text} and {part.text} have no separator"
        self._previous, self._previous_chars = part, chars
        self._gap, self._separated = "", False
        return self._automaton.position(chars, index, star=True)

    def _describe(self, index: int) -> str:
        part = self.parts[index]
        return part.text if isinstance(part, _Expression) else f"literal {part!r}"
