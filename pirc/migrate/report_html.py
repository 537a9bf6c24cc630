"""report.html: the report as one self-contained page a person opens in a browser.

Self-contained means nothing is fetched: the styles and the script are inline, the status
chart is inline SVG, and there is no URL in the page at all (no font, no CDN, no image); a
Content-Security-Policy meta tag (`default-src 'none'`) holds a browser to that even if a
later edit slips one in.  Every string that comes from a record (a path, a reason, an op
name) is HTML-escaped: a model's path is whatever someone named the file.  The whole table
is in the HTML, so the page reads without JavaScript; the script only sorts (click a
header) and filters (text box, status list), and it is shown only where it runs.  The page
has no timestamp, so equal reports give equal pages.
"""

from __future__ import annotations

import html

from . import summary
from .schema import FINE, GOOD, STATUSES

# One colour per status (the chart's bars and the table's badges).
STATUS_COLOURS = {
    "upgraded": "#2e7d32", "unchanged": "#5c7c8a", "drifted": "#e65100", "refused": "#6a1b9a",
    "failed": "#c62828", "timeout": "#b7791f", "oom": "#795548", "crashed": "#880e4f",
    "skipped": "#9e9e9e",
}

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_STYLE = """
:root { --fg: #1f2328; --muted: #656d76; --line: #d8dee4; --bg: #f6f8fa; --card: #fff; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 20px 24px 40px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 10px; }
.meta { color: var(--muted); margin: 0 0 6px; }
.meta code { color: var(--fg); }
nav a { color: #0969da; text-decoration: none; margin-right: 14px; font-size: 13px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 14px 16px; margin-top: 16px; overflow-x: auto; }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.grid > section { margin-top: 16px; }
@media (max-width: 860px) { .grid { grid-template-columns: minmax(0, 1fr); } }
.totals { display: flex; gap: 22px; margin: 0 0 10px; }
.totals b { display: block; font-size: 22px; line-height: 1.1; }
.totals span { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; font-size: 12px; color: var(--muted); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:hover { background: #f3f6fa; }
th button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
code, .path { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: 12.5px; }
.path { overflow-wrap: anywhere; }
td code { white-space: nowrap; }
#models td.path { min-width: 14em; }
#models td.passes { font-size: 12.5px; }
td.reason-cell code { white-space: normal; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; color: #fff; font-size: 12px;
  font-weight: 600; }
.reason { color: var(--muted); font-size: 12px; max-width: 200px; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; }
.bad { color: #c62828; font-weight: 600; }
.muted { color: var(--muted); }
.bar { background: #eaeef2; border-radius: 3px; height: 8px; min-width: 80px; }
.bar > div { background: #0969da; height: 8px; border-radius: 3px; }
.controls { display: flex; gap: 10px; align-items: center; margin-bottom: 10px; flex-wrap: wrap; }
.controls input, .controls select { font: inherit; padding: 4px 8px; border: 1px solid var(--line);
  border-radius: 6px; background: #fff; }
.controls input { width: 280px; }
#shown { color: var(--muted); font-size: 12px; }
.chart text { font-size: 12px; fill: var(--fg); }
.chart .count { fill: var(--muted); }
"""

_SCRIPT = """
(function () {
  var table = document.getElementById("models"), body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows), heads = table.tHead.rows[0].cells;
  var text = document.getElementById("filter"), status = document.getElementById("status");
  var shown = document.getElementById("shown"), column = -1, direction = 1;
  document.getElementById("controls").hidden = false;
  function key(row, i) {
    var cell = row.cells[i], v = cell.getAttribute("data-v");
    if (v === null) return cell.textContent.trim().toLowerCase();
    return v === "" ? null : parseFloat(v);
  }
  function sortBy(i) {
    direction = column === i ? -direction : 1;
    column = i;
    var sorted = rows.slice().sort(function (a, b) {
      var x = key(a, i), y = key(b, i);
      if (x === null || y === null) return x === y ? a.dataset.i - b.dataset.i : (x === null ? 1 : -1);
      return (x < y ? -1 : x > y ? 1 : 0) * direction || a.dataset.i - b.dataset.i;
    });
    sorted.forEach(function (row) { body.appendChild(row); });
    for (var j = 0; j < heads.length; j++)
      heads[j].setAttribute("aria-sort", j === i ? (direction > 0 ? "ascending" : "descending") : "none");
  }
  function filter() {
    var q = text.value.trim().toLowerCase(), s = status.value, n = 0;
    rows.forEach(function (row) {
      var show = (!s || row.dataset.status === s) && (!q || row.dataset.text.indexOf(q) >= 0);
      row.hidden = !show;
      n += show ? 1 : 0;
    });
    shown.textContent = n + " of " + rows.length + " models";
  }
  for (var i = 0; i < heads.length; i++)
    heads[i].querySelector("button").addEventListener("click", sortBy.bind(null, i));
  text.addEventListener("input", filter);
  status.addEventListener("change", filter);
  filter();
})();
"""


