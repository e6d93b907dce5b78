"""FastMCP (``fastmcp``): ``FastMCP.http_app()``, a Starlette app under uvicorn.

Served like the official SDK, stateless with JSON responses. Not a Django
server, so it has no ORM tool.
"""

from __future__ import annotations

from _bench import ECHO_DESCRIPTION, FILLER_DESCRIPTION, ITEM_TEMPLATE, SUM_DESCRIPTION, filler_names
from fastmcp import FastMCP
from pydantic import BaseModel

__all__ = ["app"]

server = FastMCP("bench")


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


server.tool(echo, name="echo", description=ECHO_DESCRIPTION, output_schema=None)
server.tool(sum_product, name="sum_product", description=SUM_DESCRIPTION)
for name in filler_names(fixed=2):
    server.tool(echo, name=name, description=FILLER_DESCRIPTION, output_schema=None)
server.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain")(item)

app = server.http_app(path="/mcp", stateless_http=True, json_response=True)
