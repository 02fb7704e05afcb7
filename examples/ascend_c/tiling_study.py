"""What tiling and double buffering do to add_custom's simulated time.

    cd examples/ascend_c && /usr/bin/python3 setup.py build_ext --inplace && /usr/bin/python3 tiling_study.py

Prints the simulated time of z = x + y over 4 Mi floats for tile lengths, one or two buffers per
queue, and block dims, from the launch's op record.
"""
import torch
import torch_npu  # noqa: F401

import ascendc_ext  # noqa: F401  (registers torch.ops.ascendc_ext)


def simulated_us(op, x, y, tile, blocks):
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        op(x, y, tile_length=tile, block_dim=blocks)
        torch.npu.synchronize()
    return next(r.duration_us for r in rec.records if r.op_type.startswith("add_custom"))


def main():
    n = 4 << 20
    x, y = torch.randn(n).npu(), torch.randn(n).npu()
    ops = {"double": torch.ops.ascendc_ext.add_custom, "single": torch.ops.ascendc_ext.add_custom_single_buffer}
    print(f"add_custom, {n} floats ({3 * n * 4 / 2**20:.0f} MiB moved), simulated us on {torch.npu.get_device_name()}")
    print(f"{'tile (floats)':>14}{'blocks':>8}{'single':>10}{'double':>10}{'gain':>7}")
    for tile in (256, 2048, 8192):
        for blocks in (1, 8, 32):
            single = simulated_us(ops["single"], x, y, tile, blocks)
            double = simulated_us(ops["double"], x, y, tile, blocks)
            print(f"{tile:>14}{blocks:>8}{single:>10.1f}{double:>10.1f}{single / double:>7.2f}")


if __name__ == "__main__":
    main()
