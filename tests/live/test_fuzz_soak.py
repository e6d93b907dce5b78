"""The fuzz and soak script, in a short form, against a real server process, each way to serve."""

from __future__ import annotations

import pytest

from tests.bench.fuzz_soak import main


@pytest.mark.timeout(300)
@pytest.mark.parametrize("serve", ["fast-asgi", "plain-asgi", "fast-wsgi", "plain-wsgi"])
def test_a_short_fuzz_and_soak_finds_no_5xx_dropped_connection_leak_or_hang(
    serve: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["--serve", serve, "--requests", "600", "--workers", "4", "--seed", "7"])

    report = capsys.readouterr().out
    assert status == 0, report
    assert "5xx (not 503): 0" in report
    # Not one connection closed before its answer: an oversized body (up to
    # 16 MiB, written whole before the answer is read) gets its 413.
    assert "hangs: 0, dropped: 0" in report
