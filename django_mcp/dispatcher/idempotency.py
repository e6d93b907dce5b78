"""Idempotency keys: a retried ``tools/call`` answered once, from the first run.

A client that may send a write twice (a timeout, a dropped connection)
puts a key in ``params._meta["io.github.django-mcp/idempotency-key"]``: a
string of 1 to 255 characters. MCP has no standard key for this yet (spec
issue #3394 is open), hence a ``_meta`` key under django-mcp's own
reverse-DNS prefix: MCP 2026-07-28 basic/index "_meta" reserves only the
``modelcontextprotocol``/``mcp`` prefixes and leaves others to
implementations.

Only tools declaring ``idempotency_keys = True`` honour it; any other tool
ignores the key, whatever its value. For a tool that does, after the call
is admitted (an unknown or hidden tool and invalid arguments are answered
as without a key):

1. A key that is not a string of 1 to 255 characters is -32602.
2. The key is reserved by inserting an ``McpIdempotencyKey`` row, unique
   per server, caller (``user:<pk>``, else ``anonymous:<address>``), tool
   and key. The INSERT comes first and a unique-constraint failure means
   the key is taken, so two concurrent calls never both run: there is no
   check-then-insert window.
3. A taken key answers without running the tool: the first call's stored
   ``CallToolResult`` when it succeeded; an ``isError`` result when the
   arguments differ from the first call's (compared by the SHA-256 of
   their canonical JSON), or when the first call is still running.
4. The reserving call runs (as a task, if it becomes one). A successful
   direct result (not ``isError``) is stored on the row. An ``isError``
   result, an input-required answer, a task handle (keys apply to direct
   results only) and an exception release the key, so a retry runs again:
   a well-behaved write tool committed nothing in those cases.

A key is kept ``MCP_IDEMPOTENCY_KEY_TTL`` seconds from its reservation; an
older row counts as absent (it is replaced, deleting it only if it is
still the expired one) and ``manage.py mcp_prune_idempotency_keys``
deletes such rows (``prune()``). Database work runs in a thread.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, cast

import msgspec
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from django_mcp._callers import caller_principal
from django_mcp._sync import run_sync
from django_mcp.conf import get_settings
from django_mcp.dispatcher.context import Call
from django_mcp.exceptions import InvalidParams
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import CallToolResult

if TYPE_CHECKING:
    from django_mcp.models import McpIdempotencyKey

__all__ = [
    "IDEMPOTENCY_KEY",
    "MAX_KEY_LENGTH",
    "OTHER_ARGUMENTS",
    "STILL_RUNNING",
    "Held",
    "Reservation",
    "arguments_hash",
    "hold",
    "key_of",
    "prune",
    "reserve",
    "settle",
]

logger = logging.getLogger(__name__)

IDEMPOTENCY_KEY: Final = "io.github.django-mcp/idempotency-key"
"""The ``params._meta`` key of a ``tools/call``'s idempotency key."""

MAX_KEY_LENGTH: Final = 255
"""Characters an idempotency key may have (at least one)."""

STILL_RUNNING: Final = "A call with this idempotency key is still running; retry later."
"""The ``isError`` text of a retry that arrives while the first call runs."""

OTHER_ARGUMENTS: Final = (
    "This idempotency key was already used with other arguments: send a new key for a new call."
)
"""The ``isError`` text of a key reused with other arguments."""

#: Inserts one ``reserve()`` tries while other calls release or replace the row.
_ATTEMPTS: Final = 3
_ENCODER: Final = msgspec.json.Encoder()


def key_of(params: Mapping[str, Any]) -> str | None:
    """Return the idempotency key in a ``tools/call``'s ``params._meta``, else None.

    Raises:
        InvalidParams: the key is not a string of 1 to 255 characters.
    """
    meta = params.get("_meta")
    if not isinstance(meta, dict) or IDEMPOTENCY_KEY not in meta:
        return None
    key = meta[IDEMPOTENCY_KEY]
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_LENGTH:
        raise InvalidParams(f"_meta {IDEMPOTENCY_KEY!r} must be a string of 1 to {MAX_KEY_LENGTH} characters")
    return key


def arguments_hash(arguments: Mapping[str, Any]) -> str:
    """Return the SHA-256 (hex) of ``arguments`` as canonical JSON (sorted keys, compact)."""
    return hashlib.sha256(msgspec.json.encode(arguments, order="sorted")).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Reservation:
    """What ``reserve()`` found: the key reserved by this call, or the row holding it."""

    #: "reserved": this call holds the key and runs; "exists": another did.
    status: Literal["reserved", "exists"]
    #: The row's primary key (None: the key kept changing hands; treat as running).
    row_id: int | None
    #: The SHA-256 of the arguments the row was reserved with.
    arguments_hash: str
    #: The stored ``CallToolResult`` JSON (None: its call still runs).
    result: str | None = None


