"""benchmarks/npu_vs_cpu.py's interleaved rounds (Note [Interleaved rounds]): each round times both
sides, alternating which goes first, and a row is the median of the rounds' ratios with their spread."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks"))
import npu_vs_cpu  # noqa: E402


def test_median_of_odd_and_even_counts():
    assert npu_vs_cpu.median([3, 1, 2]) == 2
    assert npu_vs_cpu.median([4, 1, 3, 2]) == 2.5


def test_rounds_alternate_sides_and_report_the_median_ratio_and_its_spread():
    order = []
    cpu_times = iter([2.0, 3.0, 4.0, 2.5, 3.0])  # round 3: a slow spell hits the CPU side only
    npu_times = iter([1.0, 1.0, 1.0, 1.0, 1.0])

    def sample(fn, sync, calls):
        order.append(fn.__name__)
        return next(cpu_times) if fn.__name__ == "cpu" else next(npu_times)

    def cpu():
        pass

    def npu():
        pass

    c, n, ratio, spread = npu_vs_cpu.interleaved(cpu, npu, lambda: None, 5, sample=sample)
    assert order == ["cpu", "npu", "npu", "cpu", "cpu", "npu", "npu", "cpu", "cpu", "npu"]
    assert (c, n) == (3.0, 1.0)
    assert ratio == 3.0  # the median round: neither the outlier (4) nor the best-of-samples figure (2)
    assert spread == 1.0  # max / min ratio - 1: 4 / 2 - 1
