"""One Django configuration for every Django-based benchmark server.

The same settings for all of them: ``DEBUG`` off, no middleware at all (each
server then pays only for its own view), ``127.0.0.1`` allowed, and the
harness's SQLite file as the database. ``configure()`` must run before the
app file imports anything that needs settings.
"""

from __future__ import annotations

import os
from typing import Any

import django
from django.conf import settings

__all__ = ["configure"]


def configure(urlconf: str, *, apps: tuple[str, ...] = (), **extra: Any) -> None:
    """Configure settings for a server whose URLconf is ``urlconf``, then set up."""
    settings.configure(
        DEBUG=False,
        SECRET_KEY="bench-only-not-a-secret-but-long-enough-for-every-peer",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=urlconf,
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", *apps, "benchdata"],
        MIDDLEWARE=[],
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": os.environ.get("BENCH_DB", ":memory:"),
            }
        },
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        USE_TZ=True,
        **extra,
    )
    django.setup()
