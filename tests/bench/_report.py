"""Turn the measurements into medians, ratios, console tables and RESULTS.md.

For each server and scenario: the median over rounds of requests per
second, server CPU per request and latency; and, per round, the ratio of the
server's requests per second to the official SDK's in that same round (the
column "x SDK" is the median of those ratios, so a slow round for everybody
cancels out). A round whose measurement failed counts in no median and is
listed with its error.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

__all__ = ["markdown", "summarize", "text_tables"]

BASELINE = "official"
#: A median measurement during which core 0 was busier than this with other
#: work is marked (NOISY) in the tables.
NOISY = 0.5
#: Short column names, in table order.
COLUMNS = {
    "echo-c1": "echo c=1",
    "echo-c32": "echo c=32",
    "structured": "structured",
    "resource": "resource",
    "orm": "ORM",
    "legacy-echo": "2025 echo",
    "list-page": "list page",
    "list-walk": "list walk",
    "call-1000": "1k tools",
    "call-10000": "10k tools",
}


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(records: list[dict[str, Any]], servers: dict[str, Any]) -> dict[str, Any]:
    """Return ``{scenario: {server: cell}}`` plus start-up figures."""
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_cell[(record["scenario"], record["server"])].append(record)
    table: dict[str, dict[str, Any]] = defaultdict(dict)
    for (scenario, server), rows in by_cell.items():
        if scenario in ("cold-start", "rss"):
            continue
        ok = [row for row in rows if not row.get("error") and not row.get("na")]
        failed = [row for row in rows if row.get("error")]
        na = next((row["na"] for row in rows if row.get("na")), "")
        baseline = {
            row["round"]: row for row in by_cell.get((scenario, BASELINE), []) if not row.get("error")
        }
        ratios = [
            row["rps"] / baseline[row["round"]]["rps"]
            for row in ok
            if row["round"] in baseline and baseline[row["round"]].get("rps")
        ]
        table[scenario][server] = {
            "era": next((row.get("era") for row in rows if row.get("era")), ""),
            "rps": _median([row["rps"] for row in ok]),
            "rounds_rps": [round(row["rps"], 1) for row in ok],
            "ratio": _median(ratios),
            "ratios": [round(value, 2) for value in ratios],
            "cpu_us": _median([row["cpu_us"] for row in ok]),
            "p50_ms": _median([row["p50_ms"] for row in ok]),
            "p99_ms": _median([row["p99_ms"] for row in ok]),
            "interference": _median([row.get("interference", 0.0) for row in ok]),
            "failures": [f"round {row['round']}: {row['error']}" for row in failed],
            "na": na,
            "extra": next((row["extra"] for row in ok if row.get("extra")), None),
        }
    startup: dict[str, dict[str, Any]] = defaultdict(dict)
    for (scenario, server), rows in by_cell.items():
        if scenario not in ("cold-start", "rss"):
            continue
        by_tools: dict[int, list[float]] = defaultdict(list)
        for row in rows:
            if not row.get("error"):
                by_tools[row["tools"]].append(row["value"])
        for tools, values in by_tools.items():
            startup[server][f"{scenario}-{tools}"] = _median(values)
    return {"scenarios": dict(table), "startup": dict(startup), "order": list(servers)}


def _rps(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return ""
    if cell["na"]:
        return "n/a"
    if cell["rps"] is None:
        return "FAIL" if cell["failures"] else ""
    text = f"{cell['rps']:,.1f}" if cell["rps"] < 10 else f"{cell['rps']:,.0f}"
    if cell["ratio"] is not None:
        text += f" ({cell['ratio']:.2f}x)"
    if (cell["interference"] or 0.0) > NOISY:
        text += " †"
    return text


def _cpu(cell: dict[str, Any] | None, *, walk: bool) -> str:
    if cell is None or cell["cpu_us"] is None:
        return "n/a" if cell is not None and cell["na"] else ""
    return f"{cell['cpu_us'] / 1000:,.1f} ms" if walk else f"{cell['cpu_us']:,.0f}"


def _rows(summary: dict[str, Any], servers: dict[str, Any], scenarios: list[str]) -> list[list[str]]:
    rows = []
    for key in summary["order"]:
        info = servers[key]
        if not info["available"]:
            continue
        cells = [summary["scenarios"].get(scenario, {}).get(key) for scenario in scenarios]
        era = next((cell["era"] for cell in cells if cell and cell["era"] and not cell["na"]), "")
        rows.append([info["label"], era] + [_rps(cell) for cell in cells])
    return rows


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def text_tables(summary: dict[str, Any], servers: dict[str, Any], scenarios: list[str]) -> str:
    """Return the console summary: req/s (x SDK) and CPU per request."""
    header = ["server", "era"] + [COLUMNS.get(s, s) for s in scenarios]
    rows = _rows(summary, servers, scenarios)
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown(
    summary: dict[str, Any],
    servers: dict[str, Any],
    scenarios: dict[str, str],
    meta: dict[str, Any],
    *,
    readme: str = "README.md",
) -> str:
    """Return RESULTS.md; ``readme`` is the harness README's path from it."""
    keys = [key for key in COLUMNS if key in scenarios]
    out = ["# Benchmark results", ""]
    if meta.get("note"):
        out += [f"> **{meta['note']}**", ""]
    out += [
        f"Made by `{meta['command']}` on {meta['date']} (UTC); the harness, the scenarios and how to",
        f"read these tables are described in [README.md]({readme}).",
        "",
        "## Machine",
        "",
        f"- CPU: {meta['cpu_model']}, `nproc` = {meta['nproc']}; kernel {meta['kernel']}",
        f"- servers pinned to core 0, wrk (and the Python client) to core 1; {meta['wrk']}",
        f"- load average (1 min) at start {meta['load_start']}, at end {meta['load_end']}; median share of",
        f"  core 0 busy with other work during measurements: {meta['interference']}",
        f"- rounds: {meta['rounds']} x {meta['duration']} s per scenario"
        f" (after {meta['warmup']} s of warm-up), servers alternated each round",
        f"- django_mcp: the working tree at {meta['commit']}",
        "",
        "## Versions",
        "",
    ]
    out += _table(
        ["environment", "versions"], [[name, versions] for name, versions in meta["versions"].items()]
    )
    out += [
        "",
        "## Requests per second (median; x = ratio to the official SDK, median of per-round ratios)",
        "",
    ]
    out += _table(["server", "era"] + [COLUMNS[key] for key in keys], _rows(summary, servers, keys))
    out += [
        "",
        "`n/a`: the server lacks the feature (no resources, no ORM, no 2025-11-25 era);"
        " empty: not selected in this run. `list walk` counts whole walks of the",
        "1,000-tool catalog per second, not requests. †: core 0 was more than half busy with other work",
        "during that measurement (median over rounds): the figure says little.",
        "",
        "## Server CPU per request (microseconds; per walk for list walk)",
        "",
    ]
    cpu_rows = []
    for key in summary["order"]:
        if not servers[key]["available"]:
            continue
        cells = [summary["scenarios"].get(scenario, {}).get(key) for scenario in keys]
        cpu_rows.append(
            [servers[key]["label"]]
            + [_cpu(cell, walk=scenario == "list-walk") for cell, scenario in zip(cells, keys, strict=True)]
        )
    out += _table(["server"] + [COLUMNS[key] for key in keys], cpu_rows)
    out += ["", "## Start-up and memory", ""]
    start_rows = []
    for key in summary["order"]:
        if not servers[key]["available"]:
            continue
        figures = summary["startup"].get(key, {})
        cells = []
        for name, scale, unit in (
            ("cold-start-10", 1.0, "s"),
            ("cold-start-10000", 1.0, "s"),
            ("rss-10", 1 / 1024, "MiB"),
            ("rss-10000", 1 / 1024, "MiB"),
        ):
            value = figures.get(name)
            cells.append(
                ""
                if value is None
                else f"{value * scale:,.2f} {unit}"
                if unit == "s"
                else f"{value * scale:,.0f} {unit}"
            )
        start_rows.append([servers[key]["label"], *cells])
    out += _table(
        ["server", "cold start, 10 tools", "cold start, 10,000 tools", "RSS, 10 tools", "RSS, 10,000 tools"],
        start_rows,
    )
    out += [
        "",
        "Cold start: from process start to the first correct echo answer. RSS: all of the server's",
        "processes, after the warm-up.",
        "",
        "## Per scenario",
    ]
    for key in keys:
        out += ["", f"### {scenarios[key]}", ""]
        rows = []
        for server in summary["order"]:
            cell = summary["scenarios"].get(key, {}).get(server)
            if cell is None or cell["na"] or not servers[server]["available"]:
                continue
            extra = cell["extra"] or {}
            facts = ", ".join(f"{name.replace('_', ' ')} {value:,}" for name, value in extra.items())
            rows.append(
                [
                    servers[server]["label"],
                    cell["era"],
                    " / ".join(f"{value:,.0f}" for value in cell["rounds_rps"]) or "-",
                    " / ".join(f"{value:.2f}" for value in cell["ratios"]) or "-",
                    _cpu(cell, walk=key == "list-walk"),
                    "" if cell["interference"] is None else f"{cell['interference']:.0%}",
                    "" if cell["p50_ms"] is None else f"{cell['p50_ms']:.1f} / {cell['p99_ms']:.1f}",
                    facts,
                    "; ".join(cell["failures"])[:300],
                ]
            )
        unit = "walks/s" if key == "list-walk" else "req/s"
        out += _table(
            [
                "server",
                "era",
                f"{unit} per round",
                "x SDK per round",
                "CPU",
                "other load",
                "p50 / p99 ms",
                "facts",
                "failures",
            ],
            rows,
        )
    unavailable = [(info["label"], info["reason"]) for info in servers.values() if not info["available"]]
    if unavailable:
        out += ["", "## Not measured", ""]
        out += [f"- {label}: {reason}" for label, reason in unavailable]
    out.append("")
    return "\n".join(out)
