"""A small Okapi BM25 index: words in, documents ranked best first.

Text is cut into lowercase words of letters and digits; ``snake_case``,
``kebab-case``, ``dotted.names`` and ``camelCase`` split into their words
(``listOrders`` -> ``list``, ``orders``), and a plural ``s`` is dropped
(``orders`` -> ``order``, but not ``status``), the same for documents and queries. A few English
function words are left out. Scores are Okapi BM25 with ``k1 = 1.5`` and
``b = 0.75`` and the non-negative IDF ``ln(1 + (N - n + 0.5) / (n + 0.5))``.
Documents with equal scores keep their order in the index, so a query
always ranks the same. The index is immutable once built.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

__all__ = ["B", "K1", "Bm25Index", "words"]

K1: Final = 1.5
"""How fast a word's repeats stop adding to the score."""

B: Final = 0.75
"""How much a document's length scales its word counts."""

_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD: Final = re.compile(r"[a-z0-9]+")
_STOP: Final = frozenset(
    "a an and are as at be by for from in into is it its of on or the this that to with".split()
)


def words(text: str) -> list[str]:
    """Return the index words of ``text``, in order (repeats kept)."""
    found = []
    for word in _WORD.findall(_CAMEL.sub(" ", text).lower()):
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        found.append(word)
    return found


class Bm25Index:
    """Rank a fixed sequence of documents (lists of words) against queries."""

    __slots__ = ("_average", "_idf", "_lengths", "_postings")

    def __init__(self, documents: Sequence[Iterable[str]]) -> None:
        postings: dict[str, list[tuple[int, int]]] = {}
        lengths: list[int] = []
        for index, document in enumerate(documents):
            counts = Counter(document)
            lengths.append(sum(counts.values()))
            for word, count in counts.items():
                postings.setdefault(word, []).append((index, count))
        total = len(lengths)
        self._postings = postings
        self._lengths = lengths
        self._average = (sum(lengths) / total) if total else 0.0
        self._idf = {
            word: math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            for word, found in postings.items()
        }

    def __len__(self) -> int:
        return len(self._lengths)

    def rank(self, query: Iterable[str]) -> list[int]:
        """Return the indexes of the documents matching ``query``, best first.

        A document matches when it holds at least one query word; equal
        scores keep the documents' order.
        """
        scores: dict[int, float] = {}
        average = self._average or 1.0
        lengths = self._lengths
        # Sorted: the sums add up in the same order in every process.
        for word in sorted(set(query)):
            found = self._postings.get(word)
            if found is None:
                continue
            idf = self._idf[word]
            for index, count in found:
                norm = K1 * (1 - B + B * lengths[index] / average)
                scores[index] = scores.get(index, 0.0) + idf * count * (K1 + 1) / (count + norm)
        return sorted(scores, key=lambda index: (-scores[index], index))
