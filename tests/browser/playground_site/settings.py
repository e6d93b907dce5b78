"""The demo project's settings plus the playground fixture app (browser tests)."""

from __future__ import annotations

from testproject.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.browser.playground_site"]  # noqa: F405
