"""Limit how often one caller may call tools: ``MCP_RATE_LIMIT``.

The setting is ``"<count>/<period>"``: at most ``count`` tool calls per
period, where the period is ``s`` (second), ``m`` (minute), ``h`` (hour) or
``d`` (day), optionally spelled out (``"60/min"``, ``"1000/hour"``). None
(the default) means unlimited; anything else raises ``ValueError`` naming
the value.

Counting uses fixed windows aligned to the epoch (a "60/m" caller may make
60 calls in each calendar minute), in Django's ``default`` cache, shared by
every process using it. The caller is identified by, in order: the primary
key of the authenticated user; the client address, which is
``REMOTE_ADDR`` unless ``MCP_CLIENT_IP`` names a function
``func(request) -> str | None`` (behind a proxy: read the header that proxy
sets, trusting it only from the proxy's address); the literal
``"anonymous"`` (every unauthenticated STDIO caller shares it). All
tools and servers share one budget per caller. ``count_in_window`` is the
counter itself; the HTTP transport also uses it to bound the 2025-11-25
sessions one caller opens (``MCP_MAX_SESSIONS_PER_CLIENT``).

The counter is incremented with the backend's ``incr()``, which is atomic
and keeps the key's expiry on the local-memory, Redis and Memcached
backends. Django's generic ``aincr()`` reads and writes the value instead
(racy, and it resets the expiry), so it is only used where a backend
overrides it. The database and file-based caches have no atomic increment
either: counts there are approximate under concurrency.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import time
import urllib.parse
from typing import Any, Final

from django.core.cache import caches
from django.core.cache.backends.base import BaseCache

from django_mcp._callers import caller_identity
from django_mcp._sync import run_sync, sync_or_async
from django_mcp.conf import get_setting
from django_mcp.request import McpRequest

__all__ = [
    "CACHE_ALIAS",
    "Rate",
    "Window",
    "allow_tool_call",
    "count_in_window",
    "identity_of",
    "parse_rate",
]

logger = logging.getLogger(__name__)

CACHE_ALIAS: Final = "default"
"""The cache alias holding the counters."""

_KEY_PREFIX: Final = "django_mcp:ratelimit"
_PERIODS: Final[dict[str, int]] = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}
_RATE_RE: Final = re.compile(r"^\s*([0-9]+)\s*/\s*([a-z]+)\s*$", re.ASCII)

#: Seconds since the epoch; tests replace it to move between windows.
_now = time.time


@dataclasses.dataclass(frozen=True, slots=True)
class Rate:
    """At most ``count`` calls per ``period`` seconds."""

    count: int
    period: int  # seconds


def parse_rate(value: Any, *, setting: str = "MCP_RATE_LIMIT") -> Rate:
    """Return the ``Rate`` that ``value`` (like ``"60/m"``) stands for.

    ``setting`` names where the value came from, in the error.

    Raises:
        ValueError: ``value`` is not ``"<positive count>/<s|m|h|d>"``.
    """
    rate = _parse(value) if isinstance(value, str) else None
    if rate is None:
        raise ValueError(
            f"{setting} {value!r} is malformed: use '<count>/<period>' with a positive count "
            "and a period of s, m, h or d, e.g. '60/m' (None disables the limit)"
        )
    return rate


@functools.lru_cache(maxsize=32)
def _parse(value: str) -> Rate | None:
    match = _RATE_RE.match(value)
    if match is None or match.group(2) not in _PERIODS or int(match.group(1)) < 1:
        return None
    return Rate(count=int(match.group(1)), period=_PERIODS[match.group(2)])


def identity_of(request: McpRequest) -> str:
    """Return whom a request's calls are counted for (``_callers.caller_identity``)."""
    return caller_identity(request.user, request.client_address)


@dataclasses.dataclass(frozen=True, slots=True)
class Window:
    """How many times an identity was counted in the current window."""

    count: int
    resets_in: int  # seconds until the next window starts


async def count_in_window(scope: str, identity: str, period: int) -> Window:
    """Count one more event of ``identity`` in the current ``period``-second window.

    ``scope`` names what is counted (separate counters, same cache). Windows
    are aligned to the epoch; the counters live in ``CACHE_ALIAS``.
    """
    now = int(_now())
    window = now // period
    # Quoting keeps keys free of spaces and control characters, which
    # Memcached rejects and Django warns about.
    key = f"{scope}:{period}:{urllib.parse.quote(identity, safe=':')}:{window}"
    count = await _increment(caches[CACHE_ALIAS], key, timeout=period)
    return Window(count=count, resets_in=(window + 1) * period - now)


_FROM_SETTINGS: Final[Any] = object()


async def allow_tool_call(request: McpRequest, tool_name: str, *, rate: str | None = _FROM_SETTINGS) -> bool:
    """Count one call of ``tool_name`` and return False when over the limit.

    ``rate`` is the limit to apply (``"60/m"``; None for unlimited); by
    default ``MCP_RATE_LIMIT``.

    Raises:
        ValueError: the rate is malformed.
    """
    setting = get_setting("MCP_RATE_LIMIT") if rate is _FROM_SETTINGS else rate
    if setting is None:
        return True
    limit = parse_rate(setting)
    identity = identity_of(request)
    counted = await count_in_window(_KEY_PREFIX, identity, limit.period)
    if counted.count > limit.count:
        logger.warning("Rate limit %s exceeded by %s calling tool %r", setting, identity, tool_name)
        return False
    return True


async def _increment(cache: BaseCache, key: str, *, timeout: int) -> int:
    # A window's key is never read after the window ends, so expiring it one
    # period after creation only frees memory.
    if await sync_or_async(cache.add, cache.aadd, key, 1, timeout=timeout):
        return 1
    try:
        return await _incr(cache, key)
    except ValueError:
        # The key expired between add() and incr(): start the window again.
        await sync_or_async(cache.add, cache.aadd, key, 0, timeout=timeout)
        return await _incr(cache, key)


async def _incr(cache: BaseCache, key: str) -> int:
    if type(cache).aincr is not BaseCache.aincr:
        value: Any = await sync_or_async(cache.incr, cache.aincr, key)
    else:
        value = await run_sync(cache.incr, key)
    return int(value)
