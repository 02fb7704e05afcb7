"""python3 -m torch_npu.tools.overflow DUMP_DIR: the first op that overflowed, with its inputs' ranges.

DUMP_DIR is an op dump made in overflow-detection mode (torch.npu.set_dump with "dump_debug": "on"),
which holds the ops that raised the float status (or, on chips without saturation, made inf/NaN from
finite inputs), in execution order. The first is where the overflow started; the ones after it
usually inherit it.
"""
import argparse
import sys

from torch_npu.tools.dump_files import describe, load_manifest


def overflowed_ops(dump_dir):
    """The manifest entries of the ops that overflowed, in execution order."""
    manifest = load_manifest(dump_dir)
    return sorted((op for op in manifest["ops"] if op.get("overflow")), key=lambda op: op["index"])


def report(dump_dir, more=10):
    """The report's text."""
    ops = overflowed_ops(dump_dir)
    if not ops:
        return f"{dump_dir}: no op overflowed."
    first = ops[0]
    layer = first["scope"] or "(outside any module's forward: a loss, an optimizer or a backward op)"
    lines = [f"First overflow: op #{first['index']} {first['op_name']} (op type {first['op_type']}) in layer {layer}, "
             f"device {first['device']} stream {first['stream']}"]
    lines += [describe(dump_dir, t, "input", i) for i, t in enumerate(first["inputs"])]
    lines += [describe(dump_dir, t, "output", i) for i, t in enumerate(first["outputs"])]
    if len(ops) > 1:
        lines.append(f"{len(ops) - 1} later op(s) overflowed too:")
        lines += [f"  #{op['index']} {op['op_name']} in {op['scope'] or '-'}" for op in ops[1:1 + more]]
        if len(ops) > 1 + more:
            lines.append(f"  ... and {len(ops) - 1 - more} more")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m torch_npu.tools.overflow", description=__doc__.splitlines()[0])
    parser.add_argument("dump_dir")
    parser.add_argument("--more", type=int, default=10, help="later overflowing ops to list")
    args = parser.parse_args(argv)
    print(report(args.dump_dir, args.more))
    return 1 if overflowed_ops(args.dump_dir) else 0


if __name__ == "__main__":
    sys.exit(main())
