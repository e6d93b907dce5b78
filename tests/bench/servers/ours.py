"""django_mcp: one ``Server.as_view()`` at ``/mcp``, behind each entry point.

* ``application``: Django's ASGI handler (uvicorn);
* ``wsgi_application``: Django's WSGI handler (gunicorn sync workers);
* ``fast_asgi`` / ``fast_wsgi``: ``django_mcp.asgi.McpASGIApp`` and
  ``django_mcp.wsgi.McpWSGIApp`` around those handlers, defined only when
  the names import (``python ours.py --probe`` says which).

django_mcp itself comes from the checkout (``PYTHONPATH``), not from an
installed copy, so a run measures the working tree.
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import _django

_django.configure(__name__, apps=("django_mcp",))

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
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402

from django_mcp import McpResponse, Prompt, PromptArgument, Resource, Server, Tool  # noqa: E402
from django_mcp.schemas import Schema  # noqa: E402


class EchoInput(Schema):
    """Arguments of ``echo`` and of every filler."""

    text: str


class Pair(Schema):
    """Arguments of ``sum_product``."""

    a: int
    b: int


class SumProduct(Schema):
    """Structured result of ``sum_product``."""

    sum: int
    product: int


class ItemQuery(Schema):
    """Arguments of ``orm_lookup``."""

    item_id: int


async def _echo(self: Tool[EchoInput], payload: EchoInput) -> McpResponse:
    return McpResponse.text(payload.text)


class EchoTool(Tool[EchoInput]):
    """Return the text unchanged."""

    name = "echo"
    description = ECHO_DESCRIPTION
    handle = _echo


class SumProductTool(Tool[Pair, SumProduct]):
    """Return the sum and the product."""

    name = "sum_product"
    description = SUM_DESCRIPTION

    async def handle(self, payload: Pair) -> McpResponse:
        return McpResponse.structured({"sum": payload.a + payload.b, "product": payload.a * payload.b})


class OrmLookupTool(Tool[ItemQuery]):
    """Read one item through the ORM (a sync handler: run in a thread)."""

    name = "orm_lookup"
    description = ORM_DESCRIPTION

    def handle(self, payload: ItemQuery) -> McpResponse:
        return McpResponse.text(item_name(payload.item_id))


class ItemResource(Resource):
    """``bench://items/{item_id}``."""

    uri_template = ITEM_TEMPLATE
    mime_type = "text/plain"

    async def handle(self, item_id: str) -> McpResponse:
        return McpResponse.text(f"item {item_id}")


class GreetPrompt(Prompt):
    """``greet(name)``: one user message (measured in-process only)."""

    name = "greet"
    arguments = (PromptArgument(name="name", required=True),)

    async def handle(self, name: str) -> McpResponse:
        return McpResponse.text(f"Say hello to {name}.")


def _filler(name: str) -> type[Tool[EchoInput]]:
    namespace = {"name": name, "description": FILLER_DESCRIPTION, "handle": _echo, "__module__": __name__}
    return types.new_class(f"Filler{name}", (Tool[EchoInput],), {}, lambda ns: ns.update(namespace))


FIXED = (EchoTool, SumProductTool, OrmLookupTool)
BenchServer = type(
    "BenchServer",
    (Server,),
    {
        "name": "bench",
        "tools": (*FIXED, *(_filler(name) for name in filler_names(fixed=len(FIXED)))),
        "resources": (ItemResource,),
        "prompts": (GreetPrompt,),
        "__module__": __name__,
    },
)

urlpatterns = [path("mcp", BenchServer.as_view())]

application = get_asgi_application()
wsgi_application = get_wsgi_application()
fast_paths: dict[str, str] = {}
try:
    from django_mcp.asgi import McpASGIApp
except ImportError as exc:
    fast_paths["asgi"] = f"django_mcp.asgi.McpASGIApp does not import: {exc}"
else:
    fast_asgi: Any = McpASGIApp(application)
try:
    from django_mcp.wsgi import McpWSGIApp  # type: ignore[import-not-found,unused-ignore]
except ImportError as exc:
    fast_paths["wsgi"] = f"django_mcp.wsgi.McpWSGIApp does not import: {exc}"
else:
    fast_wsgi: Any = McpWSGIApp(wsgi_application)

if __name__ == "__main__" and sys.argv[1:] == ["--probe"]:
    # run.py asks which fast paths exist: {"asgi": reason, ...} lists the missing.
    print(json.dumps(fast_paths))
