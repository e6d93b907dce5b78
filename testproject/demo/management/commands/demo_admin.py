"""``manage.py demo_admin``: a local superuser for the demo's admin (idempotent).

The password is read from ``--password-file`` (``.demo-admin-password`` at
the repository root, git-ignored); a missing file is created with a new
random password, readable by its owner only. Each run makes sure the user
exists, is an active superuser and has that password, then prints the
credentials. For a local demo only: never use it on a shared machine.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

DEFAULT_FILE = Path(__file__).resolve().parents[4] / ".demo-admin-password"


class Command(BaseCommand):
    help = "Create or update the demo's local superuser and print its credentials."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin", help="The superuser's username (default: admin).")
        parser.add_argument(
            "--password-file",
            type=Path,
            default=DEFAULT_FILE,
            help="Where the password is kept; created with a random one when missing.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        path: Path = options["password_file"]
        password = self._password(path)
        user_model = get_user_model()
        user, created = user_model._default_manager.get_or_create(**{user_model.USERNAME_FIELD: username})
        user.is_active = user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} the demo superuser: {username} / {password} (password kept in {path})")

    def _password(self, path: Path) -> str:
        try:
            password = path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            password = ""
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from exc
        if password:
            return password
        password = secrets.token_urlsafe(12)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(password + "\n")
        return password
