"""python3 -m torch_npu.tools.scaling TRACE --servers 1,2,8,64 [--devices-per-server 8] [--algo ...] [--html R]"""
import argparse
import sys

from torch_npu.tools.scaling import report
from torch_npu.tools.scaling.replay import predict
from torch_npu.tools.scaling.trace import load

_DEFAULT_SERVER_NPUS = 8  # both presets' servers hold eight NPUs


def _positive_ints(text, what):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{what} must be integers >= 1, got {text!r}")
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m torch_npu.tools.scaling",
                                     description="Predict data-parallel scaling from one recorded training step.")
    parser.add_argument("trace", help="a step recorded with torch_npu.tools.scaling.record")
    parser.add_argument("--servers", default="1,2,8,64", type=lambda t: _positive_ints(t, "--servers"),
                        help="server counts (default 1,2,8,64)")
    parser.add_argument("--devices-per-server", type=int, default=_DEFAULT_SERVER_NPUS,
                        help="NPUs per server (default 8)")
    parser.add_argument("--algo", default="auto,ring,H-D_R,pipeline",
                        help="level-1 algorithms to compare: auto (CANN's default), ring, H-D_R, pipeline")
    parser.add_argument("--html", help="write an HTML report with plots to this file")
    args = parser.parse_args(argv)
    if args.devices_per_server < 1:
        parser.error("--devices-per-server must be >= 1")
    try:
        trace = load(args.trace)
        algos = [a.strip() for a in args.algo.split(",") if a.strip()]
        predictions = [predict(trace, s, args.devices_per_server, algo) for algo in algos for s in args.servers]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report.table(predictions, trace.span_us()))
    if args.html:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(report.html_report(predictions, args.trace, trace.span_us()))
        print(f"wrote {args.html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
