"""``manage.py seed_demo``: load the demo library (safe to run repeatedly)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from testproject.demo.seed import seed


class Command(BaseCommand):
    help = "Create the demo library's authors and books; existing rows are kept."

    def handle(self, *args: Any, **options: Any) -> None:
        authors, books = seed()
        self.stdout.write(f"Created {authors} author(s) and {books} book(s).")