def reserve(
    *,
    server: str,
    caller: str,
    tool: str,
    key: str,
    arguments_hash: str,
    ttl: float,
    now: datetime.datetime | None = None,
) -> Reservation:
    """Reserve ``key`` for a call, or return the unexpired row already holding it.

    The INSERT comes first: the unique constraint decides between
    concurrent calls. A row reserved more than ``ttl`` seconds ago counts
    as absent: it is deleted (only while it is still that expired row) and
    the insert is tried again. Runs in a thread (ORM).
    """
    model = _model()
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=ttl)
    rows = model.objects.filter(server=server, caller=caller, tool=tool, key=key)
    for _attempt in range(_ATTEMPTS):
        try:
            # A savepoint: the failed INSERT must not break an outer transaction.
            with transaction.atomic():
                row = model.objects.create(
                    server=server,
                    caller=caller,
                    tool=tool,
                    key=key,
                    arguments_hash=arguments_hash,
                    created_at=now,
                )
        except IntegrityError:
            pass
        else:
            return Reservation("reserved", row.pk, arguments_hash)
        found = rows.first()
        if found is None:
            continue  # released since the INSERT failed: reserve it again
        if found.created_at > cutoff:
            return Reservation("exists", found.pk, found.arguments_hash, found.result)
        # Expired: replace it, unless another call replaced it first.
        model.objects.filter(pk=found.pk, created_at__lte=cutoff).delete()
    return Reservation("exists", None, arguments_hash)


@dataclasses.dataclass(frozen=True, slots=True)
class Held:
    """A key ``hold()`` reserved for this call, or the answer when it is taken."""

    #: The reserved row's primary key (None when ``answer`` is set).
    row_id: int | None
    #: The answer of a call whose key is taken (a stored result, or an
    #: ``isError`` one); None: this call holds the key and runs.
    answer: CallToolResult | None = None
    #: Named in the log when the result cannot be stored.
    tool: str = ""


async def hold(call: Call, *, tool: str, arguments: Mapping[str, Any], key: str) -> Held:
    """Reserve ``key`` for this admitted call, or return the answer when it is taken."""
    request = call.request
    digest = arguments_hash(arguments)
    reservation = await run_sync(
        reserve,
        server=call.compiled.key,
        caller=caller_principal(request.user, request.client_address),
        tool=tool,
        key=key,
        arguments_hash=digest,
        ttl=call.settings.idempotency_key_ttl,
    )
    if reservation.status == "exists" or reservation.row_id is None:
        return Held(None, _replay(reservation, digest), tool)
    return Held(reservation.row_id, None, tool)


async def settle(held: Held, result: object) -> None:
    """Store a successful direct ``result`` with the held key, or release the key.

    ``result`` is None when the call raised. A tool error, an
    input-required answer and a task handle release the key too: only a
    direct, successful result is replayed.
    """
    row_id = held.row_id
    if row_id is None:
        return
    if not (isinstance(result, CallToolResult) and not result.isError):
        await _release(row_id)
        return
    try:
        stored = _ENCODER.encode(result).decode()
        await _model().objects.filter(pk=row_id, result__isnull=True).aupdate(result=stored)
    except DatabaseError:
        # The tool ran: keeping the reservation makes retries wait
        # (STILL_RUNNING) until it expires rather than run it twice.
        logger.exception("Could not store the result of tool %r for its idempotency key", held.tool)


def prune(*, ttl: float | None = None, now: datetime.datetime | None = None, dry_run: bool = False) -> int:
    """Delete the keys reserved more than ``ttl`` seconds ago; return how many.

    ``ttl`` defaults to ``MCP_IDEMPOTENCY_KEY_TTL``; such rows already
    count as absent, so deleting them changes no answer.
    """
    if ttl is None:
        ttl = get_settings().idempotency_key_ttl
    cutoff = (now or timezone.now()) - datetime.timedelta(seconds=ttl)
    expired = _model().objects.filter(created_at__lte=cutoff)
    if dry_run:
        return expired.count()
    deleted, _by_model = expired.delete()
    return deleted


def _replay(reservation: Reservation, digest: str) -> CallToolResult:
    """Return the answer to a call whose key is taken."""
    if reservation.arguments_hash != digest:
        return _tool_error(OTHER_ARGUMENTS)
    if reservation.result is None:
        return _tool_error(STILL_RUNNING)
    stored = msgspec.json.decode(reservation.result)
    # The content blocks stay decoded JSON: encoded again as they are.
    return CallToolResult(
        content=cast(Any, stored.get("content", ())),
        structuredContent=stored.get("structuredContent", UNSET),
        isError=False,
        meta=stored.get("_meta", UNSET),
    )


def _tool_error(message: str) -> CallToolResult:
    return CallToolResult(content=(TextContent(text=message),), isError=True)


async def _release(row_id: int) -> None:
    """Delete a reservation whose call stored nothing, so a retry runs again."""
    try:
        await _model().objects.filter(pk=row_id, result__isnull=True).adelete()
    except DatabaseError:
        # Retries then wait (STILL_RUNNING) until the key expires.
        logger.exception("Could not release idempotency key row %s", row_id)


def _model() -> type[McpIdempotencyKey]:
    # Imported on first use: a project's asgi.py or wsgi.py imports
    # django_mcp.asgi/wsgi (and so the dispatcher) before Django's app
    # registry can load models.
    from django_mcp.models import McpIdempotencyKey

    return McpIdempotencyKey
