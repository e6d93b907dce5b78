"""What every benchmark server serves, whatever framework it is written in.

Each app file under ``tests/bench/servers/`` declares the same components in
its own framework's idiom, named as below, so that one request body gets the
same answer from every server:

* ``echo(text)``: returns ``text`` as one text content block (no
  structured content, no output schema);
* ``sum_product(a, b)``: structured content ``{"sum": a + b, "product":
  a * b}`` under an output schema with both fields as integers;
* ``orm_lookup(item_id)`` (Django servers only): a synchronous tool reading
  one row through the ORM, answering the item's name as text;
* the resource template ``bench://items/{item_id}``: ``item <item_id>`` as
  ``text/plain``;
* fillers ``filler_00000``... taking ``text`` like ``echo``, so that the
  server registers ``BENCH_TOOLS`` tools in all (default 10), echo first.

Importing this module also silences log records below WARNING
(``quiet_logging``), the same for every server. Environment, set by
``run.py``: ``BENCH_TOOLS`` (the tool count) and ``BENCH_DB`` (the SQLite
file holding ``bench_item``, made by the harness). Standard library only:
every server's virtual environment imports it.
"""

from __future__ import annotations

import logging
import os

__all__ = [
    "ECHO_DESCRIPTION",
    "FILLER_DESCRIPTION",
    "ITEM_TEMPLATE",
    "ORM_DESCRIPTION",
    "SUM_DESCRIPTION",
    "filler_names",
    "quiet_logging",
    "tool_count",
]

ECHO_DESCRIPTION = "Return the text unchanged."
SUM_DESCRIPTION = "Return the sum and the product of two integers."
ORM_DESCRIPTION = "Return the name of one item, read through the ORM."
FILLER_DESCRIPTION = "Return the text unchanged (one of the catalog's fillers)."
ITEM_TEMPLATE = "bench://items/{item_id}"


def tool_count() -> int:
    """Return how many tools the server registers in all (``BENCH_TOOLS``)."""
    return int(os.environ.get("BENCH_TOOLS", "10"))


def filler_names(*, fixed: int) -> list[str]:
    """Return the filler tool names that bring ``fixed`` tools up to the count."""
    return [f"filler_{index:05d}" for index in range(max(tool_count() - fixed, 0))]


def quiet_logging() -> None:
    """Drop log records below WARNING everywhere, for every server alike.

    Some peers log a line or two per request at INFO by default (the SDK's
    session manager, for one); a benchmark should not measure a log handler.
    """
    logging.disable(logging.INFO)


quiet_logging()
