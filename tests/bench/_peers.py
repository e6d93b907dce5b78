"""Who is measured: the virtual environments and the servers run from them.

Every environment is made from the package index under ``.venvs/`` with one
interpreter (Python 3.12 by default: bolt-mcp needs it). ``lookup`` names the
distributions checked with ``pip index versions`` first; a name the index
does not have, or an install that fails, makes every server of that
environment unavailable, with the reason in the report.

A server is an app file under ``servers/`` started one way:

* ``uvicorn``: ``python -m uvicorn TARGET``, one process, uvloop and
  httptools, no access log;
* ``gunicorn``: ``gunicorn TARGET``, one sync worker (plus the arbiter);
* ``granian``: ``python -m granian --interface asgi TARGET``, one worker
  with one runtime thread (granian's HTTP server is Rust);
* ``bolt``: ``python bolt_main.py``, django-bolt's own Rust HTTP server.

``eras`` lists the revisions a server speaks, preferred first: the
scenarios use the first, except ``legacy-echo`` (always 2025-11-25).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENVS", "SERVERS", "Env", "ServerSpec"]

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
UVICORN = ("uvicorn", "uvloop", "httptools")


@dataclass(frozen=True)
class Env:
    """One virtual environment under ``.venvs/``."""

    name: str
    requirements: tuple[str, ...]
    lookup: tuple[str, ...] = ()  # checked with `pip index versions` before installing
    report: tuple[str, ...] = ()  # distributions whose versions RESULTS.md lists
    checkout: bool = False  # django_mcp comes from the working tree (PYTHONPATH)


ENVS: dict[str, Env] = {
    env.name: env
    for env in (
        Env("official", ("mcp==2.3.0", *UVICORN), ("mcp",), ("mcp", "starlette", "pydantic", "uvicorn")),
        Env("fastmcp", ("fastmcp", *UVICORN), ("fastmcp",), ("fastmcp", "mcp", "starlette", "uvicorn")),
        Env(
            "mcpz",
            ("django-mcpz", *UVICORN, "gunicorn"),
            ("django-mcpz",),
            ("django-mcpz", "django", "msgspec", "uvicorn", "gunicorn"),
        ),
        Env(
            "stateless",
            ("django-stateless-mcp", *UVICORN),
            ("django-stateless-mcp",),
            ("django-stateless-mcp", "mcp", "django", "uvicorn"),
        ),
        Env(
            "bolt",
            ("bolt-mcp", "django-bolt"),
            ("bolt-mcp", "django-bolt"),
            ("bolt-mcp", "django-bolt", "django"),
        ),
        Env(
            # Written against the v1 SDK (mcp.server.FastMCP), which mcp 2 removed.
            "mcpserver",
            ("django-mcp-server", "mcp<2", *UVICORN, "gunicorn"),
            ("django-mcp-server",),
            ("django-mcp-server", "mcp", "djangorestframework", "django", "uvicorn", "gunicorn"),
        ),
        # The floors and django_mcp: the project's own runtime dependencies
        # (read from pyproject.toml by run.py) are added to these.
        Env(
            "django",
            ("msgspec", *UVICORN, "gunicorn"),
            (),
            ("django", "msgspec", "uvicorn", "gunicorn"),
            checkout=True,
        ),
        Env(
            "granian",
            ("msgspec", "granian", "uvloop"),
            ("granian",),
            ("django", "msgspec", "granian"),
            checkout=True,
        ),
        Env("harness", ("matplotlib",), (), ("matplotlib",)),
    )
}


@dataclass(frozen=True)
class ServerSpec:
    """One server process kind: an app file, a runner and what it serves."""

    key: str
    label: str
    group: str  # "peer", "floor" or "ours"
    env: str
    runner: str  # "uvicorn", "gunicorn", "granian" or "bolt"
    target: str  # module:attribute (uvicorn, gunicorn, granian) or script (bolt)
    eras: tuple[str, ...] = (MODERN, LEGACY)
    features: frozenset[str] = field(default_factory=lambda: frozenset({"resources", "orm"}))
    fast: str | None = None  # "asgi" / "wsgi": needs that django_mcp fast path
    note: str = ""


_NO_ORM = frozenset({"resources"})
_NO_RESOURCES = frozenset({"orm"})

SERVERS: dict[str, ServerSpec] = {
    server.key: server
    for server in (
        ServerSpec(
            "official",
            "official SDK (MCPServer, uvicorn)",
            "peer",
            "official",
            "uvicorn",
            "official_sdk:app",
            features=_NO_ORM,
            note="stateless_http, json_response",
        ),
        ServerSpec(
            "fastmcp",
            "FastMCP (http_app, uvicorn)",
            "peer",
            "fastmcp",
            "uvicorn",
            "fastmcp_app:app",
            features=_NO_ORM,
            note="stateless_http, json_response",
        ),
        ServerSpec(
            "mcpz-uvicorn",
            "django-mcpz (ASGI, uvicorn)",
            "peer",
            "mcpz",
            "uvicorn",
            "mcpz_app:application",
            features=_NO_RESOURCES,
            note="sync view; tools only",
        ),
        ServerSpec(
            "mcpz-gunicorn",
            "django-mcpz (WSGI, gunicorn)",
            "peer",
            "mcpz",
            "gunicorn",
            "mcpz_app:wsgi_application",
            features=_NO_RESOURCES,
            note="sync view; tools only",
        ),
        ServerSpec(
            "stateless",
            "django-stateless-mcp (ASGI, uvicorn)",
            "peer",
            "stateless",
            "uvicorn",
            "stateless_app:application",
            note="SDK transport per request",
        ),
        ServerSpec(
            "bolt",
            "bolt-mcp (django-bolt runbolt)",
            "peer",
            "bolt",
            "bolt",
            "bolt_main.py",
            note="Rust HTTP + rmcp; stateless, json_response",
        ),
        ServerSpec(
            "mcpserver-uvicorn",
            "django-mcp-server (ASGI, uvicorn)",
            "peer",
            "mcpserver",
            "uvicorn",
            "mcpserver_app:application",
            eras=(LEGACY,),
            note="mcp<2: 2025 revisions only; stateless",
        ),
        ServerSpec(
            "mcpserver-gunicorn",
            "django-mcp-server (WSGI, gunicorn)",
            "peer",
            "mcpserver",
            "gunicorn",
            "mcpserver_app:wsgi_application",
            eras=(LEGACY,),
            note="mcp<2: 2025 revisions only; stateless",
        ),
        ServerSpec(
            "floor-asgi",
            "floor: bare ASGI app + msgspec (uvicorn)",
            "floor",
            "django",
            "uvicorn",
            "floor_asgi:app",
            features=_NO_ORM,
            note="no checks, no Django",
        ),
        ServerSpec(
            "floor-django-async",
            "floor: bare async Django view + msgspec (uvicorn)",
            "floor",
            "django",
            "uvicorn",
            "floor_django_async:application",
        ),
        ServerSpec(
            "floor-django-sync",
            "floor: bare sync Django view + msgspec (gunicorn)",
            "floor",
            "django",
            "gunicorn",
            "floor_django_sync:wsgi_application",
        ),
        ServerSpec(
            "ours-asgi",
            "django_mcp Server.as_view() (Django ASGI, uvicorn)",
            "ours",
            "django",
            "uvicorn",
            "ours:application",
        ),
        ServerSpec(
            "ours-wsgi",
            "django_mcp Server.as_view() (Django WSGI, gunicorn)",
            "ours",
            "django",
            "gunicorn",
            "ours:wsgi_application",
        ),
        ServerSpec(
            "ours-asgi-fast",
            "django_mcp McpASGIApp (uvicorn)",
            "ours",
            "django",
            "uvicorn",
            "ours:fast_asgi",
            fast="asgi",
        ),
        ServerSpec(
            "ours-wsgi-fast",
            "django_mcp McpWSGIApp (gunicorn)",
            "ours",
            "django",
            "gunicorn",
            "ours:fast_wsgi",
            fast="wsgi",
        ),
        # The same ASGI apps under a Rust HTTP server: what the Python HTTP
        # stack costs, next to bolt-mcp (whose HTTP core is Rust too).
        ServerSpec(
            "floor-asgi-granian",
            "floor: bare ASGI app + msgspec (granian)",
            "floor",
            "granian",
            "granian",
            "floor_asgi:app",
            features=_NO_ORM,
            note="no checks, no Django",
        ),
        ServerSpec(
            "ours-asgi-fast-granian",
            "django_mcp McpASGIApp (granian)",
            "ours",
            "granian",
            "granian",
            "ours:fast_asgi",
            fast="asgi",
        ),
    )
}
