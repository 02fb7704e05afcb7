"""Scaling prediction: record one rank's training step, replay it on a cluster of any size.

    from torch_npu.tools import scaling
    for step in range(3):                       # warm up: DDP builds its buckets in step 1
        train_step()
    with scaling.record("step.json"):           # one steady-state step, on one or more ranks
        train_step()

    python3 -m torch_npu.tools.scaling step.json --servers 1,2,8,64 [--soc Ascend910B2] [--html r.html]

Note [Scaling by replay]
The simulated device has a timeline per stream (compute, HCCL's communication stream, ...),
and a training step is fully described by its tasks on them: their simulated durations and the
event dependencies between streams (a collective waits for the backward op that filled its
bucket; the optimizer waits for the last collective). `record` saves exactly that (the
device's op records, whose EventRecord / EventWait records name their event). `replay` runs the
same tasks again on the same streams, in the same order and with the same dependencies, with
one change: every collective gets the simulated time the simulator's HCCL layer would give it
on the target cluster (HcclSimPredictCollective: the same algorithm choice and link model as a
real communicator of that shape, Note [Collective schedule]). So the prediction is the step a
real N-rank run would simulate, as long as each rank computes what the recorded rank computed:
data-parallel weak scaling (the per-device batch stays the same), which is what DDP does.

What it does not model: the host (the simulated timeline never waits for Python), stragglers
(ranks here are identical), and collectives whose size depends on the rank count other than
all-gather / reduce-scatter (whose per-rank part is kept).
"""
from torch_npu.tools.scaling.trace import Trace, load, record
from torch_npu.tools.scaling.replay import Prediction, predict, replay

__all__ = ["Trace", "load", "record", "Prediction", "predict", "replay"]
