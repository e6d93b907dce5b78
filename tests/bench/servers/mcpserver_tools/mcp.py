"""The benchmark's components as django-mcp-server declares them.

Tools are the public methods of an ``MCPToolset`` subclass, named after the
methods; the fillers are methods made at import time. ``echo`` has no return
annotation so that, like everywhere else, it answers text only.
"""

from __future__ import annotations

from typing import Any, TypedDict

from _bench import (
    ECHO_DESCRIPTION,
    FILLER_DESCRIPTION,
    ITEM_TEMPLATE,
    ORM_DESCRIPTION,
    SUM_DESCRIPTION,
    filler_names,
)
from benchdata.models import item_name
from mcp_server import MCPToolset
from mcp_server.djangomcp import global_mcp_server

__all__ = ["BenchTools"]


class SumProduct(TypedDict):
    """Structured result of ``sum_product``."""

    sum: int
    product: int


def _echo_method(name: str, description: str) -> Any:
    def method(self: MCPToolset, text: str):  # noqa: ANN202  (no annotation: text only)
        return text

    method.__name__ = method.__qualname__ = name
    method.__doc__ = description
    return method


def _sum_product(self: MCPToolset, a: int, b: int) -> SumProduct:
    return SumProduct(sum=a + b, product=a * b)


def _orm_lookup(self: MCPToolset, item_id: int):  # noqa: ANN202
    return item_name(item_id)


_sum_product.__doc__ = SUM_DESCRIPTION
_orm_lookup.__doc__ = ORM_DESCRIPTION
_methods: dict[str, Any] = {
    "echo": _echo_method("echo", ECHO_DESCRIPTION),
    "sum_product": _sum_product,
    "orm_lookup": _orm_lookup,
}
for _name in filler_names(fixed=len(_methods)):
    _methods[_name] = _echo_method(_name, FILLER_DESCRIPTION)
_sum_product.__name__, _orm_lookup.__name__ = "sum_product", "orm_lookup"

BenchTools = type("BenchTools", (MCPToolset,), {**_methods, "__module__": __name__})


async def item(item_id: str) -> str:
    """Return ``item <item_id>``."""
    return f"item {item_id}"


global_mcp_server.resource(ITEM_TEMPLATE, name="item", mime_type="text/plain")(item)
