"""torch_npu.contrib: additions around the NPU backend (transfer_to_npu: CUDA scripts on the NPU)."""
