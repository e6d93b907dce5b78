"""Compile a URI template for inverse matching and prove the match unique.

``Compiler`` turns a tokenized template into an anchored regex with one
group per capture, and decides whether the template is *simple* (the rules
are stated in the ``django_mcp.server.templates`` docstring): every
expression must be invertible on its own, every value capture must be
separated from the previous one, and the template's Glushkov automaton
must be unambiguous, so that no URI has two parses.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Final

from django_mcp.server._template_syntax import PCT, RESERVED, UNRESERVED, Expression

__all__ = ["RESERVED_VALUE_CHARS", "Capture", "Compiler"]

_NAMED_QUERY_OPERATORS: Final = frozenset("?&")

# Characters a value capture can hold (a pct-encoded triplet is "%" followed
# by two hex digits, which are unreserved): unreserved for most operators,
# unreserved plus reserved for "+" and "#".
_VALUE_CHARS: Final = UNRESERVED | {"%"}
RESERVED_VALUE_CHARS: Final = _VALUE_CHARS | frozenset(RESERVED)
"""Characters a ``+``/``#`` value capture can hold: unreserved, reserved, ``%``."""

_VALUE_RE: Final = rf"((?:[A-Za-z0-9\-._~]|{PCT})*)"
_RESERVED_VALUE_RE: Final = rf"((?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|{PCT})*)"


@dataclass(frozen=True, slots=True)
class Capture:
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


_EMPTY_FRAGMENT: Final = _Fragment(nullable=True, first=frozenset(), last=frozenset())


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

    def position(self, chars: frozenset[str], owner: int, *, star: bool = False) -> _Fragment:
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


def _not_simple_reason(expression: Expression) -> str | None:
    """Return why an expression cannot be inverted on its own, or None."""
    for spec in expression.specs:
        if spec.explode:
            return f"{expression.text} explodes {spec.name!r}"
        if spec.prefix is not None:
            return f"{expression.text} truncates {spec.name!r} with a prefix"
    if len(expression.specs) > 1 and expression.operator.value not in _NAMED_QUERY_OPERATORS:
        # A list value would expand with raw commas/separators between
        # members, indistinguishable from the separators between variables.
        return f"{expression.text} lists several variables outside a query"
    return None


class Compiler:
    """Build the match regex of a template and check that it is simple.

    Two checks run: the separator rule against the previous capture, then
    the automaton check for any remaining double parse. The automaton sees
    a value as any run of its allowed characters, which can only add
    parses, so it errs on the side of refusing.

    Call ``run()`` once. When it returns None, ``"".join(pattern)`` is the
    regex to full-match a URI against and ``captures`` says which of its
    groups hold which variable.
    """

    def __init__(self, parts: list[str | Expression]) -> None:
        self.parts = parts
        self.pattern: list[str] = []
        self.captures: list[Capture] = []
        self._automaton = _Automaton()
        self._whole = _EMPTY_FRAGMENT
        self._groups = 0
        self._previous: Expression | None = None
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

    def _expression(self, part: Expression, index: int) -> _Fragment:
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
            value = automaton.then(self._literal("=", index), self._value(_VALUE_CHARS, part, index))
            item = automaton.then(head, automaton.optional(value))
            return automaton.optional(item)
        reserved = part.reserved
        self._group(name, reserved=reserved)
        value_re = _RESERVED_VALUE_RE if reserved else _VALUE_RE
        chars = RESERVED_VALUE_CHARS if reserved else _VALUE_CHARS
        if not op or op == "+":
            self.pattern.append(value_re)
            return self._value(chars, part, index)
        # "#", "." and "/": a lead-in character, then the value.
        self.pattern.append(f"(?:{re.escape(op)}{value_re})?")
        head = self._literal(op, index)
        return automaton.optional(automaton.then(head, self._value(chars, part, index)))

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
            self.captures.append(Capture(name, self._groups, marker_group, reserved))
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

    def _value(self, chars: frozenset[str], part: Expression, index: int) -> _Fragment:
        """Add a value capture; apply the product rule against the last one."""
        previous = self._previous
        if previous is not None and not self._separated and self._conflict is None:
            if self._gap:
                self._conflict = (
                    f"{previous.text} can itself contain {self._gap!r}, the separator before {part.text}"
                )
            else:
                self._conflict = f"{previous.text} and {part.text} have no separator"
        self._previous, self._previous_chars = part, chars
        self._gap, self._separated = "", False
        return self._automaton.position(chars, index, star=True)

    def _describe(self, index: int) -> str:
        part = self.parts[index]
        return part.text if isinstance(part, Expression) else f"literal {part!r}"
