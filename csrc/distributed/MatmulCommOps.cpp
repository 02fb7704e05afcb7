// torch_npu's fused matmul-communication ops (CANN's MC2 family), over the
// project's HCCL:
//   npu_mm_all_reduce_base(x1, x2, hcom, *, reduce_op='sum', bias, ..., x3, ..., comm_turn=0)
//       = all_reduce(x1 @ x2 + bias + x3)                            (MatmulAllReduce)
//   npu_all_gather_base_mm(input, x2, hcom, world_size, *, bias, gather_index=0, gather_output=True,
//                          comm_turn=0)
//       = (all_gather(input) @ x2, all_gather(input))                (AllGatherMatmul)
//   npu_mm_reduce_scatter_base(input, x2, hcom, world_size, *, reduce_op='sum', bias, comm_turn=0)
//       = reduce_scatter(input @ x2)                                 (MatmulReduceScatter)
// Each is a pipeline of tile MatMuls on the caller's stream and tile
// collectives on the group's communication stream (Note [Matmul-communication
// pipelines]). torch_npu's limits are kept: float16 / bfloat16 operands, x2
// 2-D, reduce_op 'sum', comm_turn 0, gather_index 0, no bias for the
// all-gather and reduce-scatter forms, and for those two k in [256, 65535).
// The quantised forms of npu_mm_all_reduce_base (antiquant_*, dequant_scale,
// pertoken_scale, comm_quant_scale_*) are not modelled and raise. torch_npu
// defines no backward: autograd raises "not implemented" if one reaches them.
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <c10/util/accumulate.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/distributed/CommPipeline.h"
#include "csrc/distributed/HcclUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::distributed::commNamed;
using torch_npu::distributed::CommPipeline;
using torch_npu::distributed::commTilesOf;
using torch_npu::distributed::hcclBufferPtr;
using torch_npu::distributed::NamedComm;
using torch_npu::distributed::readableByHccl;
using torch_npu::distributed::RowTile;

constexpr const char* kMmAllReduce = "npu_mm_all_reduce_base";
constexpr const char* kAllGatherMm = "npu_all_gather_base_mm";
constexpr const char* kMmReduceScatter = "npu_mm_reduce_scatter_base";

// x1 / x2 (/ bias): NPU tensors of one device and one dtype, float16 or bfloat16, x1 2-D (or 3-D where
// allowed), x2 2-D with x1's k rows.
void checkMc2Operands(const char* op, const at::Tensor& x1, const at::Tensor& x2, const c10::optional<at::Tensor>& bias,
                      const NamedComm& comm, bool allow_3d) {
  TORCH_CHECK(x1.dim() == 2 || (allow_3d && x1.dim() == 3), op, ": x1 must be 2-D [m, k]",
              allow_3d ? " or 3-D [s, m, k]" : "", ", got ", x1.sizes());
  TORCH_CHECK(x1.device().type() == c10::DeviceType::PrivateUse1, op, ": expected an NPU x1, got ", x1.device());
  TORCH_CHECK(x1.device().index() == comm.device, op, ": x1 is on ", x1.device(),
              " but the communicator hcom runs on npu:", static_cast<int>(comm.device));
  TORCH_CHECK(x2.device() == x1.device(), op, ": x1 and x2 must be on one device, got ", x1.device(), " and ",
              x2.device());
  TORCH_CHECK(x1.scalar_type() == at::kHalf || x1.scalar_type() == at::kBFloat16, op,
              ": x1 must be float16 or bfloat16 (as torch_npu's), got ", x1.scalar_type());
  TORCH_CHECK(x2.scalar_type() == x1.scalar_type(), op, ": x2 must have x1's dtype ", x1.scalar_type(), ", got ",
              x2.scalar_type());
  TORCH_CHECK(x2.dim() == 2, op, ": x2 must be 2-D [k, n], got ", x2.sizes());
  TORCH_CHECK(x1.size(-1) == x2.size(0), op, ": x1's last dim (k = ", x1.size(-1), ") must equal x2's first (",
              x2.size(0), ")");
  if (!bias.has_value()) return;
  TORCH_CHECK(bias->device() == x1.device() && bias->scalar_type() == x1.scalar_type(), op, ": bias must be a ",
              x1.scalar_type(), " tensor on ", x1.device(), ", got ", bias->scalar_type(), " on ", bias->device());
  TORCH_CHECK(bias->dim() == 1 && bias->size(0) == x2.size(1), op, ": bias must be 1-D of x2's n (", x2.size(1),
              "), got ", bias->sizes());
}

