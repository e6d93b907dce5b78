"""ASGI entry point: ``uvicorn testproject.asgi:application``.

Under DEBUG the admin's static files are served too, so the demo looks
right without a separate static server.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")

application = get_asgi_application()
if settings.DEBUG:
    application = ASGIStaticFilesHandler(application)  # type: ignore[assignment]
