"""Tests for django_mcp.server._declarations: what every component declaration is checked for."""

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpResponse, Prompt, Resource, Server, Tool
from django_mcp.protocol._base import UNSET
from django_mcp.server._declarations import default_name
from django_mcp.server.compiler import compile_server
from tests.server.declaring import (
    SomeTool,
    refused,
    server_with,
    tool,
)

# -- names and descriptions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls_name", "suffix", "expected"),
    [
        ("OrderSummaryTool", "Tool", "order-summary"),
        ("ExplainPrompt", "Prompt", "explain"),
        ("UserResource", "Resource", "user"),
        ("HTTPStatusTool", "Tool", "http-status"),
        ("Lookup", "Tool", "lookup"),
    ],
)
def test_default_name_is_the_kebab_case_class_name_without_its_suffix(
    cls_name: str, suffix: str, expected: str
) -> None:
    assert default_name(type(cls_name, (), {}), suffix) == expected


def test_components_get_default_names_unless_they_declare_one() -> None:
    summary = tool(cls_name="OrderSummaryTool")
    named = tool("explicit-name", cls_name="OtherTool")
    explain = type("ExplainPrompt", (Prompt,), {"handle": lambda self: McpResponse.text("x")})
    compiled = compile_server(server_with(tools=[summary, named], prompts=[explain]))
    assert list(compiled.tools) == ["order-summary", "explicit-name"]
    assert list(compiled.prompts) == ["explain"]


def test_docstring_becomes_the_description_unless_one_is_declared() -> None:
    class DocumentedTool(Tool):
        """Return the order.

        In full.
        """

        def handle(self) -> McpResponse:
            return McpResponse.text("x")

    class DescribedTool(DocumentedTool):
        """Ignored docstring."""

        description = "Declared."

    class UndocumentedTool(DocumentedTool):
        pass

    compiled = compile_server(server_with(tools=[DocumentedTool, DescribedTool, UndocumentedTool]))
    assert compiled.tools["documented"].definition.description == "Return the order.\n\nIn full."
    assert compiled.tools["described"].definition.description == "Declared."
    assert compiled.tools["undocumented"].definition.description is UNSET


@pytest.mark.parametrize("name", ["bad name", "café", "x/y", "a:b", "a" * 129])
def test_tool_names_with_invalid_characters_are_refused(name: str) -> None:
    bad = tool(name)
    refused(server_with(tools=[bad]), bad)


@pytest.mark.parametrize("name", ["a", "a.b_c-D9", "a" * 128])
def test_tool_names_of_letters_digits_dot_underscore_and_dash_are_accepted(name: str) -> None:
    assert list(compile_server(server_with(tools=[tool(name)])).tools) == [name]


def test_prompt_names_with_invalid_characters_are_refused() -> None:
    bad = type("BadPrompt", (Prompt,), {"name": "bad name", "handle": lambda self: McpResponse.text("x")})
    refused(server_with(prompts=[bad]), bad)


def test_component_metadata_cannot_use_reserved_protocol_keys() -> None:
    bad = tool("t", meta={"io.modelcontextprotocol/serverInfo": {"name": "fake"}})
    refused(server_with(tools=[bad]), bad)


# ------------------------------------------------------------- misspellings


@pytest.mark.parametrize(
    ("attribute", "suggestion"),
    [("tool", "tools"), ("resource", "resources"), ("prompt", "prompts"), ("instruction", "instructions")],
)
def test_a_misspelt_server_attribute_is_refused_with_a_suggestion(attribute: str, suggestion: str) -> None:
    server = type("TypoServer", (Server,), {"name": "typo", attribute: (SomeTool,)})

    with pytest.raises(ImproperlyConfigured, match=f"TypoServer.{attribute} .*did you mean '{suggestion}'"):
        compile_server(server)


@pytest.mark.parametrize(
    ("base", "attribute", "value", "suggestion"),
    [
        (Resource, "mimetype", "text/plain", "mime_type"),
        (Resource, "uri_templates", "demo://{id}", "uri_template"),
        (Tool, "annotation", None, "annotations"),
        (Tool, "permission", ("app.x",), "permissions"),
        (Prompt, "argument", (), "arguments"),
    ],
)
def test_a_misspelt_component_attribute_is_refused(
    base: type, attribute: str, value: Any, suggestion: str
) -> None:
    attributes: dict[str, Any] = {attribute: value, "handle": lambda self: McpResponse.text("x")}
    if base is Resource:
        attributes["uri"] = "demo://x"
    component = type("TypoComponent", (base,), attributes)
    key = {Tool: "tools", Resource: "resources", Prompt: "prompts"}[base]
    server = type("TypoServer", (Server,), {"name": "typo", key: (component,)})

    with pytest.raises(ImproperlyConfigured, match=f"did you mean '{suggestion}'"):
        compile_server(server)


def test_own_attributes_and_helper_methods_are_not_flagged() -> None:
    class HelperTool(Tool):
        """Uses its own constants and helpers."""

        retries = 3
        endpoint_url = "https://example.com"

        def handled(self) -> str:  # a helper, close to handle() but a method
            return "x"

        def handle(self) -> McpResponse:
            return McpResponse.text(self.handled())

    class OwnServer(Server):
        name = "own"
        tools = (HelperTool,)
        owner_team = "search"

    assert "helper" in compile_server(OwnServer).tools
