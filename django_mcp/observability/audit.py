"""The audit trail: who called what, when, with which (redacted) arguments, and how it ended.

``MCP_AUDIT`` chooses what is recorded, one ``McpAuditEntry`` row per
request:

* ``None`` or ``"off"`` (the default): nothing;
* ``"writes"``: ``tools/call`` of a tool whose annotations do not say
  ``readOnlyHint: true`` (a call of a tool the caller may not use, unknown
  or hidden, is not recorded; resource reads, prompts and lists are not
  writes);
* ``"all"``: every request a dispatcher answers.

A row holds the time, the server, the method, the component (tool or
prompt name, resource URI without its query, ``redact_uri``), the caller
(``user_pk`` and ``username`` of a signed-in user, ``client``:
``user:<pk>``, ``ip:<address>`` or ``anonymous``, and the client address),
the transport, the arguments of a ``tools/call`` or ``prompts/get`` with
secrets replaced by ``REDACTED``, the outcome, the JSON-RPC error code, the
duration and the protocol version. Redaction replaces the value of every
key, at any depth, that a pattern of ``MCP_AUDIT_REDACT`` matches
(``re.search``, case-insensitive), and of every property the tool's input
schema marks ``writeOnly: true`` (``$ref``, ``anyOf``, ``oneOf``,
``allOf`` and ``items`` are followed).

A row is bounded whatever the caller sends, so that nobody fills the disk
through it: the redacted arguments take at most
``MCP_AUDIT_MAX_ARGUMENTS_SIZE`` bytes of compact JSON (4096). Larger ones
are stored cut (``cap``): the top-level members that fit are kept whole,
in order, and the key ``"[truncated]"`` gives the size in bytes of the
whole redacted arguments; arguments that are not an object become
``{"[truncated]": <size>}``. Text columns are cut to their length, ending
with ``…`` when cut. A ``tools/call`` refused because the caller may use
no tool of that name (``ToolNotFound``: unknown, or hidden from it) is
recorded, under ``"all"`` only, with the component ``"[unknown]"`` and no
arguments: a name the caller made up is not kept.

Writing costs the request one INSERT, made after the answer is computed;
a failure is logged (``django_mcp.observability.audit``) and never
reaches the client. A request cancelled before its answer (the client went
away) is not audited. ``prune()`` (``manage.py mcp_prune_audit``) deletes
rows older than ``MCP_AUDIT_RETENTION_DAYS`` days.
"""

from __future__ import annotations

import datetime
import functools
import json
import logging
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

import msgspec
from django.utils import timezone

from django_mcp._callers import caller_identity

if TYPE_CHECKING:
    from django_mcp.models import McpAuditEntry
    from django_mcp.observability._record import CallRecord
    from django_mcp.server.compiler import CompiledServer

__all__ = [
    "MAX_DEPTH",
    "REDACTED",
    "TRUNCATED",
    "UNKNOWN_TOOL",
    "audited",
    "cap",
    "entry_for",
    "patterns",
    "prune",
    "redact",
    "write",
]

logger = logging.getLogger(__name__)

REDACTED: Final = "[redacted]"
"""What an audit entry shows in place of a secret argument's value."""

MAX_DEPTH: Final = 64
"""Nesting levels of arguments redaction walks; anything deeper is replaced whole."""

TRUNCATED: Final = "[truncated]"
"""The key of cut arguments whose value is the size in bytes of the whole (``cap``)."""

UNKNOWN_TOOL: Final = "[unknown]"
"""The component of a ``tools/call`` of a tool the caller may not use.

Not a valid tool name (MCP tool names are letters, digits, ``_``, ``-`` and
``.``), so it cannot be mistaken for one.
"""

#: How many ``$ref`` hops a schema lookup follows (a cycle stops there).
_MAX_REFS: Final = 16
#: Methods whose ``params.arguments`` an entry keeps (redacted).
_WITH_ARGUMENTS: Final = frozenset({"tools/call", "prompts/get"})
_encoder: Final = msgspec.json.Encoder()


