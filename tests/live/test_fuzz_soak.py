"""The fuzz and soak script, in a short form, against a real uvicorn process."""

from __future__ import annotations

import pytest

from tests.bench.fuzz_soak import main


@pytest.mark.timeout(300)
def test_a_short_fuzz_and_soak_finds_no_5xx_leak_or_hang(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--requests", "1500", "--workers", "4", "--seed", "7"])

    report = capsys.readouterr().out
    assert status == 0, report
    assert "5xx (not 503): 0" in report
