#!/usr/bin/env python3
"""Draw chapter 13's pipeline over time from a measured timeline: the CSV that
`13_out_of_core/run --timeline` prints (chunk,stream,step,start_us,end_us, from CUDA events),
one lane per stream (copies in, carry kernels and scans, copies out), chunks in alternating
shades, time in ms. Nothing is drawn that the CSV does not hold.

    python3 docs/experiments/13_timeline_svg.py TIMELINE.csv OUT.svg [--chunks K] [--title TEXT]

--chunks K draws only the first K chunks (the fill and the steady state; default: all).
"""
import argparse
import csv
import re
import sys

LANES = [("to_device", "host → device"), ("scan", "carry + scan"), ("to_host", "device → host")]
FILL = {"copy": ("#4a7fc1", "#9bb9e0"), "scan": ("#3a9a5b", "#8fcca3"),
        "carry_in": ("#d9822b", "#d9822b"), "carry_out": ("#b5462f", "#b5462f")}


def read(path, most):
    """The rows under the header `chunk,stream,step,start_us,end_us`: whatever comes before it
    (`./run`'s notes: `# GPU: ...` with --csv, `GPU: ...` without) is skipped, and so is any line
    after it that is not a row (the closing `# checked: ...`)."""
    rows, note = [], ""
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    header = next((i for i, line in enumerate(lines) if line.startswith("chunk,stream,")), None)
    if header is None:
        sys.exit(f"{path}: no line 'chunk,stream,step,start_us,end_us' (is it the output of "
                 "./run --timeline --csv?)")
    for line in lines[:header]:
        if line.lstrip("# ").startswith("timeline"):
            note = line.lstrip("# ")
    fields = lines[header].split(",")
    body = [line for line in lines[header + 1:]
            if not line.startswith("#") and line[:1].isdigit() and line.count(",") == len(fields) - 1]
    for r in csv.DictReader([lines[header]] + body):
        chunk = int(r["chunk"])
        if most is None or chunk < most:
            rows.append((chunk, r["stream"], r["step"], float(r["start_us"]), float(r["end_us"])))
    if not rows:
        sys.exit(f"{path}: no timeline rows under the header (is it the output of ./run --timeline?)")
    return rows, note


def draw(rows, note, title):
    left, top, lane_h, gap, width = 120, 48, 34, 14, 640
    end = max(r[4] for r in rows)
    scale = width / end
    height = top + len(LANES) * (lane_h + gap) + 52
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
           f'viewBox="0 0 {left + width + 20} {height}" font-family="sans-serif" font-size="12">',
           f"<title>{title}</title>",
           f'<text x="{left}" y="18" font-size="13">{title}</text>',
           f'<text x="{left}" y="34" font-size="10" fill="#555">{note}</text>']
    for i, (stream, label) in enumerate(LANES):
        y = top + i * (lane_h + gap)
        out.append(f'<text x="{left - 8}" y="{y + lane_h / 2 + 4}" text-anchor="end">{label}</text>')
        out.append(f'<line x1="{left}" y1="{y + lane_h}" x2="{left + width}" y2="{y + lane_h}" '
                   'stroke="#ccc"/>')
        for chunk, s, step, start, stop in rows:
            if s != stream:
                continue
            x, w = left + start * scale, max((stop - start) * scale, 0.8)
            colour = FILL.get(step, ("#888", "#bbb"))[chunk % 2]
            h = lane_h if step in ("copy", "scan") else lane_h / 3
            out.append(f'<rect x="{x:.2f}" y="{y + lane_h - h:.2f}" width="{w:.2f}" height="{h:.2f}" '
                       f'fill="{colour}"><title>chunk {chunk}, {step}: {start:.1f} to {stop:.1f} µs'
                       "</title></rect>")
    axis_y = top + len(LANES) * (lane_h + gap)
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + width}" y2="{axis_y}" stroke="#000"/>')
    step_ms = max(1, round(end / 1000 / 8))
    t = 0
    while t * 1000 <= end:
        x = left + t * 1000 * scale
        out.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" stroke="#000"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{t}</text>')
        t += step_ms
    out.append(f'<text x="{left + width / 2}" y="{axis_y + 34}" text-anchor="middle">ms from the '
               "first copy's start (CUDA events)</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("svg")
    ap.add_argument("--chunks", type=int, default=None)
    ap.add_argument("--title", default="Chapter 13's pipeline over time, measured")
    a = ap.parse_args()
    rows, note = read(a.csv, a.chunks)
    # the program's note ends with its times' unit (us); the axis, drawn in ms, says what it shows
    note = re.sub(r"^timeline of one pipeline run: |; times in us.*$", "", note)
    drawn = len({r[0] for r in rows})
    if a.chunks is not None:
        note += f"; the first {drawn} drawn"
    with open(a.svg, "w") as f:
        f.write(draw(rows, note, a.title))
    print(f"{a.svg}: {len(rows)} steps of {drawn} chunks")


if __name__ == "__main__":
    main()
