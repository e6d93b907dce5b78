"""Servers for the admin playground's tests (in-process and in Chromium).

Nothing is registered here: tests register ``PlaygroundServer`` in a fresh
registry, and ``tests/browser/playground_site`` publishes it for the
browser tests. Between them the components cover every kind of form field
(strings, numbers, integers, booleans, enums, arrays, JSON), progress and
log notifications, an elicitation round, a destructive tool, a tool hidden
behind a permission, every content type, a resource template and a prompt
with completion.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec

from django_mcp import (
    CacheHint,
    Completion,
    Icon,
    McpRequest,
    McpResponse,
    Prompt,
    PromptArgument,
    Resource,
    Server,
    Tool,
    ToolAnnotations,
)
from django_mcp.inputs import elicit, input_required
from django_mcp.schemas import Schema
from testproject.conformance.mcp import PNG, WAV

__all__ = ["TOPICS", "PlaygroundServer"]

#: What ``notes://{topic}`` and the ``haiku`` prompt suggest.
TOPICS = ("autumn", "rain", "river", "spring", "winter")


class EchoInput(Schema):
    """Everything the playground form can express, and one thing it cannot."""

    text: Annotated[str, msgspec.Meta(description="Words to echo.", examples=["hello"])]
    times: Annotated[int, msgspec.Meta(ge=1, le=5, description="How many times.")] = 1
    ratio: float = 0.5
    loud: bool = False
    colour: Literal["red", "green", "blue"] = "green"
    tags: list[str] = []
    extra: dict[str, int] | None = None


class EchoTool(Tool[EchoInput]):
    """Echo the arguments, reporting progress and logging on the way."""

    name = "echo"
    title = "Echo"
    annotations = ToolAnnotations(read_only=True, open_world=False)

    async def handle(self, payload: EchoInput, request: McpRequest) -> AsyncIterator[McpResponse]:
        yield McpResponse.progress(1, 2, "Reading the arguments")
        request.log("info", f"echoing {payload.times} time(s)")
        yield McpResponse.progress(2, 2, "Echoing")
        words = " ".join([payload.text.upper() if payload.loud else payload.text] * payload.times)
        yield McpResponse.structured({"echo": words, "colour": payload.colour, "tags": payload.tags})


class GreetTool(Tool):
    """Ask who is there (an elicitation round), then greet them."""

    name = "greet"

    def handle(self, request: McpRequest) -> Any:
        answer = request.input_responses.get("who")
        if not isinstance(answer, dict):
            schema = {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": "Your name"},
                    "tone": {"type": "string", "enum": ["warm", "dry"], "default": "warm"},
                    "formal": {"type": "boolean", "default": False},
                },
                "required": ["name"],
            }
            return input_required({"who": elicit("Who is there?", schema)})
        if answer.get("action") != "accept":
            return McpResponse.text(f"No greeting: the user chose {answer.get('action')}.")
        content = answer.get("content") or {}
        greeting = "Good day" if content.get("formal") else "Hello"
        return McpResponse.text(f"{greeting}, {content.get('name')}! ({content.get('tone')})")


class WipeNotesTool(Tool):
    """Delete every note (pretend)."""

    name = "wipe-notes"
    annotations = ToolAnnotations(read_only=False, destructive=True)

    def handle(self) -> McpResponse:
        return McpResponse.text("All notes wiped.")


class SecretTool(Tool):
    """Tell a secret to those who may view users."""

    name = "secret"
    permissions = ("auth.view_user",)

    def handle(self) -> McpResponse:
        return McpResponse.text("The secret is 42.")


class MediaTool(Tool):
    """Return one block of every content type."""

    name = "media"
    icons = (
        Icon(
            src="data:image/png;base64," + base64.b64encode(PNG).decode(),
            mime_type="image/png",
            sizes=("1x1",),
        ),
        Icon(src="https://icons.example/media.svg", mime_type="image/svg+xml", theme="dark"),
    )

    def handle(self) -> list[McpResponse]:
        return [
            McpResponse.text("Every content type:"),
            McpResponse.image(PNG, "image/png"),
            McpResponse.audio(WAV, "audio/wav"),
            McpResponse.resourceLink("notes://autumn", "autumn", mime_type="text/plain"),
            McpResponse.resource("notes://embedded", '{"kept": true}', "application/json"),
        ]


class FailTool(Tool):
    """Always fail as a tool error."""

    name = "fail"

    def handle(self) -> McpResponse:
        return McpResponse.error("It went wrong on purpose.")


class NotesResource(Resource):
    """The notes about one topic."""

    name = "notes"
    uri_template = "notes://{topic}"
    mime_type = "text/plain"

    def handle(self, topic: str) -> McpResponse:
        return McpResponse.text(f"Notes about {topic}.")

    def complete(self, value: str) -> Completion:
        return Completion(values=tuple(t for t in TOPICS if t.startswith(value)))


class ReadmeResource(Resource):
    """A fixed JSON document."""

    name = "readme"
    uri = "notes://readme"
    mime_type = "application/json"
    cache = CacheHint(ttl_ms=60_000, scope="public")

    def handle(self) -> McpResponse:
        return McpResponse.text('{"notes": 3}')


class HaikuPrompt(Prompt):
    """Ask for a haiku."""

    name = "haiku"
    arguments = (
        PromptArgument(name="subject", description="What the haiku is about.", required=True),
        PromptArgument(name="mood", description="Optional mood."),
    )

    def handle(self, subject: str, mood: str | None = None) -> list[McpResponse]:
        return [McpResponse.text(f"Write a {mood or 'calm'} haiku about {subject}.").asUser()]

    def complete(self, argument: str, value: str) -> Completion:
        options = TOPICS if argument == "subject" else ("calm", "cheerful", "gloomy")
        return Completion(values=tuple(o for o in options if o.startswith(value)))


class PlaygroundServer(Server):
    """Everything the admin playground can show."""

    name = "playground"
    version = "2.0.0"
    title = "Playground fixture"
    description = "Components for the admin playground's tests."
    tools = (EchoTool, GreetTool, WipeNotesTool, SecretTool, MediaTool, FailTool)
    resources = (NotesResource, ReadmeResource)
    prompts = (HaikuPrompt,)
