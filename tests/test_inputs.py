"""django_mcp.inputs: the input requests a handler returns."""

from __future__ import annotations

from typing import Literal

from django_mcp.inputs import elicit
from django_mcp.schemas import Schema


class Pickup(Schema):
    name: str
    branch: Literal["Main library", "Riverside"] = "Main library"
    shelf: Literal[1, 2] = 1


def test_elicit_gives_a_schema_literal_of_strings_its_string_type() -> None:
    request = elicit("Where?", Pickup)

    assert request.params == {
        "message": "Where?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "branch": {
                    "type": "string",
                    "enum": ["Main library", "Riverside"],
                    "default": "Main library",
                },
                # Not a string enum: left as msgspec wrote it.
                "shelf": {"enum": [1, 2], "default": 1},
            },
            "required": ["name"],
        },
    }


def test_elicit_sends_a_dict_schema_untouched() -> None:
    schema = {"type": "object", "properties": {"tone": {"enum": ["warm", "dry"]}}}

    assert elicit("Tone?", schema).params == {"message": "Tone?", "requestedSchema": schema}
