"""Tests for the demo's ``manage.py demo_admin`` (the local superuser of .ci/demo)."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def _run(path: Path) -> str:
    out = io.StringIO()
    call_command("demo_admin", "--password-file", str(path), stdout=out)
    return out.getvalue()


def test_creates_a_superuser_with_a_generated_password_kept_private(tmp_path: Path) -> None:
    path = tmp_path / "password"

    output = _run(path)

    password = path.read_text().strip()
    assert len(password) >= 16
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert output == f"Created the demo superuser: admin / {password} (password kept in {path})\n"
    user = authenticate(username="admin", password=password)
    assert user is not None and user.is_superuser and user.is_staff


def test_running_again_keeps_the_password_and_repairs_the_user(tmp_path: Path) -> None:
    path = tmp_path / "password"
    _run(path)
    password = path.read_text().strip()
    get_user_model().objects.filter(username="admin").update(is_active=False, is_superuser=False)

    output = _run(path)

    assert output.startswith(f"Updated the demo superuser: admin / {password} ")
    assert path.read_text().strip() == password
    assert authenticate(username="admin", password=password).is_superuser  # type: ignore[union-attr]
    assert get_user_model().objects.count() == 1
