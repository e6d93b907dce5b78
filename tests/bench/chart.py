"""Draw the results chart: ``python chart.py results.json results.png``.

Run by ``run.py`` with the harness's own environment (``.venvs/harness``,
which has matplotlib); the project's environment needs none of it. One panel
per scenario (median requests per second, one bar per server, the official
SDK's bar outlined), plus server CPU per echo request, cold start and RSS.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"peer": "#8c8c8c", "floor": "#c9b458", "ours": "#2a7ab0"}


def main(source: Path, target: Path) -> None:
    """Read ``results.json`` and write the PNG."""
    data = json.loads(source.read_text())
    summary, servers, titles = data["summary"], data["servers"], data["scenario_titles"]
    order = [key for key in summary["order"] if servers[key]["available"]]
    panels: list[tuple[str, dict[str, float], str]] = []
    for scenario, title in titles.items():
        cells = summary["scenarios"].get(scenario, {})
        values = {key: cells[key]["rps"] for key in order if key in cells and cells[key]["rps"]}
        if values:
            unit = "walks/s" if scenario == "list-walk" else "requests/s"
            panels.append((title, values, unit))
    cpu = summary["scenarios"].get("echo-c32", {})
    values = {key: cpu[key]["cpu_us"] for key in order if key in cpu and cpu[key]["cpu_us"]}
    if values:
        panels.append(
            ("server CPU per echo request, 32 connections", values, "microseconds (lower is better)")
        )
    for name, title, scale, unit in (
        ("cold-start-10", "cold start, 10 tools", 1.0, "seconds (lower is better)"),
        ("rss-10", "RSS after warm-up, 10 tools", 1 / 1024, "MiB (lower is better)"),
    ):
        values = {
            key: summary["startup"][key][name] * scale
            for key in order
            if name in summary["startup"].get(key, {})
        }
        if values:
            panels.append((title, values, unit))
    columns = 3
    rows = (len(panels) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(18, 3.2 * rows + 1), squeeze=False)
    for axis, (title, values, unit) in zip(axes.flat, panels, strict=False):
        keys = [key for key in order if key in values][::-1]
        bars = axis.barh(
            [servers[key]["short"] for key in keys],
            [values[key] for key in keys],
            color=[COLOURS[servers[key]["group"]] for key in keys],
        )
        for bar, key in zip(bars, keys, strict=True):
            if key == "official":
                bar.set_edgecolor("black")
                bar.set_linewidth(1.5)
        axis.set_title(textwrap.fill(title, 52), fontsize=9)
        axis.set_xlabel(unit, fontsize=8)
        axis.tick_params(labelsize=7)
        axis.grid(axis="x", alpha=0.3)
    for axis in list(axes.flat)[len(panels) :]:
        axis.set_visible(False)
    meta = data["meta"]
    heading = (
        f"django_mcp benchmark, {meta['date']}: {meta['rounds']} x {meta['duration']} s, {meta['cpu_model']}"
    )
    if meta.get("note"):
        heading = f"{meta['note']}\n{heading}"
    figure.suptitle(heading, fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour) for colour in COLOURS.values()]
    figure.legend(handles, ["peers", "floors", "django_mcp"], loc="upper right", fontsize=8)
    figure.tight_layout()
    figure.savefig(target, dpi=90)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
