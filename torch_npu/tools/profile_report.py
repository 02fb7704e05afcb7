"""python3 -m torch_npu.tools.profile_report TRACE [-o OUT.html]: the HTML report of a profiler trace
(torch_npu/profiler/html_report.py)."""
import sys

from torch_npu.profiler.html_report import main

if __name__ == "__main__":
    sys.exit(main())
