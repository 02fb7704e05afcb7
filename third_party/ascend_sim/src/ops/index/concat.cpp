// ConcatD (OPS.md "Indexing, concatenation, sorting, losses"): y = the
// inputs x0..xn-1 concatenated along attr `concat_dim` (may be negative).
// Same dtype (any sized dtype; a bit-exact byte copy), same rank, equal sizes
// except along concat_dim, where zero-size inputs are allowed. As in
// torch.cat, a 1-D input of shape [0] is skipped whatever the output's rank
// (PyTorch's legacy rule). Optional attr `N` must equal the input count.
// y is seen as [outer, D, inner] around the axis; every input contributes one
// contiguous run of D_k * inner elements per outer index. Outer rows are split
// into contiguous ranges over the simulated vector cores.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

bool skipped(const TensorArg& t, const TensorArg& y) {
  return t.shape.size() == 1 && t.shape[0] == 0 && y.shape.size() != 1;
}

void validateConcat(const OpCall& call) {
  checkArity(call, 1, 1u << 20, 1);
  const TensorArg& y = call.outputs[0];
  if (call.attrs.has("N") && attrInt(call, "N") != static_cast<int64_t>(call.inputs.size()))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'N' is " + std::to_string(attrInt(call, "N")) + " but there are " +
             std::to_string(call.inputs.size()) + " inputs");
  checkDtype(call, y, "output y", kStorageTypes);
  if (y.shape.empty()) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "cannot concatenate 0-d tensors (output y is 0-d)");
  const int64_t axis = normalizeAxis(call, attrInt(call, "concat_dim"), y.shape.size(), "concat_dim");
  int64_t total = 0;
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    const TensorArg& x = call.inputs[k];
    const std::string name = "input x" + std::to_string(k);
    checkSameDtype(call, y, "output y", x, name);
    if (skipped(x, y)) continue;
    if (x.shape.size() != y.shape.size())
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           name + " shape " + shapeToString(x.shape) + " has rank " + std::to_string(x.shape.size()) +
               " but output y shape " + shapeToString(y.shape) + " has rank " + std::to_string(y.shape.size()));
    for (size_t d = 0; d < y.shape.size(); ++d)
      if (static_cast<int64_t>(d) != axis && x.shape[d] != y.shape[d])
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             name + " shape " + shapeToString(x.shape) + " differs from output y shape " + shapeToString(y.shape) +
                 " in dim " + std::to_string(d) + " (only concat_dim " + std::to_string(axis) + " may differ)");
    total += x.shape[static_cast<size_t>(axis)];
  }
  if (total != y.shape[static_cast<size_t>(axis)])
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "output y shape " + shapeToString(y.shape) + " has size " + std::to_string(y.shape[axis]) +
             " along concat_dim " + std::to_string(axis) + " but the inputs add up to " + std::to_string(total));
}

int64_t outerBlocks(const OpCall& call, int64_t outer, int64_t numel) {
  const int64_t chunks = (numel + 1023) / 1024;
  return std::max<int64_t>(1, std::min<int64_t>({outer, chunks, static_cast<int64_t>(std::max(call.ctx.vector_cores, 1))}));
}

void computeConcat(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = splitAtAxis(call, y.shape, attrInt(call, "concat_dim"), "concat_dim");
  const size_t es = dtypeSize(y.dtype);
  struct Part {
    const char* src;
    size_t row_bytes;  // per outer index
    size_t dst_off;    // within an output row
  };
  std::vector<Part> parts;
  size_t off = 0;
  for (const TensorArg& x : call.inputs) {
    if (skipped(x, y)) continue;
    const size_t rb = static_cast<size_t>(x.shape[static_cast<size_t>(s.axis)] * s.inner) * es;
    if (rb) parts.push_back({static_cast<const char*>(x.data), rb, off});
    off += rb;
  }
  const size_t out_row = static_cast<size_t>(s.dim * s.inner) * es;
  if (out_row == 0 || s.outer == 0) return;
  char* dst = static_cast<char*>(y.data);
  const int64_t blocks = outerBlocks(call, s.outer, y.numel());
  parallelFor(blocks, [&](int64_t b) {
    const int64_t lo = b * s.outer / blocks, hi = (b + 1) * s.outer / blocks;
    for (int64_t o = lo; o < hi; ++o)
      for (const Part& p : parts)
        std::memcpy(dst + static_cast<size_t>(o) * out_row + p.dst_off, p.src + static_cast<size_t>(o) * p.row_bytes,
                    p.row_bytes);
  });
}

KernelCost costConcat(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const TensorArg& y = call.outputs[0];
  const AxisSplit s = splitAtAxis(call, y.shape, attrInt(call, "concat_dim"), "concat_dim");
  c.flops = 0;
  c.block_dim = static_cast<uint32_t>(outerBlocks(call, s.outer, y.numel()));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ConcatD", &validateConcat, &computeConcat, &costConcat,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
