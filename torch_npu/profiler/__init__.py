"""torch_npu.profiler: torch.profiler in the form torch_npu 2.x offers it, with the simulated NPU.

    import torch_npu
    prof = torch_npu.profiler.profile(
        activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
        schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler("./log"))
    with prof:
        for batch in loader:
            train_step(batch)
            prof.step()

torch.profiler's schedule, step() and handlers work unchanged; with ProfilerActivity.NPU each recorded
cycle also holds the device's tasks, attributed to their host ops, and its trace has the NPU rows
(Note [NPU time in the autograd profiler] in torch_npu/npu/autograd_profiler.py). The host side always
records CPU activity, which the attribution needs.
"""
import torch.profiler as _torch_profiler
from torch.profiler import ProfilerAction, record_function, schedule, tensorboard_trace_handler

from torch_npu.npu.autograd_profiler import profile as _autograd_profile


class ProfilerActivity:
    """torch_npu's activities: CPU (host ops) and NPU (the device's tasks)."""
    CPU = _torch_profiler.ProfilerActivity.CPU
    NPU = "NPU"


def supported_activities():
    return {ProfilerActivity.CPU, ProfilerActivity.NPU}


class profile(_torch_profiler.profile):
    """torch.profiler.profile whose activities may include ProfilerActivity.NPU (the default: both)."""

    def __init__(self, *, activities=None, **kwargs):
        activities = set(activities) if activities else supported_activities()
        unknown = activities - supported_activities()
        if unknown:
            raise ValueError(f"torch_npu.profiler.profile: unsupported activities {sorted(map(str, unknown))}; "
                             "use torch_npu.profiler.ProfilerActivity.CPU and .NPU")
        self.use_npu = ProfilerActivity.NPU in activities
        super().__init__(activities=[ProfilerActivity.CPU], **kwargs)

    def prepare_trace(self):
        self.profiler = _autograd_profile(
            use_npu=self.use_npu, use_cpu=True, record_shapes=self.record_shapes, with_flops=self.with_flops,
            profile_memory=self.profile_memory, with_stack=self.with_stack, with_modules=self.with_modules,
            use_kineto=True, experimental_config=self.experimental_config)
        self.profiler._prepare_trace()

    def export_html_report(self, path, title="NPU profile"):
        """The last recorded cycle as a self-contained HTML report (torch_npu/profiler/html_report.py)."""
        return self.profiler.export_html_report(path, title)


__all__ = ["profile", "ProfilerActivity", "ProfilerAction", "schedule", "tensorboard_trace_handler",
           "record_function", "supported_activities"]
