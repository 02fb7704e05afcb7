// Per-thread scratch buffers reused across kernel launches.
//
// Note [Reused scratch]
// Kernels stage operands in fp32 buffers that are often megabytes (a MatMul's
// L0A/L0B copies, a convolution's img2col matrix). Allocating them per launch
// costs a page fault and a page clear per 4 KiB on every call, which for large
// operands costs as much as the math. Instead each host thread (stream worker
// or pool thread) keeps one growable buffer per slot and hands it out again;
// contents are unspecified unless `zero`. A slot must not be used twice at
// once on one thread: a kernel takes distinct slots for the buffers it holds
// together, and kernels do not nest. The buffers only grow (host memory, not
// simulated HBM).
#pragma once

#include <cstdint>

namespace ascend_sim {

enum class ScratchSlot { kIn0, kIn1, kPanels, kCols, kResult, kOut, kTask, kAux, kCount };

float* threadScratch(ScratchSlot slot, int64_t n, bool zero = false);

}  // namespace ascend_sim