void checkMc2Options(const char* op, c10::string_view reduce_op, int64_t comm_turn) {
  TORCH_CHECK(reduce_op == "sum", op, ": reduce_op must be 'sum' (the only one torch_npu supports), got '",
              std::string(reduce_op), "'");
  TORCH_CHECK(comm_turn == 0, op, ": comm_turn must be 0 (the default split, the only one torch_npu supports), got ",
              comm_turn);
}

// The all-gather and reduce-scatter forms: no bias, 2-D operands, world_size of the communicator, torch_npu's k
// range.
void checkShardedForm(const char* op, const at::Tensor& x1, const at::Tensor& x2, int64_t world_size,
                      const NamedComm& comm, const c10::optional<at::Tensor>& bias) {
  TORCH_CHECK(!bias.has_value(), op, ": bias is not supported (torch_npu accepts none for this op yet)");
  checkMc2Operands(op, x1, x2, bias, comm, /*allow_3d=*/false);
  TORCH_CHECK(world_size == comm.size, op, ": world_size is ", world_size, " but the communicator hcom has ", comm.size,
              " ranks");
  TORCH_CHECK(x1.size(1) >= 256 && x1.size(1) < 65535, op, ": k must be in [256, 65535) as torch_npu requires, got ",
              x1.size(1));
}

// A contiguous base-format operand (the tiles are row ranges of it).
at::Tensor rowMajor(const at::Tensor& t) { return t.contiguous(); }

}  // namespace

