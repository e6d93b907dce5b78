"""A server with a typed tool, for structured results."""

from django_mcp import McpResponse, Server, Tool
from django_mcp.schemas import Schema


class Sum(Schema):
    total: int


class Numbers(Schema):
    a: int
    b: int


class AddTool(Tool[Numbers, Sum]):
    name = "add"

    def handle(self, payload: Numbers) -> McpResponse:
        return McpResponse.structured({"total": payload.a + payload.b})


class MathServer(Server):
    tools = (AddTool,)
