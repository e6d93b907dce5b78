"""Compile a ``Server`` declaration into an immutable, validated catalog.

``compile_server(MyServer)`` runs once per class (the result is cached)
and raises ``ImproperlyConfigured`` naming the offending class for every
declaration mistake: bad or duplicate names, a missing ``handle``, handler
parameters that cannot be supplied, invalid schemas, URI templates that are
ambiguous without a ``match(uri)`` method, uri and uri_template both or
neither set. Skills are read and validated here too (``skills.py``), and
raise ``SkillError`` for a missing or broken skill. The dispatcher only
ever sees compiled entries.

The work is split by job: ``_server_compiler`` assembles the catalog from
``_tool_compiler``, ``_resource_compiler`` and ``_prompt_compiler``, on the
checks every declaration shares (``_declarations``); ``_compiled`` holds
the immutable results. This module is the public face and keeps the
per-class cache.
"""

from __future__ import annotations

import threading

from django_mcp.server._compiled import (
    CompiledPrompt,
    CompiledResource,
    CompiledServer,
    CompiledTool,
    ServedOnce,
    ServerClass,
)
from django_mcp.server._declarations import default_name
from django_mcp.server._server_compiler import compile_declared as _compile
from django_mcp.server.primitives import is_server

__all__ = [
    "CompiledPrompt",
    "CompiledResource",
    "CompiledServer",
    "CompiledTool",
    "ServedOnce",
    "compile_server",
    "default_name",
    "is_server",
]

_cache: dict[ServerClass, CompiledServer] = {}
_lock = threading.Lock()


def compile_server(server: ServerClass) -> CompiledServer:
    """Return the compiled catalog of ``server``, building it on first use."""
    compiled = _cache.get(server)
    if compiled is None:
        with _lock:
            compiled = _cache.get(server)
            if compiled is None:
                compiled = _compile(server)
                _cache[server] = compiled
    return compiled
