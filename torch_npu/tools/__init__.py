"""Command-line tools of torch_npu (python3 -m torch_npu.tools.<name>; docs/profiling.md):
- profile_report: the HTML report of a profiler trace;
- overflow: the first op that overflowed, from an overflow-detection dump;
- compare: the first op where an NPU run's outputs leave a CPU run's (and compare.record, the recorder).
"""
