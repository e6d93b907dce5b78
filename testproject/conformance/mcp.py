"""The fixture server the official MCP conformance suite runs against.

Names, contents and order follow the suite's fixture catalogue: the first
tool listed must be ``test_simple_text`` and the first resource
``test://static-text``. Binary test data is generated with the standard
library, so no blobs live in the repository.
"""

from __future__ import annotations

import asyncio
import importlib.util
import io
import struct
import wave
import zlib
from typing import Any

import msgspec

import django_mcp
from django_mcp import (
    Completion,
    McpRequest,
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
)
from django_mcp.exceptions import InternalError
from django_mcp.inputs import elicit, input_required, list_roots, sample
from django_mcp.schemas import Schema


def _png() -> bytes:
    """Return a valid 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav() -> bytes:
    """Return a valid one-sample PCM WAV."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00")
    return buffer.getvalue()


PNG = _png()
WAV = _wav()


# ------------------------------------------------------------------ tools


class SimpleTextTool(Tool):
    name = "test_simple_text"
    description = "Returns a simple text response."

    def handle(self) -> McpResponse:
        return McpResponse.text("This is a simple text response for testing.")


class ImageContentTool(Tool):
    name = "test_image_content"
    description = "Returns a PNG image."

    def handle(self) -> McpResponse:
        return McpResponse.image(PNG, "image/png")


class AudioContentTool(Tool):
    name = "test_audio_content"
    description = "Returns a WAV clip."

    def handle(self) -> McpResponse:
        return McpResponse.audio(WAV, "audio/wav")


class EmbeddedResourceTool(Tool):
    name = "test_embedded_resource"
    description = "Returns an embedded text resource."

    def handle(self) -> McpResponse:
        return McpResponse.resource(
            "test://embedded-resource", "This is an embedded resource content.", "text/plain"
        )


class MultipleContentTypesTool(Tool):
    name = "test_multiple_content_types"
    description = "Returns text, an image and a resource."

    def handle(self) -> list[McpResponse]:
        return [
            McpResponse.text("Multiple content types test:"),
            McpResponse.image(PNG, "image/png"),
            McpResponse.resource(
                "test://mixed-content-resource", '{"test":"data","value":123}', "application/json"
            ),
        ]


class ToolWithLoggingTool(Tool):
    name = "test_tool_with_logging"
    description = "Logs three messages while it runs."

    async def handle(self, request: McpRequest) -> McpResponse:
        request.log("info", "Tool execution started")
        await asyncio.sleep(0.05)
        request.log("info", "Tool processing data")
        await asyncio.sleep(0.05)
        request.log("info", "Tool execution completed")
        return McpResponse.text("Logging test completed")


class ToolWithProgressTool(Tool):
    name = "test_tool_with_progress"
    description = "Reports progress 0, 50 and 100 of 100."

    async def handle(self, request: McpRequest):  # type: ignore[no-untyped-def]
        yield McpResponse.progress(0, 100, "Starting")
        await asyncio.sleep(0.05)
        yield McpResponse.progress(50, 100, "Halfway")
        await asyncio.sleep(0.05)
        yield McpResponse.progress(100, 100, "Done")
        yield McpResponse.text(f"Progress test completed for token {request.progress_token}")


class ErrorHandlingTool(Tool):
    name = "test_error_handling"
    description = "Always fails with a tool error."

    def handle(self) -> McpResponse:
        return McpResponse.error("This tool intentionally returns an error for testing")


def _elicitation_summary(label: str, answer: dict[str, Any]) -> McpResponse:
    """Return the text the suite expects after an elicitation round trip."""
    content = msgspec.json.encode(answer.get("content")).decode()
    return McpResponse.text(f"{label}: action={answer.get('action')}, content={content}")


class SamplingInput(Schema):
    prompt: str


class SamplingTool(Tool[SamplingInput]):
    name = "test_sampling"
    description = "Asks the client's model to answer a prompt."

    def handle(self, payload: SamplingInput, request: McpRequest) -> Any:
        answer = request.input_responses.get("llm")
        if not isinstance(answer, dict):
            return input_required({"llm": sample(payload.prompt, max_tokens=100)})
        content = answer.get("content")
        text = content.get("text") if isinstance(content, dict) else None
        return McpResponse.text(f"LLM response: {text}")


class ElicitationInput(Schema):
    message: str


