"""``Server``: a named catalog of tools, resources, prompts and skills.

A Server is a declaration. ``compiled()`` validates it once and returns the
immutable catalog the dispatcher serves; ``as_view()`` returns the Django
view that speaks Streamable HTTP for it. The view itself is built by the
HTTP transport (``django_mcp.transports.http``), which installs its view
factory here when it is imported (the app imports it when Django starts):
declarations never import a transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured

from django_mcp.server.compiler import CompiledServer, compile_server
from django_mcp.server.primitives import CacheHint, Icon, Prompt, Resource, Tool
from django_mcp.server.skills import Skill

__all__ = ["Server"]


class Server:
    """Group components under one MCP endpoint.

    Subclass it and list component classes in ``tools``, ``resources`` and
    ``prompts``. ``skills`` names the skills it serves (skill names or
    ``Skill`` classes, found like templates; ``"__all__"``: every skill
    found; see ``django_mcp.server.skills``). ``cache`` is the hint sent with
    ``server/discover`` and list results; it is forced to private when a
    list depends on the caller.
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
    skills: ClassVar[Iterable[type[Skill] | str] | str] = ()
    #: Serve ``resources/directory/read`` for skill folders (``directoryRead``).
    skills_directory_read: ClassVar[bool] = True
    cache: ClassVar[CacheHint] = CacheHint()
    #: Require an authenticated Django user for every request (401 otherwise).
    login_required: ClassVar[bool] = False
    #: Advertise ``listChanged`` and serve ``subscriptions/listen`` streams.
    list_changed: ClassVar[bool] = True
    #: Advertise ``resources.subscribe`` (change notifications per URI).
    subscribe: ClassVar[bool] = True

    # What the compiler recognises a Server subclass by (it cannot import
    # this module, which imports it).
    _mcp_server: ClassVar[bool] = True
    # Builds the HTTP view; installed by django_mcp.transports.http.
    _view_factory: ClassVar[Callable[..., Any] | None] = None

    @classmethod
    def compiled(cls) -> CompiledServer:
        """Return the validated, immutable catalog of this server (cached)."""
        return compile_server(cls)

    @classmethod
    def as_view(cls, **options: Any) -> Any:
        """Return the Django view serving this server over Streamable HTTP."""
        factory = Server._view_factory
        if factory is None:
            raise ImproperlyConfigured(
                f"{cls.__qualname__}.as_view() needs the HTTP transport: add 'django_mcp' to "
                "INSTALLED_APPS (or import django_mcp.transports.http)"
            )
        return factory(cls, **options)
