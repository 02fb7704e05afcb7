"""Command-line tools of torch_npu (python3 -m torch_npu.tools.<name>): profile_report."""
