"""Tests for django_mcp.server.compiler: validated, immutable catalogs."""

import dataclasses
import importlib.util
from typing import Any

import msgspec
import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpRequest, McpResponse, Prompt, PromptArgument, Resource, Server, Tool
from django_mcp.protocol._base import UNSET
from django_mcp.schemas import Schema
from django_mcp.server import compiler
from django_mcp.server.compiler import compile_server, default_name


class LookupInput(Schema):
    order_id: int


class LookupOutput(Schema):
    order_id: int
    status: str


def server_with(**members: Any) -> type[Server]:
    return type("CatalogServer", (Server,), {k: tuple(v) for k, v in members.items()})


def refused(server: type[Server], *culprits: type[Any]) -> str:
    """Assert compiling ``server`` is refused naming each culprit; return the message."""
    with pytest.raises(ImproperlyConfigured) as excinfo:
        compile_server(server)
    message = str(excinfo.value)
    for culprit in culprits:
        assert culprit.__qualname__ in message
    return message


def tool(name: str | None = None, **attrs: Any) -> type[Tool]:
    attrs.setdefault("handle", lambda self: McpResponse.text("x"))
    if name is not None:
        attrs["name"] = name
    return type(attrs.pop("cls_name", "SomeTool"), (Tool,), attrs)


# -- the compiled catalog ----------------------------------------------------------------


def test_compile_server_builds_each_server_once_and_returns_the_same_catalog(monkeypatch: Any) -> None:
    built: list[type[Server]] = []
    real = compiler._compile
    monkeypatch.setattr(compiler, "_compile", lambda server: built.append(server) or real(server))
    server = server_with(tools=[tool("a")])

    first = compile_server(server)
    assert compile_server(server) is first
    assert server.compiled() is first
    assert built == [server]


@pytest.mark.parametrize("mapping", ["tools", "resources", "templates", "prompts"])
def test_compiled_mappings_are_immutable(mapping: str) -> None:
    compiled = compile_server(server_with(tools=[tool("a")]))
    with pytest.raises(TypeError):
        getattr(compiled, mapping)["x"] = None