class ElicitationTool(Tool[ElicitationInput]):
    name = "test_elicitation"
    description = "Asks the user for a username and an email."

    def handle(self, payload: ElicitationInput, request: McpRequest) -> Any:
        answer = request.input_responses.get("user")
        if not isinstance(answer, dict):
            schema = {
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                },
                "required": ["username", "email"],
            }
            return input_required({"user": elicit(payload.message, schema)})
        return _elicitation_summary("User response", answer)


class ElicitationDefaultsTool(Tool):
    name = "test_elicitation_sep1034_defaults"
    description = "Elicits a form whose fields have defaults."

    def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("form")
        if not isinstance(answer, dict):
            schema = {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {
                        "type": "string",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active",
                    },
                    "verified": {"type": "boolean", "default": True},
                },
            }
            return input_required({"form": elicit("Please review your information", schema)})
        return _elicitation_summary("Elicitation completed", answer)


class ElicitationEnumsTool(Tool):
    name = "test_elicitation_sep1330_enums"
    description = "Elicits every enum form of the spec."

    def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("form")
        if not isinstance(answer, dict):
            schema = {
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {
                        "type": "string",
                        "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                        ],
                    },
                    "legacyEnum": {
                        "type": "string",
                        "enum": ["opt1", "opt2"],
                        "enumNames": ["Option One", "Option Two"],
                    },
                    "untitledMulti": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["option1", "option2"]},
                    },
                    "titledMulti": {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                {"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                            ]
                        },
                    },
                },
            }
            return input_required({"form": elicit("Choose your options", schema)})
        return _elicitation_summary("Elicitation completed", answer)


JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


class JsonSchemaTool(Tool):
    name = "json_schema_2020_12_tool"
    description = "Declares a raw JSON Schema 2020-12 input schema."
    input = JSON_SCHEMA_2020_12

    def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text(f"Received: {msgspec.json.encode(payload).decode()}")


class MissingCapabilityTool(Tool):
    name = "test_missing_capability"
    description = "Needs the client's sampling capability."

    def handle(self, request: McpRequest) -> McpResponse:
        request.require_capability("sampling")
        return McpResponse.text("The client supports sampling.")


class StreamingElicitationTool(Tool):
    name = "test_streaming_elicitation"
    description = "Streams a notification, never a server-to-client request."

    async def handle(self, request: McpRequest):  # type: ignore[no-untyped-def]
        yield McpResponse.progress(1, 2, "Working")
        yield McpResponse.text("Streaming completed without requests.")


class LoggingTool(Tool):
    name = "test_logging_tool"
    description = "Logs only when the request asks for a log level."

    def handle(self, request: McpRequest) -> McpResponse:
        request.log("info", "test_logging_tool ran")
        return McpResponse.text("Logging tool completed")


class TriggerToolChangeTool(Tool):
    name = "test_trigger_tool_change"
    description = "Announces a change of the tool list."

    def handle(self) -> McpResponse:
        django_mcp.tools_changed(ConformanceServer)
        return McpResponse.text("Tool list change announced")


class TriggerPromptChangeTool(Tool):
    name = "test_trigger_prompt_change"
    description = "Announces a change of the prompt list."

    def handle(self) -> McpResponse:
        django_mcp.prompts_changed(ConformanceServer)
        return McpResponse.text("Prompt list change announced")


class XMcpHeaderTool(Tool):
    name = "test_x_mcp_header"
    description = "Mirrors its region argument into the Mcp-Param-Region header."
    input = {
        "type": "object",
        "properties": {
            "region": {
                "type": "string",
                "x-mcp-header": "Region",
                "description": "Deployment region",
                "default": "<none>",
            }
        },
    }

    def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text(f"region={payload.get('region', '<none>')}")


# ------------------------------------------------- InputRequiredResult tools

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _accepted(request: McpRequest, key: str) -> dict[str, Any] | None:
    """Return the accepted elicitation content for ``key``, if well formed."""
    answer = request.input_responses.get(key)
    if (
        isinstance(answer, dict)
        and answer.get("action") == "accept"
        and isinstance(answer.get("content"), dict)
    ):
        return answer["content"]  # type: ignore[no-any-return]
    return None


class IrrElicitationTool(Tool):
    name = "test_input_required_result_elicitation"
    description = "Asks the user's name through an InputRequiredResult."

    def handle(self, request: McpRequest) -> Any:
        content = _accepted(request, "user_name")
        if content is None or not isinstance(content.get("name"), str):
            return input_required({"user_name": elicit("What is your name?", NAME_SCHEMA)})
        return McpResponse.text(f"Hello, {content['name']}!")


