"""``Server``: a named catalog of tools, resources, prompts and skills.

A Server is a declaration. ``compiled()`` validates it once and returns the
immutable catalog the dispatcher serves; ``as_view()`` returns the Django
view that speaks Streamable HTTP for it, built once per server by
``django_mcp._serving`` (the registry only records the mount).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from django_mcp.server.primitives import CacheHint, Icon, Prompt, Resource, Tool
from django_mcp.server.skills import Skill
from django_mcp.server.tool_search import ToolSearch

if TYPE_CHECKING:
    from django_mcp.server.compiler import CompiledServer

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
    #: List a large catalog as ``search_tools`` and ``call_tool`` (None: list
    #: every tool; see ``django_mcp.server.tool_search``).
    tool_search: ClassVar[ToolSearch | None] = None

    # What the compiler and the registry recognise a Server subclass by:
    # they serve declarations without importing them.
    _mcp_server: ClassVar[bool] = True

    @classmethod
    def compiled(cls) -> CompiledServer:
        """Return the validated, immutable catalog of this server (cached)."""
        # Imported when first compiled: declaring and registering servers
        # (``import django_mcp``, an app's ``mcp.py``) needs no compiler.
        from django_mcp.server.compiler import compile_server

        return compile_server(cls)

    @classmethod
    def as_view(cls) -> Any:
        """Return the Django view serving this server over Streamable HTTP.

        The server is compiled now, when the URLconf loads; see
        ``django_mcp.registry`` for what happens when it does not compile.
        """
        # Imported here: declaring a server loads no transport; a URLconf
        # calls this once Django is ready.
        from django_mcp._serving import serving

        return serving.view(cls)
