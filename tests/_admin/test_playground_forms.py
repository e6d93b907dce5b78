"""Tests for django_mcp._admin.playground_forms: input requests as forms, posted answers read back."""

from __future__ import annotations

from django.http import QueryDict

from django_mcp._admin.playground_forms import input_answers, input_forms, json_object


def test_input_requests_become_forms_by_kind() -> None:
    pending = {
        "who": {
            "method": "elicitation/create",
            "params": {
                "message": "Name?",
                "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
            },
        },
        "site": {
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "Go", "url": "https://x.test/"},
        },
        "llm": {"method": "sampling/createMessage", "params": {"maxTokens": 5}},
    }

    forms = input_forms(pending)
    again = input_forms(pending, data=QueryDict("input.who.n=Ada&action.who=decline&input.llm.json=%7B%7D"))

    assert [(f["key"], f["kind"]) for f in forms] == [("who", "form"), ("site", "url"), ("llm", "json")]
    assert forms[0]["fields"][0].html_name == "input.who.n"
    assert forms[1]["url"] == "https://x.test/"
    assert '"model": "playground"' in forms[2]["value"]
    assert again[0]["fields"][0].value == "Ada"
    assert again[0]["action"] == "decline"
    assert again[2]["value"] == "{}"


def test_posted_answers_become_input_responses_and_bad_json_an_error() -> None:
    pending = {
        "who": {
            "method": "elicitation/create",
            "params": {"requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}},
        },
        "llm": {"method": "sampling/createMessage", "params": {}},
    }

    answers, errors = input_answers(pending, QueryDict("input.who.n=Ada&input.llm.json=%7B%22a%22%3A1%7D"))
    _, refused = input_answers(pending, QueryDict("action.who=decline&input.llm.json=%7B"))

    assert answers == {"who": {"action": "accept", "content": {"n": "Ada"}}, "llm": {"a": 1}}
    assert errors == {}
    assert list(refused) == ["llm.json"]


def test_json_object_reads_an_object_and_names_any_other_value() -> None:
    assert json_object('{"a": 1}', "arguments") == ({"a": 1}, "")
    assert json_object("", "arguments") == ({}, "")
    assert json_object("[1]", "arguments") == ({}, "The arguments must be a JSON object.")
    assert json_object("{", "pending input requests")[1].startswith(
        "The pending input requests are not valid JSON"
    )
