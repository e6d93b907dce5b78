"""Tests for django_mcp.server._prompt_compiler: prompt arguments and handlers."""

from django_mcp import McpResponse, Prompt, PromptArgument
from tests.server.declaring import (
    refused,
    server_with,
)


def test_prompt_handler_parameters_must_be_declared_arguments() -> None:
    bad = type(
        "BadPrompt",
        (Prompt,),
        {"arguments": (PromptArgument(name="topic"),), "handle": lambda self, subject: McpResponse.text("x")},
    )
    refused(server_with(prompts=[bad]), bad)
