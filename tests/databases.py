"""The database of each test-project process a test starts.

The suite runs on SQLite, or on PostgreSQL when ``DJANGO_MCP_PG_NAME`` names
a database (``testproject/settings.py``). pytest's own process then works in
the test database pytest-django creates (``test_<name>``), which exists only
while the session lasts and which its tests empty between them; a server,
worker or management command a test starts is another process, reading
``DJANGO_MCP_PG_NAME`` itself. So each such process gets a database of its
own, as on SQLite it gets a file of its own: ``database_env`` returns the
environment naming it, the same for the same path (several workers of one
test share one database), and ``drop_databases`` drops every one it created
when the session ends.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

#: The PostgreSQL databases ``database_env`` created, by the SQLite path they stand for.
_created: dict[Path, str] = {}
#: The variables locating the PostgreSQL server (``testproject/settings.py`` reads them).
_ADDRESS = ("DJANGO_MCP_PG_HOST", "DJANGO_MCP_PG_PORT", "DJANGO_MCP_PG_USER")


def on_postgresql() -> bool:
    """Return whether the suite runs on PostgreSQL (``DJANGO_MCP_PG_NAME`` is set)."""
    return bool(os.environ.get("DJANGO_MCP_PG_NAME"))


def _admin_connection() -> Any:
    import psycopg  # the test extra; only the PostgreSQL line gets here

    return psycopg.connect(
        host=os.environ.get("DJANGO_MCP_PG_HOST", "127.0.0.1"),
        port=os.environ.get("DJANGO_MCP_PG_PORT", "5432"),
        user=os.environ.get("DJANGO_MCP_PG_USER", "postgres"),
        dbname="postgres",
        autocommit=True,
        connect_timeout=10,
    )


def database_env(path: Path) -> dict[str, str]:
    """Return the environment giving a test-project process the database ``path`` stands for.

    On SQLite that is the file at ``path``. On PostgreSQL it is a new, empty
    database named after ``DJANGO_MCP_PG_NAME`` (created on the first call
    for ``path``; later calls for ``path`` return the same one), which the
    caller migrates as it would the file.
    """
    if not on_postgresql():
        return {"DJANGO_MCP_DB": str(path)}
    name = _created.get(path)
    if name is None:
        name = f"{os.environ['DJANGO_MCP_PG_NAME']}_{secrets.token_hex(6)}"
        with _admin_connection() as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        _created[path] = name
    # The server's address too, for a child that does not inherit pytest's environment.
    address = {key: os.environ[key] for key in _ADDRESS if key in os.environ}
    return {**address, "DJANGO_MCP_PG_NAME": name}


def drop_databases() -> None:
    """Drop every database ``database_env`` created (a process still connected is disconnected)."""
    if not _created:
        return
    with _admin_connection() as admin:
        while _created:
            _, name = _created.popitem()
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