def render_html(report: dict) -> str:
    """The whole page (see the module docstring)."""
    models = report["models"]
    counts = summary.status_counts(models)
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        "<title>pirc-migrate report</title>\n<style>", _STYLE, "</style>\n</head>\n<body>\n<main>\n",
        _header(report, counts),
        '<div class="grid">\n', _status_section(models, counts), _pass_section(models), "</div>\n",
        _drift_section(models), _failure_section(models), _slowest_section(models),
        _skipped_section(models), _models_section(models, counts),
        "</main>\n<script>", _SCRIPT, "</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _e(value) -> str:
    """A record's string, escaped for HTML text and quoted attributes."""
    return html.escape(summary.shown(value), quote=True)


def _header(report: dict, counts: dict[str, int]) -> str:
    pipeline = f"<code>{_e(report['pipeline'])}</code>" if report["pipeline"] else "none"
    return (
        "<header>\n<h1>pirc-migrate report</h1>\n"
        f'<p class="meta">pirc <code>{_e(report["pirc_version"])}</code> &middot; target version '
        f"<code>{_e(report['target_version'])}</code> &middot; pipeline {pipeline} &middot; check "
        f"<code>{_e(report['check'])}</code> &middot; {len(report['models'])} models</p>\n"
        '<nav><a href="#statuses">statuses</a><a href="#passes">passes</a>'
        '<a href="#drifting">drifting</a><a href="#slowest">slowest</a>'
        '<a href="#failures">failures</a><a href="#models-table">all models</a></nav>\n</header>\n')


def _status_section(models: list[dict], counts: dict[str, int]) -> str:
    fine = sum(counts[s] for s in FINE)
    totals = (f'<div class="totals"><div><b>{len(models)}</b><span>models</span></div>'
              f'<div><b>{fine}</b><span>fine</span></div>'
              f'<div><b class="{"bad" if len(models) - fine else ""}">{len(models) - fine}</b>'
              f"<span>need a look</span></div></div>\n")
    return f'<section id="statuses">\n<h2>Statuses</h2>\n{totals}{_status_chart(counts)}</section>\n'


def _status_chart(counts: dict[str, int]) -> str:
    """One horizontal bar per status, its length the share of the largest count."""
    row, label_w, bar_w = 22, 84, 300
    top = max(counts.values()) or 1
    height = row * len(STATUSES) + 4
    out = [f'<svg class="chart" role="img" aria-label="models per status" width="{label_w + bar_w + 60}" '
           f'height="{height}" viewBox="0 0 {label_w + bar_w + 60} {height}">']
    for i, status in enumerate(STATUSES):
        y = i * row + 2
        width = round(bar_w * counts[status] / top, 1)
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{status}</text>'
                   f'<rect x="{label_w}" y="{y + 3}" width="{max(width, 1.5 if counts[status] else 0)}" '
                   f'height="{row - 8}" rx="3" fill="{STATUS_COLOURS[status]}"/>'
                   f'<text class="count" x="{label_w + width + 6}" y="{y + 15}">{counts[status]}</text>')
    out.append("</svg>\n")
    return "".join(out)


def _pass_section(models: list[dict]) -> str:
    rows = []
    for name, (changed, ran) in summary.pass_changes(models).items():
        share = summary.rate((changed, ran))
        rows.append([f"<td><code>{_e(name)}</code></td>", _num(changed), _num(ran), _num(summary.percent(share)),
                     f'<td><div class="bar"><div style="width:{100 * (share or 0):.1f}%"></div></div></td>'])
    return _section("passes", "Passes", [("pass", 0), ("changed", 1), ("ran", 1), ("rate", 1), ("", 0)], rows,
                    "No pass ran.", '<p class="meta">Models whose program each pass changed, of the models '
                    "it ran on.</p>\n")


def _drift_section(models: list[dict]) -> str:
    rows = [[_path_cell(r), _num(summary.number(r["check"]["max_abs"])), _num(summary.number(r["check"]["max_rel"])),
             f'<td><code>{_e(r["check"]["first_bad_op"] or "-")}</code></td>',
             f'<td>{_e(r["check"]["mode"] or "-")}</td>',
             f'<td>{_e(", ".join(map(str, r["check"]["random_outputs"])) or "-")}</td>']
            for r in summary.drifting(models)]
    return _section("drifting", "Drifting models", [("path", 0), ("max_abs", 1), ("max_rel", 1), ("first bad op", 0),
                                                    ("check", 0), ("compared by shape", 0)], rows, "No model drifted.")


def _slowest_section(models: list[dict]) -> str:
    rows = [[_path_cell(r), f"<td>{_badge(r['status'])}</td>", _num(summary.seconds(r["seconds"])),
             _num(summary.megabytes(r["peak_mb"])), f'<td><code>{_e(r["worker"] or "-")}</code></td>']
            for r in summary.slowest(models)]
    return _section("slowest", "Slowest models", [("path", 0), ("status", 0), ("seconds", 1), ("peak MiB", 1),
                                                  ("worker", 0)], rows, "No model was timed.")


