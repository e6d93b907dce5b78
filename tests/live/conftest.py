"""Fixtures of the live tests: PostgreSQL databases migrated once per run.

Migrating a fresh PostgreSQL database runs every migration of the test
project, each DDL statement committed to disk: tens of seconds on a loaded
machine, paid by every server of its own a test starts. Copying a migrated
database (``CREATE DATABASE ... TEMPLATE``) takes a fraction of a second, so
each test still gets a database of its own, in the state ``migrate`` leaves.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator

import pytest


@pytest.fixture(scope="session")
def migrated_template() -> Iterator[Callable[[str], str]]:
    """Return ``template(mode)``: a database migrated with ``DJANGO_MCP_TASKS=mode``.

    Each mode's database is made and migrated on first use (the rq mode
    installs an app of its own), copied by ``_private_database`` in
    ``tests/live/test_tasks_workers.py``, and dropped after the last test.
    Nothing connects to it after ``migrate``: PostgreSQL copies only a
    database no one is connected to.
    """
    from tests.conftest import migrate
    from tests.live.test_tasks_workers import _admin_connection

    made: dict[str, str] = {}

    def template(mode: str) -> str:
        if mode not in made:
            name = f"django_mcp_template_{secrets.token_hex(6)}"
            with _admin_connection() as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            env = {
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "testproject.settings",
                "DJANGO_MCP_PG_NAME": name,
                "DJANGO_MCP_TASKS": mode,
            }
            try:
                migrate(env)
            except BaseException:
                # Never copied half migrated: the next test tries again.
                with _admin_connection() as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                raise
            made[mode] = name
        return made[mode]

    try:
        yield template
    finally:
        if made:
            with _admin_connection() as admin:
                for name in made.values():
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