def test_compiled_server_cannot_be_changed() -> None:
    compiled = compile_server(server_with(tools=[tool("a")]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        compiled.tools = {}  # type: ignore[misc]


def test_compile_server_refuses_something_that_is_not_a_server() -> None:
    with pytest.raises(ImproperlyConfigured):
        compile_server(tool("a"))  # type: ignore[arg-type]


def test_server_members_must_be_component_classes() -> None:
    prompt = type("StrayPrompt", (Prompt,), {"handle": lambda self: McpResponse.text("x")})
    refused(server_with(tools=[prompt]), prompt)


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


def test_duplicate_tool_names_are_refused_naming_both_classes() -> None:
    first = tool("same", cls_name="FirstTool")
    second = tool("same", cls_name="SecondTool")
    refused(server_with(tools=[first, second]), first, second)


def test_duplicate_prompt_names_are_refused_naming_both_classes() -> None:
    first = type("FirstPrompt", (Prompt,), {"name": "p", "handle": lambda self: McpResponse.text("x")})
    second = type("SecondPrompt", (Prompt,), {"name": "p", "handle": lambda self: McpResponse.text("x")})
    refused(server_with(prompts=[first, second]), first, second)


def test_duplicate_resource_uris_are_refused_naming_both_classes() -> None:
    first = type(
        "FirstResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    second = type(
        "SecondResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    refused(server_with(resources=[first, second]), first, second)


def test_component_metadata_cannot_use_reserved_protocol_keys() -> None:
    bad = tool("t", meta={"io.modelcontextprotocol/serverInfo": {"name": "fake"}})
    refused(server_with(tools=[bad]), bad)


# -- handlers -------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [Tool, Resource, Prompt])
def test_a_component_without_handle_is_refused(base: type[Any]) -> None:
    attrs = {"uri": "demo://x"} if base is Resource else {}
    bad = type("NoHandle", (base,), attrs)
    members = {Tool: "tools", Resource: "resources", Prompt: "prompts"}[base]
    refused(server_with(**{members: [bad]}), bad)


def test_tool_without_input_cannot_take_a_payload_parameter() -> None:
    bad = tool("t", handle=lambda self, payload: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


def test_tool_with_input_takes_one_payload_parameter_only() -> None:
    def handle(self: Any, payload: LookupInput, extra: str) -> McpResponse:
        return McpResponse.text("x")

    bad = tool("t", input=LookupInput, handle=handle)
    refused(server_with(tools=[bad]), bad)


def test_handler_may_take_the_request_beside_its_payload() -> None:
    def handle(self: Any, payload: LookupInput, request: McpRequest) -> McpResponse:
        return McpResponse.text("x")

    compiled = compile_server(server_with(tools=[tool("t", input=LookupInput, handle=handle)]))
    assert dict(compiled.tools["t"].handler.sources) == {"payload": "payload", "request": "request"}


def test_resource_handler_parameters_must_be_template_variables() -> None:
    bad = type(
        "BadResource",
        (Resource,),
        {"uri_template": "demo://users/{user_id}", "handle": lambda self, account_id: McpResponse.text("x")},
    )
    refused(server_with(resources=[bad]), bad)


def test_prompt_handler_parameters_must_be_declared_arguments() -> None:
    bad = type(
        "BadPrompt",
        (Prompt,),
        {"arguments": (PromptArgument(name="topic"),), "handle": lambda self, subject: McpResponse.text("x")},
    )
    refused(server_with(prompts=[bad]), bad)


def test_handlers_may_not_spread_arguments() -> None:
    bad = tool("t", input=LookupInput, handle=lambda self, *args, **kwargs: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


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


def test_fixed_resources_and_templates_are_kept_apart() -> None:
    fixed = type(
        "FixedResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    templated = type(
        "UserResource",
        (Resource,),
        {"uri_template": "demo://users/{user_id}", "handle": lambda self, user_id: McpResponse.text(user_id)},
    )
    compiled = compile_server(server_with(resources=[fixed, templated]))
    assert list(compiled.resources) == ["demo://x"]
    assert list(compiled.templates) == ["demo://users/{user_id}"]


# -- tool schemas ----------------------------------------------------------------------------


def test_tool_without_input_takes_an_empty_object() -> None:
    compiled = compile_server(server_with(tools=[tool("t")]))
    definition = compiled.tools["t"].definition
    assert definition.input_schema == {"type": "object", "additionalProperties": False}
    assert definition.output_schema is UNSET


class PlainStruct(msgspec.Struct):
    order_id: int


@dataclasses.dataclass
class PlainDataclass:
    order_id: int


@pytest.mark.parametrize(
    "input_type",
    [int, PlainStruct, PlainDataclass, {"type": "string"}, "LookupInput"],
    ids=["int", "struct", "dataclass", "non-object-dict", "str"],
)
def test_tool_input_must_be_a_schema(input_type: Any) -> None:
    bad = tool("t", input=input_type, handle=lambda self, payload: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


def test_single_argument_generic_declares_input_without_output() -> None:
    class FindOrderTool(Tool[LookupInput]):
        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    entry = compile_server(server_with(tools=[FindOrderTool])).tools["find-order"]
    assert (entry.input_type, entry.output_type) == (LookupInput, None)
    assert entry.definition.input_schema == LookupInput.json_schema()
    assert entry.definition.output_schema is UNSET


def test_two_argument_generic_declares_input_and_output() -> None:
    class OrderTool(Tool[LookupInput, LookupOutput]):
        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    entry = compile_server(server_with(tools=[OrderTool])).tools["order"]
    assert (entry.input_type, entry.output_type) == (LookupInput, LookupOutput)
    assert entry.definition.input_schema == LookupInput.json_schema()
    assert entry.definition.output_schema == LookupOutput.json_schema()


def test_explicit_input_and_output_attributes_equal_the_generic_form() -> None:
    class GenericTool(Tool[LookupInput, LookupOutput]):
        name = "order"

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    class AttributeTool(Tool):
        name = "order"
        input = LookupInput
        output = LookupOutput

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    generic = compile_server(server_with(tools=[GenericTool])).tools["order"]
    attribute = compile_server(server_with(tools=[AttributeTool])).tools["order"]
    assert attribute.definition == generic.definition
    assert (attribute.input_type, attribute.output_type) == (generic.input_type, generic.output_type)


def test_input_attribute_overrides_the_generic_argument() -> None:
    class OverrideTool(Tool[LookupOutput]):
        input = LookupInput

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    assert compile_server(server_with(tools=[OverrideTool])).tools["override"].input_type is LookupInput


# --- x-mcp-header annotations are validated at compile time ---


def _header_tool(schema: dict) -> type:  # type: ignore[type-arg]
    from django_mcp import McpResponse, Tool

    class HeaderTool(Tool):
        input = schema

        def handle(self, payload: dict) -> McpResponse:  # type: ignore[type-arg]
            return McpResponse.text("ok")

    return HeaderTool


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}},
        {"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "Amount"}}},
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "region"},
            },
        },
        {
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "B"}}}
            },
        },
        {"type": "object", "$defs": {"x": {"type": "string", "x-mcp-header": "X"}}},
    ],
    ids=["not-a-token", "number-property", "duplicate", "nested", "under-defs"],
)
def test_invalid_x_mcp_header_annotations_are_refused_at_compile_time(schema: dict) -> None:  # type: ignore[type-arg]
    from django.core.exceptions import ImproperlyConfigured

    from django_mcp import Server
    from django_mcp.server.compiler import compile_server

    class HeaderServer(Server):
        tools = (_header_tool(schema),)

    with pytest.raises(ImproperlyConfigured, match="x-mcp-header"):
        compile_server(HeaderServer)


