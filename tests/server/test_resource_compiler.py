"""Tests for django_mcp.server._resource_compiler: fixed URIs, URI templates and their handlers."""

from typing import Any

import pytest

from django_mcp import McpResponse, Resource
from django_mcp.server.compiler import compile_server
from tests.server.declaring import (
    refused,
    server_with,
)


def test_resource_handler_parameters_must_be_template_variables() -> None:
    bad = type(
        "BadResource",
        (Resource,),
        {"uri_template": "demo://users/{user_id}", "handle": lambda self, account_id: McpResponse.text("x")},
    )
    refused(server_with(resources=[bad]), bad)


# -- resources -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attrs",
    [{}, {"uri": "demo://x", "uri_template": "demo://{x}"}],
    ids=["neither", "both"],
)
def test_resource_declares_exactly_one_of_uri_and_uri_template(attrs: dict[str, str]) -> None:
    bad = type("BadResource", (Resource,), {**attrs, "handle": lambda self: McpResponse.text("x")})
    refused(server_with(resources=[bad]), bad)


def test_resource_uri_must_be_absolute() -> None:
    bad = type(
        "RelativeResource", (Resource,), {"uri": "users/42", "handle": lambda self: McpResponse.text("x")}
    )
    refused(server_with(resources=[bad]), bad)


@pytest.mark.parametrize(
    "template",
    ["demo://users/{user_id", "demo://users/{}", "demo://users/{user id}", "demo://{a}{b}"],
    ids=["unclosed", "empty", "bad-variable", "ambiguous-without-match"],
)
def test_bad_uri_templates_are_refused(template: str) -> None:
    bad = type(
        "BadTemplate", (Resource,), {"uri_template": template, "handle": lambda self: McpResponse.text("x")}
    )
    refused(server_with(resources=[bad]), bad)


def test_an_ambiguous_template_compiles_with_a_synchronous_match_method() -> None:
    class PairResource(Resource):
        uri_template = "demo://{a}{b}"

        @staticmethod
        def match(uri: str) -> dict[str, str] | None:
            return None

        def handle(self, a: str, b: str) -> McpResponse:
            return McpResponse.text(a + b)

    assert list(compile_server(server_with(resources=[PairResource])).templates) == ["demo://{a}{b}"]


@pytest.mark.parametrize("kind", ["async", "instance"])
def test_match_must_be_a_synchronous_static_or_class_method(kind: str) -> None:
    if kind == "async":

        async def match_async(uri: str) -> None:
            return None

        match: Any = staticmethod(match_async)
    else:

        def match(self: Any, uri: str) -> None:
            return None

    bad = type(
        "BadMatchResource",
        (Resource,),
        {"uri_template": "demo://{a}{b}", "match": match, "handle": lambda self, a, b: McpResponse.text("x")},
    )
    refused(server_with(resources=[bad]), bad)
