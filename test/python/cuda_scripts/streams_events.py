"""Work on a side stream, ordered and timed with CUDA events."""
import json

import torch


def main():
    torch.manual_seed(0)
    a = torch.randn(256, 256, device="cuda")
    side = torch.cuda.Stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        start.record()
        b = a @ a
        c = b.relu().sum()
        end.record()
    torch.cuda.current_stream().wait_stream(side)
    b.record_stream(torch.cuda.current_stream())
    end.synchronize()
    reference = (a @ a).relu().sum()
    print(json.dumps({"sum": round(c.item(), 2), "equal": bool(torch.equal(c, reference)),
                      "elapsed_positive": start.elapsed_time(end) > 0, "query": end.query(),
                      "memory_allocated": torch.cuda.memory_allocated() > 0}))


if __name__ == "__main__":
    main()
