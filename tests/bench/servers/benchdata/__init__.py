"""The benchmark's one model: ``Item`` rows in ``bench_item`` (made by run.py)."""
