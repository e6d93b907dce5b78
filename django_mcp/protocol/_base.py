"""Base class for every wire type.

Wire types are frozen msgspec Structs with snake_case attributes that encode
as camelCase JSON. ``UNSET`` means "absent on the wire"; ``None`` is used only
where the MCP schema allows JSON ``null``. This package imports nothing from
Django and holds no behaviour.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["UNSET", "Meta", "UnsetType", "WireStruct"]

UNSET = msgspec.UNSET
UnsetType = msgspec.UnsetType

#: A ``_meta`` object: reverse-DNS prefixed keys mapped to JSON values.
Meta = dict[str, Any]


class WireStruct(
    msgspec.Struct,
    rename="camel",
    omit_defaults=True,
    frozen=True,
    kw_only=True,
):
    """Base for MCP wire types: camelCase on the wire, absent != null."""
