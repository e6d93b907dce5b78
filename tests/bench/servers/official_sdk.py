"""The official MCP Python SDK (``mcp``): ``MCPServer``, Starlette app, uvicorn.

Served in the SDK's fastest documented mode, ``stateless_http=True`` with
``json_response=True``: no sessions, one JSON answer per POST, for both
protocol eras (a 2025-11-25 ``initialize`` gets no session id). Not a Django
server, so it has no ORM tool.
"""

from __future__ import annotations

from _bench import ECHO_DESCRIPTION, FILLER_DESCRIPTION, ITEM_TEMPLATE, SUM_DESCRIPTION, filler_names
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

__all__ = ["app"]

server = MCPServer("bench", version="1.0.0")


class SumProduct(BaseModel):
    """Structured result of ``sum_product``."""

    sum: int
    product: int


async def echo(text: str) -> str:
    return text


async def sum_product(a: int, b: int) -> SumProduct:
    return SumProduct(sum=a + b, product=a * b)


async def item(item_id: str) -> str:
    return f"item {item_id}"


server.add_tool(echo, name="echo", description=ECHO_DESCRIPTION, structured_output=False)
server.add_tool(sum_product, name="sum_product", description=SUM_DESCRIPTION, structured_output=True)
for name in filler_names(fixed=2):
    server.add_tool(echo, name=name, description=FILLER_DESCRIPTION, structured_output=False)
server.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain")(item)

app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True)