def _failure_section(models: list[dict]) -> str:
    rows = [[_path_cell(r), f"<td>{_badge(r['status'])}</td>",
             f'<td class="reason-cell"><code>{_e(r["reason"] or "-")}</code></td>'] for r in summary.failures(models)]
    return _section("failures", "Failures", [("path", 0), ("status", 0), ("reason", 0)], rows, "No model failed.")


def _skipped_section(models: list[dict]) -> str:
    rows = [[_path_cell(r), f'<td>{_e(r["reason"] or "-")}</td>'] for r in summary.skipped(models)]
    return _section("skipped", "Skipped", [("path", 0), ("reason", 0)], rows, "") if rows else ""


def _section(anchor: str, title: str, header: list[tuple[str, int]], rows: list[list[str]], empty: str,
             intro: str = "") -> str:
    """A card: its title, `intro`, and a table (header: (name, right-aligned?) per column;
    rows: each cell's HTML), or `empty` when there are no rows."""
    if not rows:
        body = f'<p class="muted">{empty}</p>\n'
    else:
        head = "".join(f'<th{" class=num" * right}>{name}</th>' for name, right in header)
        body = (f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
                + "".join(f"<tr>{''.join(cells)}</tr>\n" for cells in rows) + "</tbody>\n</table>\n")
    return f'<section id="{anchor}">\n<h2>{title}</h2>\n{intro}{body}</section>\n'


def _num(value) -> str:
    return f'<td class="num">{value}</td>'


def _path_cell(record: dict) -> str:
    return f'<td class="path">{_path(record["path"])}</td>'


# The models table's columns: (header, right-aligned?).  A cell with a data-v attribute
# sorts by that number, any other by its text.
_COLUMNS = (("path", False), ("status", False), ("version", True), ("ops before", True),
            ("ops after", True), ("passes changed", False), ("check", False), ("seconds", True))


def _models_section(models: list[dict], counts: dict[str, int]) -> str:
    options = "".join(f'<option value="{s}">{s} ({counts[s]})</option>' for s in STATUSES if counts[s])
    controls = ('<div class="controls" id="controls" hidden>'
                '<input type="search" id="filter" placeholder="filter by path or reason" aria-label="filter">'
                f'<select id="status" aria-label="status"><option value="">all statuses</option>{options}</select>'
                '<span id="shown"></span></div>\n')
    head = "".join(f'<th{" class=num" * right} aria-sort="none"><button type="button">{name}</button></th>'
                   for name, right in _COLUMNS)
    rows = "".join(_model_row(i, r) for i, r in enumerate(models))
    return ('<section id="models-table">\n<h2>All models</h2>\n' + controls
            + f'<table id="models">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</section>\n')


def _model_row(i: int, r: dict) -> str:
    check = r["check"]
    search = _e(f"{summary.shown(r['path'])} {summary.shown(r['reason'] or '')}".lower())
    reason = (f'<div class="reason" title="{_e(r["reason"])}">{_e(r["reason"])}</div>'
              if r["reason"] and r["status"] not in GOOD else "")
    verdict = summary.verdict(r)
    verdict_html = f'<span class="bad">{_e(verdict)}</span>' if check["ok"] is False else _e(verdict)
    cells = [
        f'<td class="path">{_path(r["path"])}</td>',
        f"<td>{_badge(r['status'])}{reason}</td>",
        f'<td class="num" data-v="{_v(r["from_version"])}">{_e(summary.versions(r)).replace("-&gt;", "&rarr;")}</td>',
        f'<td class="num" data-v="{_v(r["ops_before"])}">{_e(_dash(r["ops_before"]))}</td>',
        f'<td class="num" data-v="{_v(r["ops_after"])}">{_e(_dash(r["ops_after"]))}</td>',
        f'<td class="passes" data-v="{len(r["passes_changed"])}" title="{_e(", ".join(r["passes_changed"]))}">'
        f'{_e(", ".join(r["passes_changed"]) or "-")}</td>',
        f'<td class="verdict" data-v="{_v(check["max_abs"])}" title="check: {_e(check["mode"] or "-")}">'
        f"{verdict_html}</td>",
        f'<td class="num" data-v="{_v(r["seconds"])}">{summary.seconds(r["seconds"])}</td>',
    ]
    return f'<tr data-i="{i}" data-status="{_e(r["status"])}" data-text="{search}">{"".join(cells)}</tr>\n'


def _path(path: str) -> str:
    """A path that may wrap after each `/` (and anywhere, as a last resort)."""
    return _e(path).replace("/", "/<wbr>")


def _badge(status: str) -> str:
    colour = STATUS_COLOURS.get(status, "#555")
    return f'<span class="badge" style="background:{colour}">{_e(status)}</span>'


def _v(value) -> str:
    """A numeric cell's sort key: its number, or empty (sorted last) when unknown."""
    return "" if value is None else repr(value)


def _dash(value) -> str:
    return "-" if value is None else str(value)
