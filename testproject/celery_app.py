"""The test project's Celery app, for ``DJANGO_MCP_TASKS=celery``.

The usual Django pattern: Celery reads the ``CELERY_*`` settings, and the
worker (``celery -A testproject.celery_app worker``) sets Django up before it consumes
a job, so ``django_mcp``'s ``AppConfig.ready()`` builds the MCP task job on
the ``TASKS`` alias, which django-tasks-celery registers with this app
then. The settings name this app in the backend's ``CELERY_APP`` option;
nothing imports it in the other modes, where Celery need not be installed.
Not named ``celery.py``: ``testproject/manage.py`` puts this directory first
on ``sys.path``, where such a module would hide the Celery package.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")

app = Celery("testproject")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
