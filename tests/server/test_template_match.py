"""django_mcp.server._template_match: the match regex of a template, and which templates are simple."""

from __future__ import annotations

import re

import pytest

from django_mcp.server._template_match import Capture, Compiler
from django_mcp.server._template_syntax import tokenize


def compiled(template: str) -> Compiler:
    compiler = Compiler(tokenize(template))
    assert compiler.run() is None
    return compiler


def groups(template: str, uri: str) -> dict[str, str | None] | None:
    """Return each capture's raw group on a full match of ``uri``, or None."""
    compiler = compiled(template)
    found = re.fullmatch("".join(compiler.pattern), uri)
    return None if found is None else {c.name: found.group(c.group) for c in compiler.captures}


def test_a_simple_value_captures_unreserved_characters_and_triplets_only() -> None:
    assert groups("items://{id}", "items://a-1.b_%2F") == {"id": "a-1.b_%2F"}
    assert groups("items://{id}", "items://a/b") is None
    assert compiled("items://{id}").captures == [Capture("id", 1, None, reserved=False)]


def test_a_reserved_value_also_captures_reserved_characters() -> None:
    assert groups("files:///{+path}", "files:///docs/a b") is None
    assert groups("files:///{+path}", "files:///docs/a,b;c") == {"path": "docs/a,b;c"}
    assert compiled("files:///{+path}").captures == [Capture("path", 1, None, reserved=True)]


def test_query_variables_are_optional_and_taken_in_order() -> None:
    template = "shelf://books{?q,page}"

    assert groups(template, "shelf://books?q=kin&page=2") == {"q": "kin", "page": "2"}
    assert groups(template, "shelf://books?page=2") == {"q": None, "page": "2"}
    assert groups(template, "shelf://books") == {"q": None, "page": None}


def test_a_path_parameter_has_a_marker_group_telling_empty_from_absent() -> None:
    compiler = compiled("m{;v}")
    pattern = "".join(compiler.pattern)

    assert compiler.captures == [Capture("v", 2, marker_group=1, reserved=False)]
    assert re.fullmatch(pattern, "m;v").groups() == (";v", None)  # type: ignore[union-attr]
    assert re.fullmatch(pattern, "m;v=x").groups() == (";v", "x")  # type: ignore[union-attr]
    assert re.fullmatch(pattern, "m").groups() == (None, None)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("{x*}", "{x*} explodes 'x'"),
        ("{x:3}", "{x:3} truncates 'x' with a prefix"),
        ("{a,b}", "{a,b} lists several variables outside a query"),
        ("{a}{b}", "{a} and {b} have no separator"),
        ("{a}.{b}", "{a} can itself contain '.', the separator before {b}"),
        ("{+a}/{b}", "{+a} can itself contain '/', the separator before {b}"),
        ("a{/b}{/c}", "{/b}, {/c} can split the same URI in more than one way"),
    ],
)
def test_a_template_that_cannot_be_matched_one_way_says_why(template: str, reason: str) -> None:
    assert Compiler(tokenize(template)).run() == reason


@pytest.mark.parametrize("template", ["a/{b}/{c}", "{a}/{b}.json", "{a}/{+b}", "x{#frag}"])
def test_values_separated_by_a_character_they_cannot_hold_are_simple(template: str) -> None:
    assert Compiler(tokenize(template)).run() is None
