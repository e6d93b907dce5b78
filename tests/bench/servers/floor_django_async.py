"""Floor: a bare async Django view around ``_floor`` (Django ASGI, uvicorn).

The ORM tool reads through ``sync_to_async``, as any async Django view must.
"""

from __future__ import annotations

import _django

_django.configure(__name__)

from _floor import Floor  # noqa: E402
from asgiref.sync import sync_to_async  # noqa: E402
from benchdata.models import item_name  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402

_FLOOR = Floor(item_name)
_lookup = sync_to_async(item_name, thread_sensitive=True)


@csrf_exempt
async def view(request: HttpRequest) -> HttpResponse:
    """Decode, answer, encode."""
    message = _FLOOR.parse(request.body)
    item_id = _FLOOR.needs_orm(message)
    body = _FLOOR.answer(message, await _lookup(item_id) if item_id is not None else None)
    if body is None:
        return HttpResponse(status=202)
    return HttpResponse(body, content_type="application/json")


urlpatterns = [path("mcp", view)]
application = get_asgi_application()