@pytest.mark.skipif(importlib.util.find_spec("jsonschema") is None, reason="needs the jsonschema extra")
def test_valid_x_mcp_header_annotation_compiles() -> None:
    from django_mcp import Server
    from django_mcp.server.compiler import compile_server

    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}

    class HeaderServer(Server):
        tools = (_header_tool(schema),)

    assert compile_server(HeaderServer).tools["header"].definition.input_schema == schema


@pytest.mark.skipif(importlib.util.find_spec("jsonschema") is None, reason="needs the jsonschema extra")
def test_only_tools_mirroring_arguments_into_headers_have_header_maps() -> None:
    # A tools/call then tells at once that no header needs checking, whatever
    # the catalog's size.
    from django_mcp import Server
    from django_mcp.server.compiler import compile_server

    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}

    class HeaderServer(Server):
        tools = (_header_tool(schema), _SomeTool)

    class PlainServer(Server):
        tools = (_SomeTool,)

    assert dict(compile_server(HeaderServer).tool_headers) == {"header": {"region": ("region", "string")}}
    assert dict(compile_server(PlainServer).tool_headers) == {}


# ------------------------------------------------------------- misspellings


class _SomeTool(Tool):
    """A tool."""

    def handle(self) -> McpResponse:
        return McpResponse.text("ok")


@pytest.mark.parametrize(
    ("attribute", "suggestion"),
    [("tool", "tools"), ("resource", "resources"), ("prompt", "prompts"), ("instruction", "instructions")],
)
def test_a_misspelt_server_attribute_is_refused_with_a_suggestion(attribute: str, suggestion: str) -> None:
    server = type("TypoServer", (Server,), {"name": "typo", attribute: (_SomeTool,)})

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


# ------------------------------------------------------------ task support


class ReportTool(Tool):
    name = "report"
    task = "optional"

    def use_task(self, request: McpRequest) -> bool:
        return True

    def prepare(self) -> None:
        return None

    def handle(self) -> McpResponse:
        return McpResponse.text("report")