@functools.lru_cache(maxsize=8)
def patterns(sources: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Return ``MCP_AUDIT_REDACT``'s expressions compiled (case-insensitive); bad ones are skipped.

    ``manage.py check`` reports an expression that does not compile (E035).
    """
    compiled = []
    for source in sources:
        try:
            compiled.append(re.compile(source, re.IGNORECASE))
        except re.error:
            continue
    return tuple(compiled)


def redact(value: Any, rules: Iterable[re.Pattern[str]], schema: Mapping[str, Any] | None = None) -> Any:
    """Return ``value`` with secret values replaced by ``REDACTED``.

    A value is secret when its key matches one of ``rules`` or when
    ``schema`` (a JSON Schema of ``value``) marks its property
    ``writeOnly: true``. ``value`` itself is not changed.
    """
    root = schema if isinstance(schema, Mapping) else {}
    defs = root.get("$defs")
    return _redact(value, tuple(rules), root, defs if isinstance(defs, Mapping) else {}, 0)


def _redact(
    value: Any, rules: tuple[re.Pattern[str], ...], schema: Any, defs: Mapping[str, Any], depth: int
) -> Any:
    if depth > MAX_DEPTH:
        return REDACTED
    if isinstance(value, dict):
        properties, extra = _properties(schema, defs)
        redacted = {}
        for key, item in value.items():
            below = properties.get(key, extra)
            if any(rule.search(key) for rule in rules) or below.get("writeOnly") is True:
                redacted[key] = REDACTED
            else:
                redacted[key] = _redact(item, rules, below, defs, depth + 1)
        return redacted
    if isinstance(value, list):
        items = _resolve(schema, defs).get("items")
        items = items if isinstance(items, Mapping) else {}
        return [_redact(item, rules, items, defs, depth + 1) for item in value]
    return value


def _resolve(schema: Any, defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return ``schema`` with its ``$ref`` (into ``$defs``) followed."""
    for _hop in range(_MAX_REFS):
        if not isinstance(schema, Mapping):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            return schema
        schema = defs.get(ref.removeprefix("#/$defs/"))
    return {}


def _properties(
    schema: Any, defs: Mapping[str, Any]
) -> tuple[dict[str, Mapping[str, Any]], Mapping[str, Any]]:
    """Return an object schema's properties (alternatives merged) and its ``additionalProperties``."""
    properties: dict[str, Mapping[str, Any]] = {}
    extra: Mapping[str, Any] = {}
    pending = [_resolve(schema, defs)]
    seen = 0
    while pending and seen < _MAX_REFS:
        seen += 1
        current = pending.pop()
        for key, below in (current.get("properties") or {}).items():
            resolved = _resolve(below, defs)
            # writeOnly may sit beside the $ref (JSON Schema 2020-12).
            if isinstance(below, Mapping) and below.get("writeOnly") is True:
                resolved = {**resolved, "writeOnly": True}
            properties.setdefault(key, resolved)
        additional = current.get("additionalProperties")
        if isinstance(additional, Mapping) and not extra:
            extra = _resolve(additional, defs)
        for keyword in ("anyOf", "oneOf", "allOf"):
            options = current.get(keyword)
            if isinstance(options, list):
                pending.extend(_resolve(option, defs) for option in options)
    return properties, extra


def _size(value: Any) -> int:
    """Return the bytes of ``value`` as compact JSON."""
    try:
        return len(_encoder.encode(value))
    except (msgspec.EncodeError, OverflowError, TypeError):
        # An integer past 64 bits, say: the standard library encodes any.
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def cap(arguments: Any, limit: int) -> Any:
    """Return ``arguments`` when their compact JSON takes at most ``limit`` bytes, else cut.

    Cut arguments keep the top-level members that fit whole, in order (a
    member too large is left out, a smaller one after it may still fit),
    plus ``TRUNCATED`` mapped to the size in bytes of the whole; arguments
    that are not an object become ``{TRUNCATED: size}``. The result never
    takes more than ``limit`` bytes, or than ``{TRUNCATED: size}`` does.
    """
    size = _size(arguments)
    if size <= limit:
        return arguments
    kept: dict[str, Any] = {}
    if isinstance(arguments, dict):
        # {"[truncated]":<size>} plus, per member kept, "<key>":<value> and a comma.
        budget = limit - _size({TRUNCATED: size})
        for key, value in arguments.items():
            if budget <= 4:  # not even "":0, is left
                break
            cost = _size(key) + 1 + _size(value) + 1
            if cost <= budget:
                kept[key] = value
                budget -= cost
    kept[TRUNCATED] = size
    return kept


def _clip(text: str, length: int) -> str:
    """Return ``text`` cut to ``length`` characters, ending with "…" when cut."""
    return text if len(text) <= length else text[: length - 1] + "…"


def audited(
    mode: str | None, compiled: CompiledServer, method: str, component: str, *, unseen: bool = False
) -> bool:
    """Return True when ``MCP_AUDIT`` (``mode``) records this request.

    ``unseen``: a ``tools/call`` of a tool the caller may not use, recorded
    under ``"all"`` only (it wrote nothing).
    """
    if mode == "all":
        return True
    if mode != "writes" or method != "tools/call" or unseen:
        return False
    entry = compiled.tools.get(component)
    if entry is None:
        return False
    annotations = entry.definition.annotations
    return getattr(annotations, "read_only_hint", None) is not True


def entry_for(
    record: CallRecord,
    compiled: CompiledServer,
    rules: Iterable[re.Pattern[str]],
    *,
    max_arguments_size: int,
) -> McpAuditEntry:
    """Return the (unsaved) audit row of a finished request.

    ``max_arguments_size`` bounds the stored arguments (``cap``).
    """
    from django_mcp.models import McpAuditEntry

    arguments = None
    component = UNKNOWN_TOOL if record.unseen else record.component
    if record.method in _WITH_ARGUMENTS and "arguments" in record.params and not record.unseen:
        schema = None
        if record.method == "tools/call":
            tool = compiled.tools.get(record.component)
            schema = tool.definition.input_schema if tool is not None else None
        arguments = cap(redact(record.params.get("arguments"), rules, schema), max_arguments_size)
    user = record.user
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    address = record.client_address
    return McpAuditEntry(
        created_at=timezone.now(),
        server=_clip(record.server_key, 255),
        method=_clip(record.method, 64),
        component=_clip(component, 512),
        user_pk=_clip(str(user.pk), 255) if signed_in else "",
        username=_clip(str(user.get_username()), 255) if signed_in else "",
        client=_clip(caller_identity(user, address), 255),
        client_address=_clip(address or "", 255),
        transport=record.transport,
        arguments=arguments,
        outcome=record.outcome,
        error_code=record.error_code,
        duration=record.duration,
        protocol_version=_clip(record.protocol_version, 32),
        request_id="" if record.request_id is None else _clip(str(record.request_id), 255),
    )


def write(entry: McpAuditEntry) -> None:
    """Insert ``entry``; log, never raise, when that fails."""
    try:
        entry.save(force_insert=True)
    except Exception:  # the audit never fails the call it records
        logger.exception("Could not write the MCP audit entry of %s %s", entry.method, entry.component)


def prune(days: float, *, now: datetime.datetime | None = None, dry_run: bool = False) -> int:
    """Delete the entries older than ``days`` days; return how many (would be) deleted."""
    from django_mcp.models import McpAuditEntry

    cutoff = (timezone.now() if now is None else now) - datetime.timedelta(days=days)
    old = McpAuditEntry.objects.filter(created_at__lt=cutoff)
    if dry_run:
        return old.count()
    deleted, _ = old.delete()
    return deleted
