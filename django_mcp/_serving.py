"""What serves each registered or mounted server: its Dispatcher, HTTP Endpoint and view.

The registry (``django_mcp.registry``) only records declarations, so that
``import django_mcp`` and an app's ``mcp.py`` load no dispatcher and no
transport. What serves a server is built here, once per server class and
per registry (as Django's ``AdminSite`` owns its ``ModelAdmin``
instances), by whatever serves requests: the URLconf (``Server.as_view()``),
the ASGI and WSGI fast paths, the STDIO transport and ``McpTestClient``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from django_mcp.dispatcher import Dispatcher
from django_mcp.exceptions import InternalError
from django_mcp.registry import Registry, registry
from django_mcp.server.compiler import compile_server
from django_mcp.transports._endpoint import Endpoint
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._replies import json_error
from django_mcp.transports.http import McpView

__all__ = ["Serving", "serving"]

logger = logging.getLogger("django_mcp.registry")


class Serving:
    """The dispatchers, endpoints and views serving the servers of one registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self._dispatchers: dict[type[Any], Dispatcher] = {}
        #: The same dispatchers by their server's key (its dotted path).
        self._by_key: dict[str, Dispatcher] = {}
        self._endpoints: dict[type[Any], Endpoint] = {}

    def __repr__(self) -> str:
        return f"Serving({self.registry!r})"

    def dispatcher(self, server: type[Any]) -> Dispatcher:
        """Return the dispatcher serving ``server`` (compiled once); raise ``ImproperlyConfigured``."""
        dispatcher = self._dispatchers.get(server)
        if dispatcher is None:
            compiled = compile_server(server)
            with self._lock:
                dispatcher = self._dispatchers.get(server)
                if dispatcher is None:
                    dispatcher = self._dispatchers[server] = Dispatcher(compiled)
                    self._by_key[compiled.key] = dispatcher
        return dispatcher

    def dispatcher_of(self, key: str) -> Dispatcher:
        """Return the dispatcher serving the server whose key (dotted path) is ``key``.

        A stored MCP task names its server so; a server this process has
        not served yet (a worker's) is imported by that path.

        Raises:
            ImportError: no server of that path can be imported.
        """
        dispatcher = self._by_key.get(key)
        return dispatcher if dispatcher is not None else self.dispatcher(import_string(key))

    def endpoint(self, server: type[Any]) -> Endpoint:
        """Return the Streamable HTTP endpoint serving ``server``."""
        endpoint = self._endpoints.get(server)
        if endpoint is None:
            dispatcher = self.dispatcher(server)
            with self._lock:
                endpoint = self._endpoints.setdefault(server, Endpoint(dispatcher))
        return endpoint

    def view(self, server: type[Any]) -> McpView:
        """Return a Django view serving ``server`` (``Server.as_view()``).

        The registry records the server as mounted and compiles it now. One
        that does not compile is served by a view refusing every request
        with a JSON-RPC -32603; ``manage.py check`` reports it (E015).
        """
        name = f"{server.__qualname__}_view"
        error = self.registry.mount(server)
        if error is not None:
            return McpView(_Broken(server, error), name=name)  # type: ignore[arg-type]
        return McpView(self.endpoint(server), name=name)


class _Broken:
    """The endpoint of a server that does not compile: every request is a JSON-RPC -32603."""

    def __init__(self, server: type[Any], error: ImproperlyConfigured) -> None:
        self.server = server
        self.error = error

    def __repr__(self) -> str:
        return f"Endpoint({_qual(self.server)}, broken)"

    async def serve(self, exchange: HttpExchange) -> HttpReply:
        """Refuse the request without details (they are in the log and in ``manage.py check``)."""
        logger.error("%s cannot be served: %s", _qual(self.server), self.error)
        return json_error(None, InternalError(), 500)


def _qual(server: type[Any]) -> str:
    return f"{server.__module__}.{server.__qualname__}"


#: What serves the servers of the default registry.
serving = Serving(registry)
