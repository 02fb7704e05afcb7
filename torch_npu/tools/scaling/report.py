"""The prediction as a table and as an HTML report with its plots (inline SVG, no plotting library)."""
import html
import math

_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def table(predictions, recorded_us=None):
    lines = []
    if predictions:
        p0 = predictions[0]
        head = f"{p0.soc}, {p0.per_server} NPUs per server; one-NPU step {p0.compute_us:.1f} us (simulated)"
        if recorded_us is not None:
            head += f", recorded step {recorded_us:.1f} us"
        lines.append(head)
    lines.append(f"{'servers':>7} {'NPUs':>6} {'HCCL_ALGO':>9} {'all-reduce':>16} {'step (us)':>12} "
                 f"{'comm (us)':>12} {'exposed':>8} {'efficiency':>10}")
    for p in predictions:
        lines.append(f"{p.servers:>7} {p.npus:>6} {p.algo:>9} {p.algorithms:>16} {p.step_us:>12.1f} "
                     f"{p.comm_us:>12.1f} {p.exposed_comm_share:>8.1%} {p.efficiency:>10.1%}")
    return "\n".join(lines)


def svg_plot(series, title, y_label, y_max=None, width=560, height=320, y_percent=False):
    """A line plot over server counts (log2 x axis). series: {label: [(servers, y), ...]}."""
    xs = sorted({x for pts in series.values() for x, _ in pts})
    ys = [y for pts in series.values() for _, y in pts]
    if not xs or not ys:
        return ""
    longest = max(len(label) for label in series)
    left, right, top, bottom = 64, max(150, 44 + 7 * longest), 34, 44
    width = max(width, left + right + 320)
    pw, ph = width - left - right, height - top - bottom
    lx = [math.log2(x) for x in xs]
    x_lo, x_hi = min(lx), max(lx) if max(lx) > min(lx) else min(lx) + 1
    y_hi = y_max if y_max is not None else max(ys) * 1.1 or 1.0

    def px(x):
        return left + (math.log2(x) - x_lo) / (x_hi - x_lo) * pw

    def py(y):
        return top + ph - min(y, y_hi) / y_hi * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="20" font-size="13" font-weight="bold">{html.escape(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>']
    for i in range(6):
        y = y_hi * i / 5
        label = f"{y:.0%}" if y_percent else f"{y:.3g}"
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{label}</text>')
    for x in xs:
        out.append(f'<text x="{px(x):.1f}" y="{top + ph + 16}" text-anchor="middle">{x}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle">servers</text>')
    out.append(f'<text transform="translate(14,{top + ph / 2}) rotate(-90)" text-anchor="middle">'
               f'{html.escape(y_label)}</text>')
    for k, (label, pts) in enumerate(series.items()):
        color = _COLORS[k % len(_COLORS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
        ly = top + 14 + 16 * k
        out.append(f'<line x1="{left + pw + 12}" x2="{left + pw + 30}" y1="{ly - 4}" y2="{ly - 4}" '
                   f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 34}" y="{ly}">{html.escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def by_algo(predictions, value):
    series = {}
    for p in predictions:
        series.setdefault(p.algo, []).append((p.servers, value(p)))
    return series


def html_report(predictions, trace_path, recorded_us=None):
    eff = svg_plot(by_algo(predictions, lambda p: p.efficiency), "Weak-scaling efficiency",
                   "efficiency vs one NPU", y_max=1.0, y_percent=True)
    step = svg_plot(by_algo(predictions, lambda p: p.step_us / 1000), "Predicted step time", "step (ms)")
    rows = "".join(
        f"<tr><td>{p.servers}</td><td>{p.npus}</td><td>{html.escape(p.algo)}</td>"
        f"<td>{html.escape(p.algorithms)}</td><td>{p.step_us:.1f}</td><td>{p.comm_us:.1f}</td>"
        f"<td>{p.exposed_comm_share:.1%}</td><td>{p.efficiency:.1%}</td></tr>" for p in predictions)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Scaling prediction: {html.escape(trace_path)}</title>
<style>body{{font-family:sans-serif;margin:2em}} td,th{{padding:2px 10px;text-align:right}}
th{{border-bottom:1px solid #999}}</style></head><body>
<h1>Scaling prediction</h1>
<pre>{html.escape(table(predictions, recorded_us).splitlines()[0])}</pre>
<p>Trace <code>{html.escape(trace_path)}</code> replayed on each cluster (simulated time; data-parallel weak
scaling: every NPU computes the recorded step, the collectives are priced on the cluster's links).</p>
{eff}
{step}
<table><tr><th>servers</th><th>NPUs</th><th>HCCL_ALGO</th><th>all-reduce</th><th>step (us)</th>
<th>comm (us)</th><th>exposed comm</th><th>efficiency</th></tr>{rows}</table>
</body></html>
"""
