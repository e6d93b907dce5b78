"""The deployment checks run with ``manage.py check --deploy`` only."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.checks import run_checks
from django.core.management import call_command

# ----------------------------------------------------------- registration


def test_deploy_checks_only_run_with_deploy() -> None:
    assert [m.id for m in run_checks(tags=["django_mcp"]) if m.id == "django_mcp.W002"] == []
    ids = [m.id for m in run_checks(tags=["django_mcp"], include_deployment_checks=True)]
    assert "django_mcp.W002" in ids


# ---------------------------------------------------------- call_command


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_deploy_command_prints_warnings(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["mcp.example.com"]
    stderr = io.StringIO()
    call_command("check", "--deploy", "--tag", "django_mcp", stdout=io.StringIO(), stderr=stderr)
    assert "(django_mcp.W001)" in stderr.getvalue()
    assert "(django_mcp.W002)" in stderr.getvalue()
    assert "(django_mcp.W004)" in stderr.getvalue()
    assert "(django_mcp.W005)" in stderr.getvalue()