def test_task_support_is_compiled_and_advertised_as_the_extension() -> None:
    compiled = compile_server(server_with(tools=[ReportTool]))

    entry = compiled.tools["report"]
    assert entry.task == "optional"
    assert (entry.prepare.name, entry.use_task.name) == ("prepare", "use_task")  # type: ignore[union-attr]
    assert compiled.capabilities.extensions == {"io.modelcontextprotocol/tasks": {"revision": "1"}}
    assert compiled.legacy_capabilities.extensions is UNSET
    assert "execution" not in msgspec.json.decode(msgspec.json.encode(entry.definition))


@pytest.mark.parametrize("value", ["always", True, "Optional"])
def test_an_unknown_task_declaration_is_refused(value: Any) -> None:
    tool = type("OddTool", (Tool,), {"task": value, "handle": lambda self: McpResponse.text("x")})

    message = refused(server_with(tools=[tool]), tool)
    assert "task must be None, 'optional' or 'required'" in message


@pytest.mark.parametrize("method", ["prepare", "use_task"])
def test_task_hooks_without_task_support_are_refused(method: str) -> None:
    tool = type(
        "HookTool", (Tool,), {method: lambda self: None, "handle": lambda self: McpResponse.text("x")}
    )

    message = refused(server_with(tools=[tool]), tool)
    assert f"defines {method}() but no task support" in message


def test_use_task_on_a_required_task_tool_is_refused() -> None:
    tool = type(
        "AlwaysTool",
        (Tool,),
        {"task": "required", "use_task": lambda self: True, "handle": lambda self: McpResponse.text("x")},
    )

    assert "use_task() is never called" in refused(server_with(tools=[tool]), tool)


def test_task_hooks_take_the_parameters_handle_may() -> None:
    tool = type(
        "GreedyTool",
        (Tool,),
        {
            "task": "optional",
            "prepare": lambda self, other: None,
            "handle": lambda self: McpResponse.text("x"),
        },
    )

    assert "prepare() parameter 'other' cannot be supplied" in refused(server_with(tools=[tool]), tool)


def test_task_retries_are_compiled_for_a_task_tool() -> None:
    tool = type(
        "RetriedTool",
        (Tool,),
        {"task": "optional", "task_retries": 2, "handle": lambda self: McpResponse.text("x")},
    )

    assert compile_server(server_with(tools=[tool])).tools["retried"].task_retries == 2
    assert compile_server(server_with(tools=[ReportTool])).tools["report"].task_retries == 0


@pytest.mark.parametrize(
    ("task", "retries", "problem"),
    [
        ("optional", -1, "task_retries must be a non-negative int"),
        ("optional", True, "task_retries must be a non-negative int"),
        ("optional", "2", "task_retries must be a non-negative int"),
        (None, 1, "task_retries is set but the tool never runs as a task"),
    ],
)
def test_bad_task_retries_are_refused(task: Any, retries: Any, problem: str) -> None:
    tool = type(
        "BadRetryTool",
        (Tool,),
        {"task": task, "task_retries": retries, "handle": lambda self: McpResponse.text("x")},
    )

    assert problem in refused(server_with(tools=[tool]), tool)


def test_idempotency_keys_are_compiled_off_unless_a_tool_opts_in() -> None:
    tool = type(
        "KeyedTool", (Tool,), {"idempotency_keys": True, "handle": lambda self: McpResponse.text("x")}
    )

    assert compile_server(server_with(tools=[tool])).tools["keyed"].idempotency_keys is True
    assert compile_server(server_with(tools=[ReportTool])).tools["report"].idempotency_keys is False


@pytest.mark.parametrize("value", [1, "yes", None])
def test_idempotency_keys_other_than_a_bool_are_refused(value: Any) -> None:
    tool = type(
        "SloppyTool", (Tool,), {"idempotency_keys": value, "handle": lambda self: McpResponse.text("x")}
    )

    assert "idempotency_keys must be True or False" in refused(server_with(tools=[tool]), tool)
