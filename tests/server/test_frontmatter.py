"""SKILL.md frontmatter: YAML 1.2 core parsing and the Agent Skills field rules."""

from __future__ import annotations

from typing import Any

import pytest

from django_mcp.server import _frontmatter
from django_mcp.server._frontmatter import (
    FrontmatterError,
    YamlMissing,
    check_fields,
    parse_frontmatter,
    reserved_metadata_keys,
)

pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")


def doc(body: str) -> str:
    return f"---\n{body}\n---\n# Body\n"


def test_frontmatter_is_the_mapping_between_the_two_delimiter_lines() -> None:
    text = doc("name: pdf\ndescription: Fill PDF forms.\nlicense: MIT")

    assert parse_frontmatter(text) == {"name": "pdf", "description": "Fill PDF forms.", "license": "MIT"}


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted() -> None:
    text = "\ufeff---\r\nname: pdf\r\ndescription: d\r\n---   \r\nbody"

    assert parse_frontmatter(text) == {"name": "pdf", "description": "d"}


@pytest.mark.parametrize(
    "text",
    ["name: pdf\n", "# Title\n---\nname: pdf\n---\n", "--- \nname: pdf\n---\n", "---\nname: pdf\n"],
)
def test_a_file_without_a_leading_frontmatter_block_is_refused(text: str) -> None:
    with pytest.raises(FrontmatterError, match="must begin with YAML frontmatter"):
        parse_frontmatter(text)


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("yes", "yes"),
        ("on", "on"),
        ("2024-01-31", "2024-01-31"),
        ("1:20", "1:20"),
        ("010", 10),
        ("0o17", 15),
        ("0x1F", 31),
        ("-3", -3),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("true", True),
        ("False", False),
        ("~", None),
        ("null", None),
        ("", None),
        ("'0o17'", "0o17"),
    ],
)
def test_plain_scalars_follow_the_yaml_1_2_core_schema(scalar: str, value: Any) -> None:
    parsed = parse_frontmatter(doc(f"name: pdf\nx: {scalar}"))

    assert parsed["x"] == value
    assert type(parsed["x"]) is type(value)


def test_block_scalars_lists_and_nested_mappings_pass_through() -> None:
    text = doc("name: pdf\ndescription: >\n  Fill\n  forms.\ntags: [a, b]\nmetadata:\n  author: Ann")

    assert parse_frontmatter(text) == {
        "name": "pdf",
        "description": "Fill forms.\n",
        "tags": ["a", "b"],
        "metadata": {"author": "Ann"},
    }


def test_merge_keys_are_ordinary_keys_in_yaml_1_2() -> None:
    parsed = parse_frontmatter(doc("base: &b {a: 1}\nx:\n  <<: *b"))

    assert parsed["x"] == {"<<": {"a": 1}}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("name: a\nname: b", "duplicate key 'name'"),
        ("1: one", "keys must be strings"),
        ("true: yes", "keys must be strings"),
        ("x: !!binary aGk=", "is a bytes"),
        ("x: !!timestamp 2024-01-31", "is a date"),
        ("x: .inf", "JSON cannot carry"),
        ("x: .nan", "JSON cannot carry"),
        ("x: !!python/name:os.system", "not valid YAML"),
        ("x: [unclosed", "not valid YAML (line"),
    ],
)
def test_what_two_parsers_could_read_differently_is_refused(body: str, problem: str) -> None:
    with pytest.raises(FrontmatterError, match=problem.replace("(", r"\(")):
        parse_frontmatter(doc(body))


@pytest.mark.parametrize(
    ("text", "kind"), [(doc("- a\n- b"), "a list"), (doc("just text"), "a str"), ("---\n\n---\n", "empty")]
)
def test_frontmatter_that_is_not_a_mapping_is_refused(text: str, kind: str) -> None:
    with pytest.raises(FrontmatterError, match=f"must be a YAML mapping of fields, not {kind}$"):
        parse_frontmatter(text)


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(FrontmatterError, match="not valid YAML"):
        parse_frontmatter(doc("x: &a [*a]"))


def test_a_missing_yaml_parser_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise ImportError(name)

    _frontmatter._loader.cache_clear()
    monkeypatch.setattr(_frontmatter, "_import", missing)
    try:
        with pytest.raises(YamlMissing, match=r"django-mcp-toolkit\[skills\]"):
            parse_frontmatter(doc("name: pdf"))
    finally:
        monkeypatch.undo()
        _frontmatter._loader.cache_clear()


# ---------------------------------------------------------------- fields


def test_valid_fields_have_no_problems() -> None:
    frontmatter = {
        "name": "pdf-forms2",
        "description": "Fill PDF forms.",
        "license": "MIT",
        "compatibility": "Python 3.11",
        "metadata": {"author": "Ann"},
        "allowed-tools": "Read Grep",
        "future-field": [1, 2],
    }

    assert check_fields(frontmatter) == []


@pytest.mark.parametrize(
    "name", ["PDF", "-pdf", "pdf-", "pdf--forms", "pdf_forms", "a" * 65, "pdf forms", ""]
)
def test_names_breaking_the_agent_skills_rules_are_reported(name: str) -> None:
    problems = check_fields({"name": name, "description": "d"})

    assert len(problems) == 1
    assert "name" in problems[0]


def test_every_broken_field_is_reported() -> None:
    problems = check_fields(
        {
            "description": "x" * 1025,
            "license": 3,
            "allowed-tools": ["Read"],
            "compatibility": "y" * 501,
            "metadata": {"version": 1.0, "author": "Ann", "beta": True},
        }
    )

    assert problems == [
        "the frontmatter needs a name (a non-empty string)",
        "description is 1025 characters; at most 1024 are allowed",
        "license must be a string",
        "allowed-tools must be a string",
        "compatibility is 501 characters; at most 500 are allowed",
        "metadata values must be strings (quote them): 'beta', 'version'",
    ]


@pytest.mark.parametrize("description", [None, "", "   ", 5])
def test_a_missing_or_blank_description_is_reported(description: Any) -> None:
    assert check_fields({"name": "pdf", "description": description}) == [
        "the frontmatter needs a description (a non-empty string)"
    ]


def test_metadata_and_compatibility_must_have_their_types() -> None:
    assert check_fields({"name": "pdf", "description": "d", "metadata": ["a"], "compatibility": 2}) == [
        "compatibility must be a string",
        "metadata must be a mapping of strings to strings",
    ]


def test_reserved_metadata_keys_are_the_ones_under_the_mcp_prefix() -> None:
    frontmatter = {"metadata": {"io.modelcontextprotocol/x": "1", "io.modelcontextprotocol.skills/y": "2"}}

    assert reserved_metadata_keys(frontmatter) == ["io.modelcontextprotocol/x"]
    assert reserved_metadata_keys({"metadata": "none"}) == []
