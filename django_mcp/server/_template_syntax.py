"""RFC 6570 template syntax: validate a template and split it into parts.

``tokenize`` checks a template against the RFC 6570 §2 grammar and returns
its literals (non-ASCII characters pct-encoded, §3.1) and its parsed
``{...}`` expressions; anything the grammar refuses raises
``TemplateError``. The character classes and patterns that expansion and
matching share are defined here as well.
"""

from __future__ import annotations

import re
import string
import urllib.parse
from dataclasses import dataclass
from typing import Final

from uritemplate.variable import Operator, URIVariable

__all__ = [
    "BARE_PERCENT",
    "PCT",
    "RESERVED",
    "UNRESERVED",
    "Expression",
    "TemplateError",
    "VarSpec",
    "tokenize",
]

UNRESERVED: Final = frozenset(string.ascii_letters + string.digits + "-._~")
"""RFC 3986 ``unreserved`` characters: never encoded by any operator."""
RESERVED: Final = ":/?#[]@!$&'()*+,;="
"""RFC 3986 ``reserved`` characters: kept as-is by ``+`` and ``#`` only."""
PCT: Final = "%[0-9A-Fa-f]{2}"
"""Regex source of one pct-encoded triplet."""
BARE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
"""A ``%`` that does not start a pct-encoded triplet."""

_RESERVED_OPERATORS: Final = frozenset("+#")
# RFC 6570 §2.2: op-reserve, kept for future extensions.
_FUTURE_OPERATORS: Final = frozenset("=,!@|")
_OPERATOR_CHARS: Final = frozenset("+#./;?&")

_VARCHAR: Final = rf"(?:[A-Za-z0-9_]|{PCT})"
_VARSPEC: Final = re.compile(
    rf"(?P<name>{_VARCHAR}(?:\.?{_VARCHAR})*)(?::(?P<prefix>[0-9]+)|(?P<explode>\*))?"
)
_PREFIX_DIGITS: Final = re.compile(r"[1-9][0-9]{0,3}")

# RFC 6570 §2.1 "literals", ASCII part; "%" is allowed only as a triplet.
_LITERAL_ASCII: Final = frozenset(
    chr(code)
    for low, high in (
        (0x21, 0x21),
        (0x23, 0x24),
        (0x25, 0x25),
        (0x26, 0x26),
        (0x28, 0x3B),
        (0x3D, 0x3D),
        (0x3F, 0x5B),
        (0x5D, 0x5D),
        (0x5F, 0x5F),
        (0x61, 0x7A),
        (0x7E, 0x7E),
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
class VarSpec:
    """One variable of an expression, with its modifier."""

    name: str
    explode: bool
    prefix: int | None
    # uritemplate expander for this variable alone and without its prefix:
    # the prefix is applied here, before encoding (RFC 6570 §2.4.1).
    expander: URIVariable


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed ``{...}`` expression."""

    text: str
    operator: Operator
    specs: tuple[VarSpec, ...]

    @property
    def reserved(self) -> bool:
        """Return whether the operator keeps reserved characters."""
        return self.operator.value in _RESERVED_OPERATORS


def _parse_literal(template: str, start: int, text: str) -> str:
    """Validate a literal run and return it with non-ASCII pct-encoded."""
    bare = BARE_PERCENT.search(text)
    if bare is not None:
        where = start + bare.start()
        raise TemplateError(template, f"'%' at position {where} does not start a pct-encoded triplet")
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
        return 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFDCF or 0xFDF0 <= code <= 0xFFEF
    # Planes 1-16 except each plane's last two code points and U+E0000-E0FFF.
    return (code & 0xFFFF) <= 0xFFFD and not 0xE0000 <= code <= 0xE0FFF


def _parse_expression(template: str, body: str) -> Expression:
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
        VarSpec(
            name=name,
            explode=options["explode"],
            prefix=options["prefix"],
            expander=URIVariable(op_value + name + ("*" if options["explode"] else "")),
        )
        for name, options in parsed.variables
    )
    return Expression(text=text, operator=parsed.operator, specs=specs)


def tokenize(template: str) -> list[str | Expression]:
    """Split a template into normalized literals and parsed expressions.

    Literals come back with non-ASCII characters pct-encoded, ready to be
    copied into an expansion.

    Raises:
        TemplateError: the template breaks the RFC 6570 §2 grammar.
    """
    parts: list[str | Expression] = []
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
