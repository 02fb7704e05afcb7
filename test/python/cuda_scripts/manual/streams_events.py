"""Hand port of ../streams_events.py to the NPU."""
import json

import torch
import torch_npu  # noqa: F401


def main():
    torch.manual_seed(0)
    a = torch.randn(256, 256, device="npu")
    side = torch.npu.Stream()
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        start.record()
        b = a @ a
        c = b.relu().sum()
        end.record()
    torch.npu.current_stream().wait_stream(side)
    b.record_stream(torch.npu.current_stream())
    end.synchronize()
    reference = (a @ a).relu().sum()
    print(json.dumps({"sum": round(c.item(), 2), "equal": bool(torch.equal(c, reference)),
                      "elapsed_positive": start.elapsed_time(end) > 0, "query": end.query(),
                      "memory_allocated": torch.npu.memory_allocated() > 0}))


if __name__ == "__main__":
    main()