class IrrSamplingTool(Tool):
    name = "test_input_required_result_sampling"
    description = "Asks the client's model a question through an InputRequiredResult."

    def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("capital_question")
        if not isinstance(answer, dict) or not isinstance(answer.get("content"), dict):
            return input_required(
                {"capital_question": sample("What is the capital of France?", max_tokens=100)}
            )
        return McpResponse.text(f"Model said: {answer['content'].get('text')}")


class IrrListRootsTool(Tool):
    name = "test_input_required_result_list_roots"
    description = "Asks the client's roots through an InputRequiredResult."

    def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("client_roots")
        if not isinstance(answer, dict) or not isinstance(answer.get("roots"), list):
            return input_required({"client_roots": list_roots()})
        return McpResponse.text(f"The client has {len(answer['roots'])} root(s).")


CONFIRM_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


class IrrRequestStateTool(Tool):
    name = "test_input_required_result_request_state"
    description = "Carries a request state across an InputRequiredResult."

    def handle(self, request: McpRequest) -> Any:
        if _accepted(request, "confirm") is None or request.request_state != "state-ok":
            return input_required({"confirm": elicit("Please confirm", CONFIRM_SCHEMA)}, state="state-ok")
        return McpResponse.text("Confirmed with state-ok")


class IrrMultipleInputsTool(Tool):
    name = "test_input_required_result_multiple_inputs"
    description = "Asks for three inputs of different kinds at once."

    def handle(self, request: McpRequest) -> Any:
        responses = request.input_responses
        if not all(isinstance(responses.get(k), dict) for k in ("user_name", "greeting", "client_roots")):
            return input_required(
                {
                    "user_name": elicit("What is your name?", NAME_SCHEMA),
                    "greeting": sample("Generate a greeting", max_tokens=50),
                    "client_roots": list_roots(),
                },
                state="multiple-inputs",
            )
        return McpResponse.text("Received all three inputs.")


class IrrMultiRoundTool(Tool):
    name = "test_input_required_result_multi_round"
    description = "Asks two questions in two rounds."

    def handle(self, request: McpRequest) -> Any:
        state = request.request_state
        if isinstance(state, dict) and state.get("step") == 2:
            color = _accepted(request, "step2")
            if color is not None and isinstance(color.get("color"), str):
                return McpResponse.text(f"{state['name']} likes {color['color']}.")
        step1 = _accepted(request, "step1")
        if state == {"step": 1} and step1 is not None and isinstance(step1.get("name"), str):
            color_schema = {
                "type": "object",
                "properties": {"color": {"type": "string"}},
                "required": ["color"],
            }
            return input_required(
                {"step2": elicit("Step 2: What is your favorite color?", color_schema)},
                state={"step": 2, "name": step1["name"]},
            )
        return input_required({"step1": elicit("Step 1: What is your name?", NAME_SCHEMA)}, state={"step": 1})


class IrrTamperedStateTool(Tool):
    name = "test_input_required_result_tampered_state"
    description = "Rejects a request state that was modified."

    def handle(self, request: McpRequest) -> Any:
        if _accepted(request, "confirm") is None or request.request_state != "genuine":
            return input_required({"confirm": elicit("Please confirm", CONFIRM_SCHEMA)}, state="genuine")
        return McpResponse.text("State verified")


class IrrCapabilitiesTool(Tool):
    name = "test_input_required_result_capabilities"
    description = "Asks only for inputs the client declared it can provide."

    def handle(self, request: McpRequest) -> Any:
        wanted: dict[str, Any] = {}
        if request.has_capability("sampling"):
            wanted["question"] = sample("What is 2 + 2?", max_tokens=10)
        if request.has_capability("elicitation", "form"):
            wanted["name"] = elicit("What is your name?", NAME_SCHEMA)
        if wanted and not all(isinstance(request.input_responses.get(k), dict) for k in wanted):
            return input_required(wanted)
        return McpResponse.text("Capabilities respected")


# ------------------------------------------------ tasks extension (SEP-2663)
# The fixtures of the suite's tasks-* scenarios. Calls from clients that
# declare io.modelcontextprotocol/tasks become tasks; others run directly
# (the "required" tools refuse them with -32021).


