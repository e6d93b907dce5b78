"""What serves each server: one dispatcher, endpoint and view per server and registry."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp._serving import Serving, serving
from django_mcp.registry import Registry, registry
from tests.test_registry import BrokenServer, FirstServer, SecondServer


def test_each_registry_owns_one_dispatcher_endpoint_and_view_per_server() -> None:
    from testproject.conformance.mcp import ConformanceServer

    first, second = Serving(Registry()), Serving(Registry())

    assert first.dispatcher(ConformanceServer) is first.dispatcher(ConformanceServer)
    assert first.endpoint(ConformanceServer).dispatcher is first.dispatcher(ConformanceServer)
    assert first.view(ConformanceServer).endpoint is first.endpoint(ConformanceServer)
    assert first.dispatcher(ConformanceServer) is not second.dispatcher(ConformanceServer)
    assert first.dispatcher(ConformanceServer).pending is not second.dispatcher(ConformanceServer).pending


def test_a_dispatcher_is_found_by_its_servers_dotted_path() -> None:
    fresh = Serving(Registry())
    served = fresh.dispatcher(FirstServer)

    assert fresh.dispatcher_of("tests.test_registry.FirstServer") is served
    # Not served yet (a worker's process): imported by its path.
    assert fresh.dispatcher_of("tests.test_registry.SecondServer") is fresh.dispatcher(SecondServer)
    with pytest.raises(ImportError):
        fresh.dispatcher_of("tests.nowhere.Server")


def test_as_view_records_the_server_for_the_checks_and_compiles_it_now() -> None:
    fresh = Registry()
    served = Serving(fresh)

    view = served.view(FirstServer)

    assert fresh.mounted_servers() == {"tests.test_registry.FirstServer": FirstServer}
    assert view.endpoint is served.endpoint(FirstServer)
    fresh.check_mounted()  # compiles: nothing to report


async def test_a_mounted_server_that_does_not_compile_refuses_every_request_without_details() -> None:
    import json

    from django.test import AsyncRequestFactory

    fresh = Registry()
    view = Serving(fresh).view(BrokenServer)

    response = await view(AsyncRequestFactory().post("/mcp", data=b"{}", content_type="application/json"))

    assert (response.status_code, response["Content-Type"]) == (500, "application/json")
    assert json.loads(response.content)["error"]["code"] == -32603
    with pytest.raises(ImproperlyConfigured, match="BrokenServer"):
        fresh.check_mounted()


def test_the_fast_paths_refuse_to_start_with_a_broken_mounted_server(settings: Any) -> None:
    from django.core.asgi import get_asgi_application
    from django.core.wsgi import get_wsgi_application

    from django_mcp.asgi import McpASGIApp
    from django_mcp.wsgi import McpWSGIApp

    serving.view(BrokenServer)
    try:
        with pytest.raises(ImproperlyConfigured, match="django_mcp.E015"):
            McpASGIApp(get_asgi_application())
        with pytest.raises(ImproperlyConfigured, match="django_mcp.E015"):
            McpWSGIApp(get_wsgi_application())
    finally:
        views = registry._registry["view"]
        views.pop("tests.test_registry.BrokenServer", None)
