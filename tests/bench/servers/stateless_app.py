"""django-stateless-mcp: the official SDK's ``MCPServer`` behind ``mcp_view()``.

An async Django view (Django ASGI, uvicorn) that runs the SDK's stateless
JSON transport for each request. The ORM tool is a plain sync function: the
SDK runs it in a worker thread.
"""

from __future__ import annotations

import _django

_django.configure(__name__, apps=("django_stateless_mcp",))

from _bench import (  # noqa: E402
    ECHO_DESCRIPTION,
    FILLER_DESCRIPTION,
    ITEM_TEMPLATE,
    ORM_DESCRIPTION,
    SUM_DESCRIPTION,
    filler_names,
)
from benchdata.models import item_name  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402
from django.urls import path  # noqa: E402
from django_stateless_mcp import mcp_view, request_state_security  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from pydantic import BaseModel  # noqa: E402

server = MCPServer("bench", version="1.0.0", request_state_security=request_state_security())


class SumProduct(BaseModel):
    """Structured result of ``sum_product``."""

    sum: int
    product: int


async def echo(text: str) -> str:
    return text


async def sum_product(a: int, b: int) -> SumProduct:
    return SumProduct(sum=a + b, product=a * b)


def orm_lookup(item_id: int) -> str:
    return item_name(item_id)


async def item(item_id: str) -> str:
    return f"item {item_id}"


server.add_tool(echo, name="echo", description=ECHO_DESCRIPTION, structured_output=False)
server.add_tool(sum_product, name="sum_product", description=SUM_DESCRIPTION, structured_output=True)
server.add_tool(orm_lookup, name="orm_lookup", description=ORM_DESCRIPTION, structured_output=False)
for name in filler_names(fixed=3):
    server.add_tool(echo, name=name, description=FILLER_DESCRIPTION, structured_output=False)
server.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain")(item)

urlpatterns = [path("mcp", mcp_view(server))]
application = get_asgi_application()