class GreetInput(Schema):
    name: str


class GreetTool(Tool[GreetInput]):
    name = "greet"
    description = "Greets someone; never a task."

    def handle(self, payload: GreetInput) -> McpResponse:
        return McpResponse.text(f"Hello, {payload.name}!")


class SlowComputeInput(Schema):
    seconds: float
    label: str = ""


class SlowComputeTool(Tool[SlowComputeInput]):
    name = "slow_compute"
    description = "Sleeps `seconds` seconds, then answers; a task unless it is instant."
    task = "optional"

    def use_task(self, payload: SlowComputeInput) -> bool:
        # The immediate-result shortcut: nothing to wait for, no task.
        return payload.seconds > 0

    async def handle(self, payload: SlowComputeInput, request: McpRequest) -> McpResponse:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, payload.seconds)
        while (left := deadline - loop.time()) > 0:
            if request.task is not None:
                request.task.check_cancelled()
                request.task.status_message = f"{left:.0f} s left"
            await asyncio.sleep(min(left, 0.1))
        return McpResponse.text(f"Computed {payload.label or 'result'} in {payload.seconds:g} s")


class FailingJobTool(Tool):
    name = "failing_job"
    description = "Always ends with a tool error after about a second; only as a task."
    task = "required"

    async def handle(self) -> McpResponse:
        await asyncio.sleep(1)
        return McpResponse.error("The job failed, as it always does")


class ProtocolErrorJobTool(Tool):
    name = "protocol_error_job"
    description = "Always fails with a JSON-RPC error (the task ends failed)."
    task = "optional"

    def handle(self) -> McpResponse:
        raise InternalError("The job hit an internal error")


class ConfirmDeleteInput(Schema):
    filename: str


class ConfirmDeleteTool(Tool[ConfirmDeleteInput]):
    name = "confirm_delete"
    description = "Asks the user to confirm, then pretends to delete a file."
    task = "optional"

    def handle(self, payload: ConfirmDeleteInput, request: McpRequest) -> Any:
        answer = request.input_responses.get("confirm")
        if not isinstance(answer, dict):
            schema = {
                "type": "object",
                "properties": {"confirm": {"type": "boolean"}},
                "required": ["confirm"],
            }
            return input_required({"confirm": elicit(f"Delete {payload.filename}?", schema)})
        content = _accepted(request, "confirm")
        if content is not None and content.get("confirm") is True:
            return McpResponse.text(f"Deleted {payload.filename}")
        return McpResponse.text(f"Kept {payload.filename}")


class MultiInputTool(Tool):
    name = "multi_input"
    description = "Asks two questions at once, then answers with both replies."
    task = "optional"

    def handle(self, request: McpRequest) -> Any:
        missing = {
            key: elicit(question, {"type": "object", "properties": {field: {"type": kind}}})
            for key, question, field, kind in (
                ("name", "What is your name?", "name", "string"),
                ("confirm", "Shall I go on?", "confirm", "boolean"),
            )
            if not isinstance(request.input_responses.get(key), dict)
        }
        if missing:
            return input_required(missing)
        name = (_accepted(request, "name") or {}).get("name")
        confirmed = (_accepted(request, "confirm") or {}).get("confirm")
        return McpResponse.text(f"name={name}, confirm={confirmed}")


class ToolWithTaskTool(Tool):
    name = "test_tool_with_task"
    description = "Asks for a name in the request itself, then greets as a task."
    task = "required"

    def prepare(self, request: McpRequest) -> Any:
        if _accepted(request, "user_name") is None:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            return input_required({"user_name": elicit("What is your name?", schema)})
        return None

    def handle(self, request: McpRequest) -> McpResponse:
        name = (_accepted(request, "user_name") or {}).get("name", "stranger")
        return McpResponse.text(f"Hello, {name}! (greeted by a task)")


# -------------------------------------------------------------- resources


class StaticTextResource(Resource):
    name = "static-text"
    uri = "test://static-text"
    description = "A static text resource."
    mime_type = "text/plain"

    def handle(self) -> McpResponse:
        return McpResponse.text("This is the content of the static text resource.")


class StaticBinaryResource(Resource):
    name = "static-binary"
    uri = "test://static-binary"
    description = "A static PNG image."
    mime_type = "image/png"

    def handle(self) -> McpResponse:
        return McpResponse.resource("test://static-binary", PNG, "image/png")


