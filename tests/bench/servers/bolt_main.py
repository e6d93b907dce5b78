"""Start django-bolt's server for ``bolt_app``: ``python bolt_main.py HOST PORT``.

One process, django-bolt's default worker threads, no admin, no system
checks (the other Django servers run none at startup either).
"""

from __future__ import annotations

import sys

import bolt_app  # noqa: F401  (configures settings and mounts the MCP endpoint)
from django.core.management import execute_from_command_line

if __name__ == "__main__":
    host, port = sys.argv[1:3]
    execute_from_command_line(
        [
            "bolt_main",
            "runbolt",
            "--host",
            host,
            "--port",
            port,
            "--processes",
            "1",
            "--no-admin",
            "--skip-checks",
        ]
    )
