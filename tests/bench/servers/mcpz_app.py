"""django-mcpz: an ``MCPServer`` routed as a sync Django view.

``application`` (Django ASGI, uvicorn) and ``wsgi_application`` (gunicorn
sync workers). django-mcpz serves tools only (no resources), answers the
2025 revisions statelessly (``initialize`` gets no session id) and returns
every tool in one ``tools/list`` page.
"""

from __future__ import annotations

import _django

_django.configure(__name__, apps=("django_mcpz",))

import msgspec  # noqa: E402
from _bench import ECHO_DESCRIPTION, FILLER_DESCRIPTION, ORM_DESCRIPTION, SUM_DESCRIPTION, filler_names  # noqa: E402
from benchdata.models import item_name  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpRequest  # noqa: E402
from django.urls import path  # noqa: E402
from django_mcpz.server import MCPServer, public  # noqa: E402

server = MCPServer(name="bench", version="1.0.0", auth=public)


class EchoParams(msgspec.Struct):
    """Arguments of ``echo`` and of every filler."""

    text: str


class Pair(msgspec.Struct):
    """Arguments of ``sum_product``."""

    a: int
    b: int


class SumProduct(msgspec.Struct):
    """Structured result of ``sum_product``."""

    sum: int
    product: int


class ItemQuery(msgspec.Struct):
    """Arguments of ``orm_lookup``."""

    item_id: int


def echo(request: HttpRequest, params: EchoParams) -> str:
    return params.text


def sum_product(request: HttpRequest, params: Pair) -> SumProduct:
    return SumProduct(sum=params.a + params.b, product=params.a * params.b)


def orm_lookup(request: HttpRequest, params: ItemQuery) -> str:
    return item_name(params.item_id)


server.tool(description=ECHO_DESCRIPTION, name="echo")(echo)
server.tool(description=SUM_DESCRIPTION, name="sum_product")(sum_product)
server.tool(description=ORM_DESCRIPTION, name="orm_lookup")(orm_lookup)
for name in filler_names(fixed=3):
    server.tool(description=FILLER_DESCRIPTION, name=name)(echo)

urlpatterns = [path("mcp", server)]
application = get_asgi_application()
wsgi_application = get_wsgi_application()
