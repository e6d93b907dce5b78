"""Tests for django_mcp.field_errors: the one result listing every field's problems."""

from __future__ import annotations

import pytest
from django.utils.translation import gettext_lazy

from django_mcp import field_errors as module
from django_mcp.field_errors import INVALID_ARGUMENTS, field_errors, field_errors_result
from django_mcp.protocol.content import TextContent


def test_field_errors_groups_pairs_by_path_in_first_seen_order() -> None:
    pairs = [("b", "one"), ("", "whole"), ("b", "two"), ("a", "three")]

    assert field_errors(pairs) == {"b": ["one", "two"], "": ["whole"], "a": ["three"]}
    assert list(field_errors(pairs)) == ["b", "", "a"]


def test_the_result_is_an_error_with_one_line_per_problem_and_the_errors_object() -> None:
    response = field_errors_result({"name": ["too short", "not a word"], "age": ["required"]})

    assert response.is_error is True
    assert response.content == (
        TextContent(text="Invalid tool arguments:\n- name: too short\n- name: not a word\n- age: required"),
    )
    assert response.structured_content == {
        "errors": {"name": ["too short", "not a word"], "age": ["required"]}
    }


def test_a_problem_of_the_whole_input_is_a_line_without_a_path() -> None:
    response = field_errors_result({"": ["dates overlap"]}, prefix="Invalid form:")

    assert response.content == (TextContent(text="Invalid form:\n- dates overlap"),)
    assert response.structured_content == {"errors": {"": ["dates overlap"]}}


def test_lazy_translations_become_strings_and_empty_paths_are_left_out() -> None:
    response = field_errors_result({"title": [gettext_lazy("This field is required.")], "body": []})

    assert response.structured_content == {"errors": {"title": ["This field is required."]}}
    assert type(response.structured_content["errors"]["title"][0]) is str


def test_no_problem_at_all_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        field_errors_result({"a": []})


def test_the_errors_object_of_a_built_result_is_read_only() -> None:
    response = field_errors_result({"a": ["bad"]})

    with pytest.raises(TypeError):
        response.structured_content["errors"]["a"].append("worse")


def test_public_surface_is_pinned_and_documented() -> None:
    assert module.__all__ == ["INVALID_ARGUMENTS", "field_errors", "field_errors_result"]
    assert INVALID_ARGUMENTS == "Invalid tool arguments:"
    assert module.__doc__ and field_errors.__doc__ and field_errors_result.__doc__
