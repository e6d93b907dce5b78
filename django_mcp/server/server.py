"""``Server``: a named catalog of tools, resources and prompts.

A Server is a declaration. ``compile_server()`` validates it once; the
dispatcher serves the compiled form; ``as_view()`` returns the async Django
view that speaks Streamable HTTP for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from django_mcp.server.primitives import CacheHint, Icon, Prompt, Resource, Tool

if TYPE_CHECKING:
    from django_mcp.server.compiler import CompiledServer

__all__ = ["Server"]


class Server:
    """Group components under one MCP endpoint.

    Subclass it and list component classes in ``tools``, ``resources`` and
    ``prompts``. ``cache`` is the hint sent with ``server/discover`` and list
    results; it is forced to private when a list depends on the caller.
    """

    name: ClassVar[str] = "django-mcp"
    version: ClassVar[str] = "0.1.0"
    title: ClassVar[str | None] = None
    description: ClassVar[str | None] = None
    website_url: ClassVar[str | None] = None
    icons: ClassVar[Iterable[Icon]] = ()
    instructions: ClassVar[str | None] = None
    tools: ClassVar[Iterable[type[Tool[Any, Any]]]] = ()
    resources: ClassVar[Iterable[type[Resource]]] = ()
    prompts: ClassVar[Iterable[type[Prompt]]] = ()
    cache: ClassVar[CacheHint] = CacheHint()
    #: Require an authenticated Django user for every request (401 otherwise).
    login_required: ClassVar[bool] = False
    #: Advertise ``listChanged`` and serve ``subscriptions/listen`` streams.
    list_changed: ClassVar[bool] = True
    #: Advertise ``resources.subscribe`` (change notifications per URI).
    subscribe: ClassVar[bool] = True

    @classmethod
    def compiled(cls) -> CompiledServer:
        """Return the validated, immutable catalog of this server (cached)."""
        from django_mcp.server.compiler import compile_server

        return compile_server(cls)

    @classmethod
    def as_view(cls, **options: Any) -> Any:
        """Return an async Django view serving this server over HTTP."""
        from django_mcp.transports.http import McpView

        return McpView.as_view(server=cls, **options)
