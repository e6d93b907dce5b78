"""Demo catalog data and the idempotent loader behind ``manage.py seed_demo``."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from django.db import transaction

from testproject.demo.models import Author, Book

__all__ = ["AUTHORS", "seed"]

#: ``(name, born, books)``; each book is ``(isbn, title, published, price,
#: in_stock, summary)``.
AUTHORS: tuple[tuple[str, datetime.date | None, tuple[tuple[Any, ...], ...]], ...] = (
    (
        "Ursula K. Le Guin",
        datetime.date(1929, 10, 21),
        (
            (
                "9780547773742",
                "A Wizard of Earthsea",
                datetime.date(1968, 11, 1),
                Decimal("9.99"),
                True,
                "A young mage learns the true names of things and the price of pride.",
            ),
            (
                "9780441478125",
                "The Left Hand of Darkness",
                datetime.date(1969, 3, 1),
                Decimal("12.50"),
                True,
                "An envoy to a wintry planet learns to see beyond gender.",
            ),
            (
                "9780061054884",
                "The Dispossessed",
                datetime.date(1974, 5, 1),
                Decimal("11.25"),
                False,
                "A physicist crosses between an anarchist moon and its rich planet.",
            ),
        ),
    ),
    (
        "Octavia E. Butler",
        datetime.date(1947, 6, 22),
        (
            (
                "9780807083697",
                "Kindred",
                datetime.date(1979, 6, 1),
                Decimal("10.00"),
                True,
                "A writer is pulled back in time to an antebellum plantation.",
            ),
            (
                "9781538732182",
                "Parable of the Sower",
                datetime.date(1993, 10, 1),
                Decimal("14.99"),
                False,
                "A young woman founds a new faith as her country collapses.",
            ),
        ),
    ),
    (
        "Terry Pratchett",
        datetime.date(1948, 4, 28),
        (
            (
                "9780062225757",
                "Guards! Guards!",
                datetime.date(1989, 11, 1),
                Decimal("8.99"),
                True,
                "The Night Watch of Ankh-Morpork faces a summoned dragon.",
            ),
            (
                "9780062237378",
                "Small Gods",
                datetime.date(1992, 5, 1),
                Decimal("8.99"),
                True,
                "A god reduced to a tortoise has one believer left.",
            ),
        ),
    ),
    (
        "Anonymous",
        None,
        (
            (
                "9780140449198",
                "The Epic of Gilgamesh",
                datetime.date(1960, 1, 1),
                Decimal("7.50"),
                True,
                "A king searches for immortality after the death of his friend.",
            ),
        ),
    ),
)


@transaction.atomic
def seed() -> tuple[int, int]:
    """Create the demo authors and books that are missing.

    Existing rows (matched by author name and ISBN) are left as they are,
    so edits made through the admin or the ``set-stock`` tool survive a
    second run. Return how many authors and books were created.
    """
    authors = books = 0
    for name, born, titles in AUTHORS:
        author, created = Author.objects.get_or_create(name=name, defaults={"born": born})
        authors += created
        for isbn, title, published, price, in_stock, summary in titles:
            _, created = Book.objects.get_or_create(
                isbn=isbn,
                defaults={
                    "title": title,
                    "author": author,
                    "published": published,
                    "price": price,
                    "in_stock": in_stock,
                    "summary": summary,
                },
            )
            books += created
    return authors, books
