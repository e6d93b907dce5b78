"""Schemas the schema tests validate, convert and publish."""

import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec
import pytest

from django_mcp.exceptions import SchemaValidationError
from django_mcp.schemas import Schema, rule

T = TypeVar("T")


class Item(Schema):
    """One order line."""

    sku: Annotated[str, msgspec.Meta(min_length=1, max_length=8, pattern="^[A-Z]")]
    quantity: Annotated[int, msgspec.Meta(ge=1)] = 1

    @rule(field="quantity")
    def at_most_ten(self) -> None:
        if self.quantity > 10:
            raise ValueError("at most 10 per line")


class Order(Schema):
    """An order to summarise."""

    order_id: int
    items: list[Item] = []


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Kinds(Schema, rename="camel"):
    placed_at: datetime.datetime
    placed_at_tz: Annotated[datetime.datetime, msgspec.Meta(tz=True)] | None = None
    day: datetime.date | None = None
    ref: uuid.UUID | None = None
    amount: decimal.Decimal | None = None
    ratio: float = 0.5
    color: Color = Color.RED
    mode: Literal["fast", "slow"] = "fast"
    data: bytes = b""
    note: str = msgspec.field(default="", name="memo")


class Node(Schema):
    name: str
    children: list["Node"] = []


class Page(Schema, Generic[T]):
    items: list[T]


class Circle(Schema, tag=True):
    radius: float


class Square(Schema, tag=True):
    side: float


class Drawing(Schema):
    shapes: list[Circle | Square]


def errors_of(excinfo: pytest.ExceptionInfo[SchemaValidationError]) -> list[Any]:
    return excinfo.value.errors
