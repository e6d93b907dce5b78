"""Tests for django_mcp._admin.playground: what a submission does before anything is sent.

Calls that reach the dispatcher are tested through the admin pages
(tests/test_admin.py).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import QueryDict

from django_mcp._admin.catalog import build_catalog
from django_mcp._admin.playground import Playground
from django_mcp.registry import Registry
from tests.playground import PlaygroundServer


def _playground(kind: str, name: str) -> Playground:
    source = Registry()
    source.web("playground", PlaygroundServer)
    (server,) = build_catalog(source)
    entry = next(entry for entry in server.of_kind(kind) if entry.name == name)
    return Playground(server, entry, AnonymousUser())


@pytest.mark.parametrize(
    ("kind", "name", "method"),
    [
        ("tool", "echo", "tools/call"),
        ("prompt", "haiku", "prompts/get"),
        ("resource", "readme", "resources/read"),
    ],
)
def test_each_kind_is_used_with_its_mcp_method(kind: str, name: str, method: str) -> None:
    assert _playground(kind, name).method == method


def test_a_destructive_tool_asks_for_confirmation_instead_of_calling() -> None:
    context = _playground("tool", "wipe-notes").submit(QueryDict("step=call"))

    assert context["confirm"] is True
    assert context["arguments_json"] == "{}"
    assert "outcome" not in context


@pytest.mark.parametrize(
    ("posted", "problem"),
    [
        ("send_json=1&raw_arguments=%5B1%5D", "The arguments must be a JSON object."),
        ("step=confirm&arguments=%7B", "The arguments are not valid JSON"),
        (
            "step=continue&arguments=%7B%7D&pending=%5B%5D",
            "The pending input requests must be a JSON object.",
        ),
    ],
)
def test_arguments_that_do_not_parse_are_refused_before_sending(posted: str, problem: str) -> None:
    context = _playground("tool", "echo").submit(QueryDict(posted))

    assert context["problem"].startswith(problem)
    assert "outcome" not in context