at::Tensor NPUCustomFunctions::npu_mm_all_reduce_base(
    const at::Tensor& x1, const at::Tensor& x2, c10::string_view hcom, c10::string_view reduce_op,
    const c10::optional<at::Tensor>& bias, const c10::optional<at::Tensor>& antiquant_scale,
    const c10::optional<at::Tensor>& antiquant_offset, const c10::optional<at::Tensor>& x3,
    const c10::optional<at::Tensor>& dequant_scale, const c10::optional<at::Tensor>& pertoken_scale,
    const c10::optional<at::Tensor>& comm_quant_scale_1, const c10::optional<at::Tensor>& comm_quant_scale_2,
    int64_t comm_turn, int64_t antiquant_group_size) {
  const NamedComm comm = commNamed(hcom, kMmAllReduce);
  checkMc2Operands(kMmAllReduce, x1, x2, bias, comm, /*allow_3d=*/true);
  checkMc2Options(kMmAllReduce, reduce_op, comm_turn);
  for (const auto* q :
       {&antiquant_scale, &antiquant_offset, &dequant_scale, &pertoken_scale, &comm_quant_scale_1, &comm_quant_scale_2})
    TORCH_CHECK(!q->has_value(), kMmAllReduce,
                ": the quantised forms (antiquant_scale / antiquant_offset / dequant_scale / pertoken_scale / "
                "comm_quant_scale_*) are not modelled by the NPU simulator; pass float16 or bfloat16 x1 and x2");
  TORCH_CHECK(antiquant_group_size == 0, kMmAllReduce, ": antiquant_group_size applies to the quantised form only");
  std::vector<int64_t> out_sizes = x1.sizes().vec();
  out_sizes.back() = x2.size(1);
  if (x3.has_value())
    TORCH_CHECK(x3->device() == x1.device() && x3->scalar_type() == x1.scalar_type() && x3->sizes() == out_sizes,
                kMmAllReduce, ": x3 must be a ", x1.scalar_type(), " tensor on ", x1.device(),
                " of the output's shape ", at::IntArrayRef(out_sizes), ", got ", x3->scalar_type(), " ", x3->sizes(),
                " on ", x3->device());

  const int64_t k = x1.size(-1), n = x2.size(1);
  const int64_t m = c10::multiply_integers(x1.sizes().begin(), x1.sizes().end() - 1);  // k or n may be 0
  const at::Tensor a = rowMajor(x1).reshape({m, k});
  const at::Tensor b = rowMajor(x2);
  at::Tensor out = at::empty({m, n}, x1.options().memory_format(at::MemoryFormat::Contiguous));
  const at::Tensor addend = x3.has_value() ? rowMajor(*x3).reshape({m, n}) : at::Tensor();
  const HcclDataType dtype = torch_npu::distributed::movementDataType(x1.scalar_type());
  CommPipeline pipeline(kMmAllReduce, comm);
  for (const auto& tile : commTilesOf(m)) {
    at::Tensor rows = out.narrow(0, tile.first, tile.rows);
    const at::Tensor in = a.narrow(0, tile.first, tile.rows);
    if (bias.has_value())
      at::addmm_out(rows, *bias, in, b);
    else
      at::mm_out(rows, in, b);
    if (addend.defined()) rows.add_(addend.narrow(0, tile.first, tile.rows));
    void* p = hcclBufferPtr(rows);
    const uint64_t count = static_cast<uint64_t>(rows.numel());
    pipeline.communicate("HcclAllReduce",
                         [p, count, dtype](HcclComm c, aclrtStream s) {
                           return HcclAllReduce(p, p, count, dtype, HCCL_REDUCE_SUM, c, s);
                         },
                         {out});
  }
  pipeline.awaitCommunication();
  return out.view(out_sizes);
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_all_gather_base_mm(
    const at::Tensor& self, const at::Tensor& x2, c10::string_view hcom, int64_t world_size,
    const c10::optional<at::Tensor>& bias, int64_t gather_index, bool gather_output, int64_t comm_turn) {
  const NamedComm comm = commNamed(hcom, kAllGatherMm);
  checkShardedForm(kAllGatherMm, self, x2, world_size, comm, bias);
  checkMc2Options(kAllGatherMm, "sum", comm_turn);
  TORCH_CHECK(gather_index == 0, kAllGatherMm,
              ": gather_index must be 0 (gather the input, the only form torch_npu supports), got ", gather_index);

  const int64_t m = self.size(0), k = self.size(1), n = x2.size(1);
  const at::Tensor a = readableByHccl(self);  // sent as it is stored
  const at::Tensor b = rowMajor(x2);
  const auto options = self.options().memory_format(at::MemoryFormat::Contiguous);
  at::Tensor gathered = at::empty({world_size * m, k}, options);
  at::Tensor out = at::empty({world_size * m, n}, options);
  const HcclDataType dtype = torch_npu::distributed::movementDataType(self.scalar_type());
  CommPipeline pipeline(kAllGatherMm, comm);
  // The transfers read only the input: all are queued at once, tile by tile. Rows [first, first + rows) of
  // every rank's input land at their place in `gathered` through one HcclAlltoAllV in which each rank sends
  // the same rows to every rank.
  const std::vector<RowTile> tiles = commTilesOf(m);
  std::vector<size_t> arrived;
  for (const auto& tile : tiles) {
    auto send_counts = std::make_shared<std::vector<uint64_t>>(world_size, tile.rows * k);
    auto send_displs = std::make_shared<std::vector<uint64_t>>(world_size, tile.first * k);
    auto recv_displs = std::make_shared<std::vector<uint64_t>>(world_size);
    for (int64_t r = 0; r < world_size; ++r) (*recv_displs)[r] = (r * m + tile.first) * k;
    void* send = hcclBufferPtr(a);
    void* recv = hcclBufferPtr(gathered);
    arrived.push_back(pipeline.communicate("HcclAlltoAllV",
                                           [=](HcclComm c, aclrtStream s) {
                                             return HcclAlltoAllV(send, send_counts->data(), send_displs->data(), dtype,
                                                                  recv, send_counts->data(), recv_displs->data(), dtype,
                                                                  c, s);
                                           },
                                           {a, gathered}));
  }
  // This rank's rows need no transfer: their product overlaps the first tile's.
  if (m > 0) {
    at::Tensor own = out.narrow(0, comm.rank * m, m);
    at::mm_out(own, a, b);
  }
  // Then each tile's rows of the other ranks, as they arrive.
  for (size_t t = 0; t < tiles.size(); ++t) {
    pipeline.awaitCollective(arrived[t]);
    for (int64_t r = 0; r < world_size; ++r) {
      if (r == comm.rank) continue;
      const int64_t first = r * m + tiles[t].first;
      at::Tensor rows = out.narrow(0, first, tiles[t].rows);
      at::mm_out(rows, gathered.narrow(0, first, tiles[t].rows), b);
    }
  }
  pipeline.awaitCommunication();  // `gathered` is complete on the caller's stream too
  if (!gather_output) gathered = at::empty({0}, options);
  return std::make_tuple(out, gathered);
}

at::Tensor NPUCustomFunctions::npu_mm_reduce_scatter_base(const at::Tensor& self, const at::Tensor& x2,
                                                          c10::string_view hcom, int64_t world_size,
                                                          c10::string_view reduce_op,
                                                          const c10::optional<at::Tensor>& bias, int64_t comm_turn) {
  const NamedComm comm = commNamed(hcom, kMmReduceScatter);
  checkShardedForm(kMmReduceScatter, self, x2, world_size, comm, bias);
  checkMc2Options(kMmReduceScatter, reduce_op, comm_turn);
  TORCH_CHECK(self.size(0) % world_size == 0, kMmReduceScatter, ": m (", self.size(0),
              ") must be divisible by world_size (", world_size, ")");

  const int64_t block = self.size(0) / world_size, n = x2.size(1);
  const at::Tensor a = rowMajor(self);
  const at::Tensor b = rowMajor(x2);
  const auto options = self.options().memory_format(at::MemoryFormat::Contiguous);
  at::Tensor out = at::empty({block, n}, options);
  const HcclDataType dtype = torch_npu::distributed::movementDataType(self.scalar_type());
  CommPipeline pipeline(kMmReduceScatter, comm);
  for (const auto& tile : commTilesOf(block)) {
    // Rows [first, first + rows) of every rank's block, one after another: HcclReduceScatter gives
    // rank r the sum of every rank's part r, which is rows [first, first + rows) of its output.
    at::Tensor parts = at::empty({world_size * tile.rows, n}, options);
    for (int64_t r = 0; r < world_size; ++r) {
      at::Tensor part = parts.narrow(0, r * tile.rows, tile.rows);
      at::mm_out(part, a.narrow(0, r * block + tile.first, tile.rows), b);
    }
    void* send = hcclBufferPtr(parts);
    void* recv = hcclBufferPtr(out.narrow(0, tile.first, tile.rows));
    const uint64_t count = static_cast<uint64_t>(tile.rows * n);
    pipeline.communicate(
        "HcclReduceScatter",
        [=](HcclComm c, aclrtStream s) { return HcclReduceScatter(send, recv, count, dtype, HCCL_REDUCE_SUM, c, s); },
        {parts, out});
  }
  pipeline.awaitCommunication();
  return out;
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_mm_all_reduce_base", torch::autograd::autogradNotImplementedFallback());
  m.impl("npu_all_gather_base_mm", torch::autograd::autogradNotImplementedFallback());
  m.impl("npu_mm_reduce_scatter_base", torch::autograd::autogradNotImplementedFallback());
}

}  // namespace native
}  // namespace at_npu
