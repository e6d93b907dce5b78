"""bolt-mcp on django-bolt: ``MCP`` mounted on a ``BoltAPI`` (run by ``bolt_main``).

The protocol core is Rust (rmcp inside django-bolt's Actix server); tools are
Python. Served like the SDK peers: ``stateless=True`` (no legacy sessions)
and ``json_response=True``. The sync ORM tool is a plain function, which
bolt-mcp runs in a thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import _django

_django.configure(__name__, apps=("django_bolt",), BOLT_API=["bolt_app:api"])

import msgspec  # noqa: E402
from _bench import (  # noqa: E402
    ECHO_DESCRIPTION,
    FILLER_DESCRIPTION,
    ITEM_TEMPLATE,
    ORM_DESCRIPTION,
    SUM_DESCRIPTION,
    filler_names,
)
from benchdata.models import item_name  # noqa: E402
from bolt_mcp import MCP  # noqa: E402
from django_bolt import BoltAPI  # noqa: E402

__all__ = ["api"]

api = BoltAPI()
mcp = MCP("bench", "1.0.0", stateless=True, json_response=True)


class SumProduct(msgspec.Struct):
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


mcp.tool(name="echo", description=ECHO_DESCRIPTION)(echo)
mcp.tool(name="sum_product", description=SUM_DESCRIPTION, output_schema="auto")(sum_product)
mcp.tool(name="orm_lookup", description=ORM_DESCRIPTION)(orm_lookup)
for name in filler_names(fixed=3):
    mcp.tool(name=name, description=FILLER_DESCRIPTION)(echo)
mcp.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain")(item)
api.mount_mcp(mcp)
