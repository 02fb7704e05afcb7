"""Draws the pipe timelines of Ascend C kernel launches (the traces ASCEND_SIM_KERNEL_TRACE_DIR
writes), block 0 of each, one above the other, as an SVG.

    ASCEND_SIM_KERNEL_TRACE_DIR=traces /usr/bin/python3 my_script.py
    /usr/bin/python3 plot_pipes.py traces/1_add_custom_single_buffer.json traces/2_add_custom.json -o pipes.svg

The same files open in chrome://tracing or https://ui.perfetto.dev (a process per block, a row per pipe).
"""
import argparse
import html
import json

PIPES = ["MTE2", "V", "MTE3", "MTE1", "M", "FIX", "S"]
COLOURS = {"MTE2": "#1f77b4", "V": "#ff7f0e", "MTE3": "#2ca02c", "MTE1": "#17becf", "M": "#d62728",
           "FIX": "#9467bd", "S": "#7f7f7f"}
WIDTH, LEFT, ROW, TITLE = 900, 60, 18, 22


def block0_spans(path):
    with open(path) as f:
        trace = json.load(f)
    names = {e["tid"]: e["args"]["name"].split()[0] for e in trace["traceEvents"]
             if e["name"] == "thread_name" and e["pid"] == 0}
    spans = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["pid"] == 0:
            spans.setdefault(names[e["tid"]], []).append((e["ts"], e["dur"], e["name"]))
    return trace["otherData"]["kernel"], spans


def svg(loaded):
    end = max(s + d for _, spans in loaded for row in spans.values() for s, d, _ in row)
    scale = (WIDTH - LEFT - 10) / end
    parts, y = [], 0
    for kernel, spans in loaded:
        last = max(s + d for row in spans.values() for s, d, _ in row)
        parts.append(f'<text x="{LEFT}" y="{y + 15}" font-size="13">{html.escape(kernel)}, block 0: '
                     f'{last:.2f} simulated us</text>')
        y += TITLE
        for pipe in (p for p in PIPES if p in spans):
            parts.append(f'<text x="4" y="{y + 13}" font-size="12">{pipe}</text>')
            for s, d, name in spans[pipe]:
                parts.append(f'<rect x="{LEFT + s * scale:.2f}" y="{y + 2}" width="{max(d * scale, 0.5):.2f}" '
                             f'height="{ROW - 4}" fill="{COLOURS[pipe]}"><title>{html.escape(name)} '
                             f'{s:.3f} + {d:.3f} us</title></rect>')
            y += ROW
        y += 8
    parts.append(f'<text x="{LEFT}" y="{y + 12}" font-size="12">0 ... {end:.2f} simulated us from the block\'s '
                 f'start</text>')
    y += 18
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" font-family="sans-serif">'
            f'<rect width="100%" height="100%" fill="white"/>' + "".join(parts) + "</svg>\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+")
    parser.add_argument("-o", "--output", default="pipes.svg")
    args = parser.parse_args()
    with open(args.output, "w") as f:
        f.write(svg([block0_spans(p) for p in args.traces]))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
