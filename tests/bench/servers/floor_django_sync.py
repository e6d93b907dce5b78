"""Floor: a bare sync Django view around ``_floor`` (Django WSGI, gunicorn sync)."""

from __future__ import annotations

import _django

_django.configure(__name__)

from _floor import Floor, answer  # noqa: E402
from benchdata.models import item_name  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402

_FLOOR = Floor(item_name)


@csrf_exempt
def view(request: HttpRequest) -> HttpResponse:
    """Decode, answer, encode."""
    body = answer(_FLOOR, request.body)
    if body is None:
        return HttpResponse(status=202)
    return HttpResponse(body, content_type="application/json")


urlpatterns = [path("mcp", view)]
wsgi_application = get_wsgi_application()
