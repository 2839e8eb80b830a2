"""A picture of a simulated day, as SVG: awake and asleep, behaviours, mood, stimuli.

One glance should tell whether a personality lived its day: when it slept, whether its awake time
is one behaviour or many, whether its mood moved, and where people came by. :func:`day_svg` draws,
along one time axis (hours of the simulated local clock):

- a band, green while awake and dark while asleep (quiet hours shaded beneath it);
- one band per behaviour (the most frequent ones; the rest share a row), a mark wherever it ran;
- each emotion's curve between -1 and 1;
- the scripted stimuli as ticks (red: not answered: a touch within 1 s, a face arriving awake within 2 s of being seen).

Stretches closer than a pixel are merged, so a day of thousands of behaviour changes stays a small
file. The SVG is plain text written by hand here (no plotting library).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .liveliness import ANSWERABLE_STIMULI, PAUSE, sleep_spans

__all__ = ["day_svg"]

WIDTH = 1200
LEFT = 190
RIGHT = 20
ROW = 13
MAX_BEHAVIOUR_ROWS = 16
MOOD_HEIGHT = 170
#: Spacings of the time axis's ticks (seconds); the smallest giving at most 12 ticks is used.
TICK_STEPS = (60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0, 86400.0)
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac", "#1f77b4", "#8c564b")


def _merge(spans: Sequence[tuple[float, float]], min_gap: float) -> list[tuple[float, float]]:
    """Spans (sorted) with gaps below ``min_gap`` closed."""
    out: list[tuple[float, float]] = []
    for a, b in sorted(spans):
        if out and a - out[-1][1] < min_gap:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


class _Canvas:
    def __init__(self, duration_s: float, start_clock_s: float) -> None:
        self.duration = max(duration_s, 1e-6)
        self.start_clock_s = start_clock_s
        self.plot_w = WIDTH - LEFT - RIGHT
        self.parts: list[str] = []
        self.y = 0.0

    def x(self, t: float) -> float:
        return LEFT + self.plot_w * min(max(t, 0.0), self.duration) / self.duration

    def add(self, text: str) -> None:
        self.parts.append(text)

    def label(self, y: float, text: str, *, size: int = 11, x: float = LEFT - 6, anchor: str = "end",
              colour: str = "#333") -> None:
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}">'
                 f"{escape(text)}</text>")

    def bars(self, y: float, spans: Sequence[tuple[float, float]], colour: str, height: float = ROW - 3,
             title: str | None = None) -> None:
        px = self.duration / self.plot_w  # seconds per pixel
        for a, b in _merge(spans, px):
            x0, x1 = self.x(a), self.x(b)
            tip = f"<title>{escape(title)}</title>" if title else ""
            self.add(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 0.8):.1f}" height="{height:.1f}" '
                     f'fill="{colour}">{tip}</rect>')


def _clock(seconds: float) -> str:
    minutes = int(seconds // 60) % 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _axis(c: _Canvas) -> None:
    step = next((s for s in TICK_STEPS if c.duration / s <= 12), TICK_STEPS[-1])
    # ticks at whole clock steps
    first = (-(c.start_clock_s % step)) % step
    t = first
    top = c.y
    while t <= c.duration + 1e-6:
        x = c.x(t)
        c.add(f'<line x1="{x:.1f}" y1="{top + 14:.1f}" x2="{x:.1f}" y2="{top + 18:.1f}" stroke="#555"/>')
        c.label(top + 11, _clock(c.start_clock_s + t), size=10, x=x, anchor="middle", colour="#555")
        t += step
    c.add(f'<line x1="{LEFT}" y1="{top + 18:.1f}" x2="{WIDTH - RIGHT}" y2="{top + 18:.1f}" stroke="#555"/>')
    c.y += 24


def _grid(c: _Canvas, top: float, bottom: float) -> None:
    """Faint vertical lines at the hours, behind everything."""
    first = (-(c.start_clock_s % 3600.0)) % 3600.0
    t = first
    lines = []
    while t <= c.duration and c.duration / 3600.0 <= 48:
        x = c.x(t)
        lines.append(f'<line x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="#eee"/>')
        t += 3600.0
    c.parts[0:0] = lines


def _behaviour_rows(timeline: Sequence[Mapping[str, Any]], end: float) -> list[tuple[str, list[tuple[float, float]]]]:
    changes = [e for e in timeline if e["kind"] == "behaviour"]
    spans: dict[str, list[tuple[float, float]]] = {}
    for i, e in enumerate(changes):
        stop = float(changes[i + 1]["t"]) if i + 1 < len(changes) else end
        spans.setdefault(str(e["name"]), []).append((float(e["t"]), stop))
    order = sorted(spans, key=lambda k: -sum(b - a for a, b in spans[k]))
    rows = [(name, spans[name]) for name in order if name != PAUSE]
    if len(rows) > MAX_BEHAVIOUR_ROWS:
        rest = [s for _, ss in rows[MAX_BEHAVIOUR_ROWS - 1:] for s in ss]
        rows = [*rows[:MAX_BEHAVIOUR_ROWS - 1], (f"{len(rows) - MAX_BEHAVIOUR_ROWS + 1} others", rest)]
    return rows


def day_svg(report: Mapping[str, Any]) -> str:
    """The picture of the day of a report (its ``as_dict()``) as an SVG document."""
    timeline: Sequence[Mapping[str, Any]] = report.get("timeline", [])
    duration = float(report.get("simulated_s") or 0.0) or max((float(e["t"]) for e in timeline), default=1.0)
    start_clock = str(report.get("start_clock") or "00:00")
    hh, mm = (int(p) for p in start_clock.split(":"))
    c = _Canvas(duration, hh * 3600 + mm * 60)
    c.y = 8
    c.label(c.y + 12, f"{report.get('personality', '?')}, seed {report.get('seed', '?')}: "
                      f"{duration / 3600:.2f} h from {start_clock}", size=13, x=LEFT, anchor="start", colour="#000")
    c.y += 22
    _axis(c)
    top = c.y
    sleeps = sleep_spans(timeline, duration)
    quiet_spans = [(float(a), float(b)) for a, b in (report.get("quiet") or {}).get("spans", [])]
    c.label(c.y + ROW - 3, "awake / asleep")
    c.bars(c.y, [(0.0, duration)], "#8fd18a", title="awake")
    c.bars(c.y, sleeps, "#2c3e66", title="asleep")
    c.y += ROW + 2
    if quiet_spans:
        c.label(c.y + 7, "quiet hours", size=9)
        c.bars(c.y, quiet_spans, "#c9c3e6", height=6, title="quiet hours")
        c.y += 10
    c.y += 6
    for i, (name, spans) in enumerate(_behaviour_rows(timeline, duration)):
        c.label(c.y + ROW - 3, name if len(name) <= 30 else name[:29] + "…", size=10)
        c.bars(c.y, spans, PALETTE[i % len(PALETTE)], title=name)
        c.y += ROW
    c.y += 10
    _mood(c, report.get("mood_curve") or {})
    _stimuli(c, timeline, report.get("liveliness") or {})
    _grid(c, top, c.y)
    height = c.y + 10
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
            f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif">'
            f'<rect width="100%" height="100%" fill="#fff"/>')
    return head + "\n" + "\n".join(c.parts) + "\n</svg>\n"


def _mood(c: _Canvas, curve: Mapping[str, Any]) -> None:
    times = [float(t) for t in curve.get("t", [])]
    emotions: Mapping[str, Sequence[float]] = curve.get("emotions", {})
    top, h = c.y, MOOD_HEIGHT

    def y(v: float) -> float:
        return top + h * (1.0 - (max(-1.0, min(1.0, v)) + 1.0) / 2.0)

    c.label(top + 8, "mood +1", size=9)
    c.label(y(0.0) + 3, "0", size=9)
    c.label(top + h, "-1", size=9)
    c.add(f'<rect x="{LEFT}" y="{top:.1f}" width="{c.plot_w}" height="{h}" fill="none" stroke="#ccc"/>')
    c.add(f'<line x1="{LEFT}" y1="{y(0.0):.1f}" x2="{WIDTH - RIGHT}" y2="{y(0.0):.1f}" stroke="#ccc" '
          f'stroke-dasharray="3,3"/>')
    legend_x = LEFT
    for i, (emotion, values) in enumerate(emotions.items()):
        colour = PALETTE[i % len(PALETTE)]
        points = " ".join(f"{c.x(t):.1f},{y(float(v)):.1f}" for t, v in zip(times, values, strict=False))
        if points:
            c.add(f"<polyline points={quoteattr(points)} fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.4\">"
                  f"<title>{escape(emotion)}</title></polyline>")
        c.add(f'<rect x="{legend_x:.1f}" y="{top + h + 6:.1f}" width="10" height="10" fill="{colour}"/>')
        c.label(top + h + 15, emotion, size=10, x=legend_x + 14, anchor="start")
        legend_x += 16 + 7 * len(emotion) + 14
    c.y = top + h + 24


def _stimuli(c: _Canvas, timeline: Sequence[Mapping[str, Any]], live: Mapping[str, Any]) -> None:
    missed = {(round(float(m["t"]), 3), m["name"])
              for m in [*live.get("unanswered", []), *live.get("faces_unanswered", [])]}
    c.label(c.y + ROW, "stimuli")
    for e in timeline:
        if e["kind"] != "stimulus":
            continue
        t, name = float(e["t"]), str(e["name"])
        answerable = name.split(" ", 1)[0] in ANSWERABLE_STIMULI
        colour = "#d62728" if (round(t, 3), name) in missed else ("#333" if answerable else "#aaa")
        x = c.x(t)
        c.add(f'<line x1="{x:.1f}" y1="{c.y:.1f}" x2="{x:.1f}" y2="{c.y + ROW + 4:.1f}" stroke="{colour}" '
              f'stroke-width="1.5"><title>{escape(f"{t:.1f} s: {name}")}</title></line>')
    c.y += ROW + 8
