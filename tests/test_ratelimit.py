"""Tests for django_mcp.ratelimit: MCP_RATE_LIMIT fixed windows per caller."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.test import RequestFactory

from django_mcp import ratelimit
from django_mcp.ratelimit import Rate, allow_tool_call, identity_of, parse_rate
from django_mcp.request import McpRequest

REDIS_URL = os.environ.get("MCP_TEST_RATELIMIT_REDIS_URL", "redis://127.0.0.1:6379/14")


class User:
    """Just enough of a Django user for identity_of()."""

    is_authenticated = True

    def __init__(self, pk: int) -> None:
        self.pk = pk


def _request(*, user: Any = None, ip: str | None = None, http: bool = True) -> McpRequest:
    http_request = None
    if http:
        http_request = (
            RequestFactory().post("/mcp/", REMOTE_ADDR=ip) if ip else RequestFactory().post("/mcp/")
        )
        if not ip:
            del http_request.META["REMOTE_ADDR"]
    return McpRequest(
        method="tools/call",
        params={"name": "echo"},
        meta={},
        protocol_version="2026-07-28",
        client_capabilities={},
        http_request=http_request,
        user=user,
    )


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """A controllable clock, at the start of a day-aligned window."""
    now = [1_800_000_000.0 - 1_800_000_000 % 86400]
    monkeypatch.setattr(ratelimit, "_now", lambda: now[0])
    caches["default"].clear()
    yield now
    caches["default"].clear()


async def _calls(request: McpRequest, n: int) -> list[bool]:
    return [await allow_tool_call(request, "echo") for _ in range(n)]


async def test_no_setting_allows_every_call(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = None

    assert await _calls(_request(user=User(1)), 50) == [True] * 50


async def test_calls_over_the_limit_are_refused_until_the_next_window(
    settings: Any, clock: list[float]
) -> None:
    settings.MCP_RATE_LIMIT = "3/m"
    request = _request(user=User(1))

    assert await _calls(request, 5) == [True, True, True, False, False]
    clock[0] += 59
    assert await _calls(request, 1) == [False]
    clock[0] += 1
    assert await _calls(request, 4) == [True, True, True, False]


@pytest.mark.parametrize(("rate", "period"), [("2/s", 1), ("2/m", 60), ("2/h", 3600), ("2/d", 86400)])
async def test_each_period_is_its_own_window_length(
    settings: Any, clock: list[float], rate: str, period: int
) -> None:
    settings.MCP_RATE_LIMIT = rate
    request = _request(ip="192.0.2.1")

    assert await _calls(request, 3) == [True, True, False]
    clock[0] += period - 1
    assert await _calls(request, 1) == [False]
    clock[0] += 1
    assert await _calls(request, 3) == [True, True, False]


async def test_callers_are_counted_separately(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "1/m"

    assert await _calls(_request(user=User(1)), 2) == [True, False]
    assert await _calls(_request(user=User(2)), 2) == [True, False]
    assert await _calls(_request(ip="192.0.2.1"), 2) == [True, False]
    assert await _calls(_request(ip="2001:db8::1"), 2) == [True, False]
    assert await _calls(_request(http=False), 2) == [True, False]


async def test_a_user_is_counted_by_pk_whatever_the_address(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "2/m"

    assert await allow_tool_call(_request(user=User(7), ip="192.0.2.1"), "a")
    assert await allow_tool_call(_request(user=User(7), ip="192.0.2.2"), "b")
    assert not await allow_tool_call(_request(user=User(7), ip="192.0.2.3"), "c")
    # The addresses themselves have their own budgets.
    assert await allow_tool_call(_request(ip="192.0.2.1"), "a")


async def test_concurrent_calls_never_exceed_the_limit(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "10/m"
    request = _request(ip="192.0.2.9")

    verdicts = await asyncio.gather(*(allow_tool_call(request, "echo") for _ in range(25)))

    assert verdicts.count(True) == 10


def test_identity_prefers_the_user_then_the_address_then_anonymous() -> None:
    assert identity_of(_request(user=User(3), ip="192.0.2.1")) == "user:3"
    assert identity_of(_request(user=AnonymousUser(), ip="192.0.2.1")) == "ip:192.0.2.1"
    assert identity_of(_request(user=AnonymousUser())) == "anonymous"
    assert identity_of(_request(http=False)) == "anonymous"


def first_forwarded_for(request: Any) -> str | None:
    """What a project behind one trusted proxy might use as MCP_CLIENT_IP."""
    forwarded = request.headers.get("X-Forwarded-For")
    return forwarded.split(",")[-1].strip() if forwarded else None


def test_the_address_is_remote_addr_whatever_x_forwarded_for_says() -> None:
    request = _request(user=AnonymousUser(), ip="192.0.2.1")
    request.http_request.META["HTTP_X_FORWARDED_FOR"] = "203.0.113.9"

    assert identity_of(request) == "ip:192.0.2.1"


@pytest.mark.parametrize("setting", [f"{__name__}.first_forwarded_for", first_forwarded_for])
def test_mcp_client_ip_gives_the_address_counted(settings: Any, setting: Any) -> None:
    settings.MCP_CLIENT_IP = setting
    forwarded = _request(user=AnonymousUser(), ip="192.0.2.1")
    forwarded.http_request.META["HTTP_X_FORWARDED_FOR"] = "198.51.100.7, 203.0.113.9"

    assert identity_of(forwarded) == "ip:203.0.113.9"
    assert identity_of(_request(user=AnonymousUser(), ip="192.0.2.1")) == "anonymous"  # it said None
    assert identity_of(_request(user=User(3), ip="192.0.2.1")) == "user:3"


async def test_calls_are_counted_per_address_mcp_client_ip_gives(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "1/m"
    settings.MCP_CLIENT_IP = f"{__name__}.first_forwarded_for"
    rotated = []
    for fake in ("198.51.100.1", "198.51.100.2"):
        request = _request(user=AnonymousUser(), ip="192.0.2.1")
        # A client may prepend anything; the trusted proxy appends the real peer.
        request.http_request.META["HTTP_X_FORWARDED_FOR"] = f"{fake}, 203.0.113.9"
        rotated.append(await allow_tool_call(request, "echo"))

    assert rotated == [True, False]


@pytest.mark.parametrize(
    ("value", "rate"),
    [
        ("60/m", Rate(60, 60)),
        ("1/s", Rate(1, 1)),
        ("1000/h", Rate(1000, 3600)),
        ("5/d", Rate(5, 86400)),
        (" 10 / min ", Rate(10, 60)),
        ("2/second", Rate(2, 1)),
        ("3/hour", Rate(3, 3600)),
        ("4/day", Rate(4, 86400)),
    ],
)
def test_parse_rate_accepts_count_per_period(value: str, rate: Rate) -> None:
    assert parse_rate(value) == rate


@pytest.mark.parametrize(
    "value", ["60", "60/", "/m", "0/m", "-1/m", "1.5/m", "60/w", "60/M", "sixty/m", "", 60, ["60/m"]]
)
def test_parse_rate_rejects_malformed_values_naming_them(value: Any) -> None:
    with pytest.raises(ValueError, match=r"MCP_RATE_LIMIT .* is malformed") as info:
        parse_rate(value)

    assert repr(value) in str(info.value)


async def test_malformed_setting_raises_value_error(settings: Any) -> None:
    settings.MCP_RATE_LIMIT = "60 per minute"

    with pytest.raises(ValueError, match=r"MCP_RATE_LIMIT '60 per minute' is malformed"):
        await allow_tool_call(_request(user=User(1)), "echo")


def _redis_up() -> bool:
    try:
        import redis
    except ImportError:
        return False
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=0.5).ping())
    except redis.exceptions.ConnectionError:
        return False


@pytest.mark.skipif(not _redis_up(), reason=f"no Redis server (with the redis package) at {REDIS_URL}")
async def test_redis_cache_counts_atomically_and_keeps_the_window_expiry(settings: Any) -> None:
    prefix = f"test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    }
    settings.MCP_RATE_LIMIT = "10/h"
    request = _request(ip="192.0.2.10")
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        verdicts = await asyncio.gather(*(allow_tool_call(request, "echo") for _ in range(25)))

        assert verdicts.count(True) == 10
        (key,) = client.keys(f"{prefix}:*")
        assert int(client.get(key)) == 25
        # incr() kept the expiry set by add(): one window, not the cache default.
        assert 3590 < client.ttl(key) <= 3600
    finally:
        for key in client.keys(f"{prefix}:*"):
            client.delete(key)
        client.close()
