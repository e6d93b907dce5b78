"""django_mcp.server._template_syntax: RFC 6570 §2 grammar, literals and expressions."""

from __future__ import annotations

import pytest

from django_mcp.server._template_syntax import Expression, TemplateError, tokenize


def _shape(parts: list[str | Expression]) -> list[object]:
    """Return literals as they are and each expression as (text, operator, specs, reserved)."""
    return [
        part
        if isinstance(part, str)
        else (
            part.text,
            part.operator.value,
            [(spec.name, spec.explode, spec.prefix) for spec in part.specs],
            part.reserved,
        )
        for part in parts
    ]


def test_a_template_splits_into_literals_and_expressions() -> None:
    assert _shape(tokenize("shelf://books/{id}{?q,page}")) == [
        "shelf://books/",
        ("{id}", "", [("id", False, None)], False),
        ("{?q,page}", "?", [("q", False, None), ("page", False, None)], False),
    ]


def test_modifiers_are_parsed_per_variable() -> None:
    assert _shape(tokenize("{/path*}{x:3}")) == [
        ("{/path*}", "/", [("path", True, None)], False),
        ("{x:3}", "", [("x", False, 3)], False),
    ]


@pytest.mark.parametrize(
    ("template", "reserved"), [("{+a}", True), ("{#a}", True), ("{.a}", False), ("{;a}", False)]
)
def test_only_plus_and_hash_keep_reserved_characters(template: str, reserved: bool) -> None:  # noqa: FBT001
    (expression,) = tokenize(template)
    assert isinstance(expression, Expression) and expression.reserved is reserved


def test_non_ascii_literals_come_back_pct_encoded() -> None:
    assert tokenize("café/") == ["caf%C3%A9/"]
    assert tokenize("a%2Fb") == ["a%2Fb"]


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("a}b", "unmatched '}' at position 1"),
        ("{a", "unclosed '{' at position 0"),
        ("a{b{c}", "unclosed '{' at position 1"),
        ("{}", "empty expression at position 0"),
        ("{=x}", "operator '=' in {=x} is reserved (RFC 6570 §2.2)"),
        ("{a b}", "invalid variable 'a b' in {a b}"),
        ("{x:0}", "prefix length '0' in {x:0} is not an integer from 1 to 9999"),
        ("{x:10000}", "prefix length '10000' in {x:10000} is not an integer from 1 to 9999"),
        ("a%zz", "'%' at position 1 does not start a pct-encoded triplet"),
        ("{x}%", "'%' at position 3 does not start a pct-encoded triplet"),
        ("a b", "character ' ' at position 1 is not allowed in a literal (RFC 6570 §2.1)"),
    ],
)
def test_what_the_grammar_refuses_is_a_template_error_saying_where(template: str, reason: str) -> None:
    with pytest.raises(TemplateError) as caught:
        tokenize(template)

    assert (caught.value.template, caught.value.reason) == (template, reason)
    assert str(caught.value) == f"URI template {template!r}: {reason}"
    assert isinstance(caught.value, ValueError)
