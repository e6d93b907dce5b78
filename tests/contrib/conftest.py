"""Fixtures of the contrib tests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.contrib.shelf import Shelf


@pytest.fixture
def shelf(db: Any) -> Shelf:
    """Return the shelf's users and volumes."""
    return Shelf()
