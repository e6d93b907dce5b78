"""Settings for the demo project and the test suite (SQLite, no services).

``DEBUG`` is off unless ``DJANGO_DEBUG=1``. ``SECRET_KEY`` comes from
``DJANGO_SECRET_KEY``, else from ``testproject/.secret_key`` (git-ignored),
which the first process to start creates with a random key: a checkout never
runs with a key anyone else knows, and all its processes (workers, tests and
the servers they start) share one key. Never deploy these settings.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY_FILE = BASE_DIR / ".secret_key"


def _local_secret_key(path: Path) -> str:
    """Return the key stored at ``path``, creating it first if need be."""
    if not path.exists():
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as draft:
            draft.write(secrets.token_urlsafe(50))
        try:
            # Atomic, and refused when another process got there first:
            # every process ends up reading the same complete key.
            os.link(draft.name, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(draft.name)
    return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _local_secret_key(SECRET_KEY_FILE)
DEBUG = os.environ.get("DJANGO_DEBUG") == "1"
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]", "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Their own admins are published through AdminSiteTools in the tests
    # (tests/contrib/test_admin_site.py).
    "django.contrib.sites",
    "django.contrib.flatpages",
    "django.contrib.redirects",
    "django_mcp",
    "testproject.demo",
    "testproject.conformance",
    "testproject.shelf",
]
# The shelf's REST API when Django REST framework (the drf extra) is installed.
if importlib.util.find_spec("rest_framework") is not None:
    INSTALLED_APPS += ["rest_framework", "rest_framework.authtoken"]
# Bearer tokens through django-oauth-toolkit when the oauth extra is installed.
if importlib.util.find_spec("oauth2_provider") is not None:
    INSTALLED_APPS.append("oauth2_provider")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The admin's clickjacking protection (the MCP section denies framing
    # itself too).
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "testproject.urls"
SITE_ID = 1
ASGI_APPLICATION = "testproject.asgi.application"
WSGI_APPLICATION = "testproject.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("DJANGO_MCP_DB", str(BASE_DIR.parent / "demo.sqlite3")),
    }
}

# A PostgreSQL database instead (the multi-process tasks test sets these).
if os.environ.get("DJANGO_MCP_PG_NAME"):
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": os.environ["DJANGO_MCP_PG_NAME"],
            "HOST": os.environ.get("DJANGO_MCP_PG_HOST", "127.0.0.1"),
            "PORT": os.environ.get("DJANGO_MCP_PG_PORT", "5432"),
            "USER": os.environ.get("DJANGO_MCP_PG_USER", "postgres"),
        }
    }

# Tool calls answered with MCP tasks: with no TASKS setting (the demo, and the
# live servers the tests start) they run in a thread pool inside the server
# process, django_mcp's default. Under pytest, in-process tests run them
# inside the request (the immediate backend of Django 6's Tasks framework,
# else of the django-tasks backport); DJANGO_MCP_TASKS=database stores them
# with django-tasks-db for `manage.py db_worker` processes, =rq in Redis for
# `manage.py rqworker` processes, =celery hands them to Celery workers
# (testproject/celery_app.py), =immediate and =pool choose the others
# explicitly.
if importlib.util.find_spec("django_tasks_db") is not None:
    INSTALLED_APPS.append("django_tasks_db")
_TASKS_MODE = os.environ.get("DJANGO_MCP_TASKS") or ("immediate" if "pytest" in sys.modules else "pool")
TASKS: dict[str, dict[str, Any]]
if _TASKS_MODE == "immediate":
    _TASKS_PACKAGE = "django.tasks" if importlib.util.find_spec("django.tasks") else "django_tasks"
    TASKS = {"default": {"BACKEND": f"{_TASKS_PACKAGE}.backends.immediate.ImmediateBackend"}}
elif _TASKS_MODE == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
elif _TASKS_MODE == "rq":
    # django-tasks-rq: jobs in Redis (DJANGO_MCP_RQ_URL, else a database
    # number of its own on the local server), run by `manage.py rqworker`.
    INSTALLED_APPS.append("django_rq")
    RQ_QUEUES = {"default": {"URL": os.environ.get("DJANGO_MCP_RQ_URL", "redis://127.0.0.1:6379/10")}}
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}}
elif _TASKS_MODE == "celery":
    # django-tasks-celery (Django 6) hands jobs to the Celery app of
    # testproject/celery_app.py; its workers run them. The McpTask rows are the
    # truth for tasks/get, so no Celery result backend is needed.
    TASKS = {
        "default": {
            "BACKEND": "django_tasks_celery.CeleryBackend",
            "OPTIONS": {"CELERY_APP": "testproject.celery_app.app"},
        }
    }
    # A Redis URL, or an AMQP one for RabbitMQ (amqp://user:password@host:5672/vhost).
    CELERY_BROKER_URL = os.environ.get("DJANGO_MCP_CELERY_BROKER_URL", "redis://127.0.0.1:6379/12")
    # Each test's web process and worker share a key prefix of their own on
    # Redis (a virtual host of their own on RabbitMQ, named in the URL), so
    # two runs on one broker never take each other's jobs.
    if _celery_prefix := os.environ.get("DJANGO_MCP_CELERY_PREFIX", ""):
        CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": _celery_prefix}
    CELERY_TASK_SERIALIZER = "json"
    # Acknowledge a job when it ends rather than when a worker takes it, so
    # the broker hands a killed worker's job to the next one (the live tests
    # prove django_mcp runs such a job once).
    CELERY_TASK_ACKS_LATE = os.environ.get("DJANGO_MCP_CELERY_ACKS_LATE") == "1"
    # No result backend: silence the backend's warnings about get_result().
    SILENCED_SYSTEM_CHECKS = ["django_tasks_celery.W001", "django_tasks_celery.W002"]

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# The worker-fault tests (tests/live/test_tasks_workers.py) shorten task leases.
if os.environ.get("DJANGO_MCP_TASK_LEASE_TIMEOUT"):
    MCP_TASK_LEASE_TIMEOUT = float(os.environ["DJANGO_MCP_TASK_LEASE_TIMEOUT"])

# The scale-out benchmark (tests/bench/scale_out.py) creates hundreds of
# tasks from one anonymous address: it lifts the per-caller task quotas.
if os.environ.get("DJANGO_MCP_NO_TASK_QUOTAS"):
    MCP_MAX_TASKS_PER_CLIENT = None
    MCP_MAX_TASKS_PER_ANONYMOUS_CLIENT = None
    MCP_TASK_RATE_LIMIT = None

# Several worker processes sharing one Redis (tests/live/test_workers.py,
# tests/bench/multi_worker.py): change events and 2025-11-25 sessions go
# through it.
if os.environ.get("DJANGO_MCP_REDIS_URL"):
    MCP_EVENT_BACKEND = "django_mcp.events.redis.RedisEventBackend"
    MCP_REDIS_URL = os.environ["DJANGO_MCP_REDIS_URL"]
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": MCP_REDIS_URL}
    }
# Several worker processes sharing one PostgreSQL database and no Redis
# (tests/live/test_workers.py): change events go through LISTEN/NOTIFY.
if os.environ.get("DJANGO_MCP_PG_EVENTS"):
    MCP_EVENT_BACKEND = "django_mcp.events.postgres.PostgresEventBackend"
# ... and, with no Redis, 2025-11-25 sessions in Django's database cache
# (``manage.py createcachetable`` first).
if os.environ.get("DJANGO_MCP_DATABASE_CACHE"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_mcp_test_cache",
        }
    }
# bash .ci/demo records every request in the audit trail (the admin's "Audit
# entries") with DJANGO_MCP_AUDIT=all; the test suite turns it on where it
# tests it.
MCP_AUDIT = os.environ.get("DJANGO_MCP_AUDIT") or None

# The test suite and its live server open far more than the default 100
# 2025-11-25 sessions per hour, all from 127.0.0.1.
MCP_MAX_SESSIONS_PER_CLIENT = 100_000

STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(BASE_DIR / "media")},
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

STATIC_URL = "static/"
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django_mcp": {"handlers": ["console"], "level": os.environ.get("DJANGO_MCP_LOG", "WARNING")}
    },
}
