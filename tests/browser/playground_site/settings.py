"""The demo project's settings plus the playground fixture app (browser tests)."""

from __future__ import annotations

from testproject.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.browser.playground_site"]  # noqa: F405
# The admin speaks the browser's language (Accept-Language), as a site with
# LocaleMiddleware does: the Spanish test asks for es.
MIDDLEWARE = [*MIDDLEWARE]  # noqa: F405
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.sessions.middleware.SessionMiddleware") + 1,
    "django.middleware.locale.LocaleMiddleware",
)