class WatchedResource(Resource):
    name = "watched-resource"
    uri = "test://watched-resource"
    description = "A resource clients can subscribe to."
    mime_type = "text/plain"

    def handle(self) -> McpResponse:
        return McpResponse.text("Watched resource content")


class TemplateResource(Resource):
    name = "template-data"
    uri_template = "test://template/{id}/data"
    description = "Data for any id."
    mime_type = "application/json"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable's name
        return McpResponse.text(
            msgspec.json.encode({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}).decode()
        )


# ---------------------------------------------------------------- prompts


class SimplePrompt(Prompt):
    name = "test_simple_prompt"
    description = "A prompt without arguments."

    def handle(self) -> McpResponse:
        return McpResponse.text("This is a simple prompt for testing.")


class ArgumentsPrompt(Prompt):
    name = "test_prompt_with_arguments"
    description = "A prompt with two required arguments."
    arguments = (
        PromptArgument(name="arg1", description="First argument", required=True),
        PromptArgument(name="arg2", description="Second argument", required=True),
    )

    def handle(self, arg1: str, arg2: str) -> McpResponse:
        return McpResponse.text(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")

    def complete(self, argument: str, value: str) -> Completion:
        options = ("test", "testing", "test-value", "other")
        return Completion(values=tuple(o for o in options if o.startswith(value)))


class EmbeddedResourcePrompt(Prompt):
    name = "test_prompt_with_embedded_resource"
    description = "A prompt embedding a resource."
    arguments = (PromptArgument(name="resourceUri", description="The resource URI", required=True),)

    def handle(self, resourceUri: str) -> list[McpResponse]:  # noqa: N803 - the argument's wire name
        return [
            McpResponse.resource(resourceUri, "Embedded resource content for testing.", "text/plain"),
            McpResponse.text("Please process the embedded resource above."),
        ]


class ImagePrompt(Prompt):
    name = "test_prompt_with_image"
    description = "A prompt with an image."

    def handle(self) -> list[McpResponse]:
        return [McpResponse.image(PNG, "image/png"), McpResponse.text("Please analyze the image above.")]


class IrrPrompt(Prompt):
    name = "test_input_required_result_prompt"
    description = "A prompt that asks the user for context first."

    def handle(self, request: McpRequest) -> Any:
        content = _accepted(request, "user_context")
        if content is None or not isinstance(content.get("context"), str):
            schema = {
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"],
            }
            return input_required({"user_context": elicit("What context should the prompt use?", schema)})
        return McpResponse.text(f"Use the following context: {content['context']}")


class ConformanceServer(Server):
    """Everything the conformance suite exercises, on one endpoint."""

    name = "django-mcp-conformance"
    version = "0.1.0"
    tools = (
        SimpleTextTool,
        ImageContentTool,
        AudioContentTool,
        EmbeddedResourceTool,
        MultipleContentTypesTool,
        ToolWithLoggingTool,
        ToolWithProgressTool,
        ErrorHandlingTool,
        SamplingTool,
        ElicitationTool,
        ElicitationDefaultsTool,
        ElicitationEnumsTool,
        JsonSchemaTool,
        MissingCapabilityTool,
        StreamingElicitationTool,
        LoggingTool,
        TriggerToolChangeTool,
        TriggerPromptChangeTool,
        XMcpHeaderTool,
        IrrElicitationTool,
        IrrSamplingTool,
        IrrListRootsTool,
        IrrRequestStateTool,
        IrrMultipleInputsTool,
        IrrMultiRoundTool,
        IrrTamperedStateTool,
        IrrCapabilitiesTool,
        GreetTool,
        SlowComputeTool,
        FailingJobTool,
        ProtocolErrorJobTool,
        ConfirmDeleteTool,
        MultiInputTool,
        ToolWithTaskTool,
    )
    resources = (StaticTextResource, StaticBinaryResource, WatchedResource, TemplateResource)
    prompts = (SimplePrompt, ArgumentsPrompt, EmbeddedResourcePrompt, ImagePrompt, IrrPrompt)
    # The sep-2640-skills-* scenarios' fixture: skills/release-notes/ of this
    # app, with a folder in it for resources/directory/read. Served when the
    # skills extra (PyYAML) is installed, as in every test environment but
    # tox's "base" one, which has no extras.
    skills = ("release-notes",) if importlib.util.find_spec("yaml") else ()
