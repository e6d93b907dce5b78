"""BM25 ranking: django_mcp/server/_bm25.py."""

from __future__ import annotations

import math

import pytest

from django_mcp.server._bm25 import K1, B, Bm25Index, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("list_orders", ["list", "order"]),
        ("listOrders", ["list", "order"]),
        ("HTTPStatus", ["http", "status"]),
        ("orders.export-csv", ["order", "export", "csv"]),
        ("Find the address of a customer", ["find", "address", "customer"]),
        ("", []),
    ],
)
def test_words_split_names_and_drop_plurals_and_function_words(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_more_query_words_rank_first_and_shorter_documents_next() -> None:
    index = Bm25Index([["invoice", "print"], ["invoice", "refund", "refund"], ["refund"], ["ledger"]])

    assert index.rank(["refund", "invoice"]) == [1, 2, 0]


def test_equal_scores_keep_the_documents_order() -> None:
    index = Bm25Index([["a1"], ["b1"], ["a1"], ["a1"]])

    assert index.rank(["a1"]) == [0, 2, 3]


def test_a_query_without_known_words_matches_nothing() -> None:
    assert Bm25Index([["x"]]).rank(["y"]) == []
    assert Bm25Index([]).rank(["y"]) == []


def test_the_score_is_okapi_bm25() -> None:
    # One query word, two documents: the ranking follows the formula's order.
    documents = [["w", "x", "x", "x"], ["w", "w"]]
    average = 3.0

    def score(count: int, length: int) -> float:
        idf = math.log(1 + (2 - 2 + 0.5) / (2 + 0.5))
        return idf * count * (K1 + 1) / (count + K1 * (1 - B + B * length / average))

    expected = sorted(range(2), key=lambda i: -score(documents[i].count("w"), len(documents[i])))
    assert Bm25Index(documents).rank(["w"]) == expected == [1, 0]
