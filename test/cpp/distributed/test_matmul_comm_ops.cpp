// torch_npu's fused matmul-communication ops on a one-rank hccl group (the
// multi-rank runs are test/python/distributed/test_matmul_comm.py): results
// against the CPU composition, the pipeline of tile MatMuls and tile
// collectives on two streams, and the errors of bad calls.
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/torch.h>

#include "csrc/distributed/ProcessGroupHCCL.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Opt = c10::optional<at::Tensor>;
using MmAllReduce = at::Tensor(const at::Tensor&, const at::Tensor&, c10::string_view, c10::string_view, const Opt&,
                               const Opt&, const Opt&, const Opt&, const Opt&, const Opt&, const Opt&, const Opt&,
                               int64_t, int64_t);
using AllGatherMm = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, c10::string_view, int64_t,
                                                       const Opt&, int64_t, bool, int64_t);
using MmReduceScatter = at::Tensor(const at::Tensor&, const at::Tensor&, c10::string_view, int64_t, c10::string_view,
                                   const Opt&, int64_t);

const auto& mmAllReduce() {
  static const auto op = npuOp<MmAllReduce>("npu::npu_mm_all_reduce_base");
  return op;
}
const auto& allGatherMm() {
  static const auto op = npuOp<AllGatherMm>("npu::npu_all_gather_base_mm");
  return op;
}
const auto& mmReduceScatter() {
  static const auto op = npuOp<MmReduceScatter>("npu::npu_mm_reduce_scatter_base");
  return op;
}

class MatmulCommOps : public ::testing::Test {
 protected:
  void SetUp() override {
    group_ = c10::make_intrusive<torch_npu::distributed::ProcessGroupHCCL>(c10::make_intrusive<c10d::HashStore>(), 0, 1,
                                                                           std::chrono::seconds(60));
    hcom_ = group_->getHcclCommName(0);
  }
  void TearDown() override { group_.reset(); }

  at::Tensor allReduce(const at::Tensor& x1, const at::Tensor& x2, const Opt& bias = {}, const Opt& x3 = {},
                       const std::string& reduce_op = "sum", int64_t comm_turn = 0, const Opt& antiquant = {}) {
    return mmAllReduce().call(x1, x2, hcom_, reduce_op, bias, antiquant, {}, x3, {}, {}, {}, {}, comm_turn, 0);
  }

  c10::intrusive_ptr<torch_npu::distributed::ProcessGroupHCCL> group_;
  std::string hcom_;
};

at::Tensor randn(at::IntArrayRef sizes, at::ScalarType dtype) { return at::randn(sizes).div(4).to(dtype); }

// The product in fp32 on the CPU, rounded to the operands' dtype once.
at::Tensor cpuProduct(const at::Tensor& x1, const at::Tensor& x2, const Opt& bias = {}, const Opt& x3 = {}) {
  at::Tensor p = x1.to(at::kFloat).matmul(x2.to(at::kFloat));
  if (bias) p = p + bias->to(at::kFloat);
  if (x3) p = p + x3->to(at::kFloat);
  return p.to(x1.scalar_type());
}

TEST_F(MatmulCommOps, HcclCommNameIsStableAndNamesTheDevice) {
  EXPECT_EQ(group_->getHcclCommName(0), hcom_);
  EXPECT_NE(hcom_.find("npu0"), std::string::npos) << hcom_;
  EXPECT_THROW_WITH(group_->getHcclCommName(-1), "rank_id must be a rank");
}

TEST_F(MatmulCommOps, MmAllReduceMatchesTheProductForEachDtypeAndShape) {
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    const double tol = dtype == at::kHalf ? 2e-3 : 1e-2;
    for (std::vector<int64_t> shape : {std::vector<int64_t>{600, 64}, {3, 200, 64}, {17, 64}, {0, 64}}) {
      const at::Tensor x1 = randn(shape, dtype), x2 = randn({64, 48}, dtype), bias = randn({48}, dtype);
      std::vector<int64_t> out_shape = shape;
      out_shape.back() = 48;
      const at::Tensor x3 = randn(out_shape, dtype);
      const at::Tensor got = allReduce(x1.to(npu()), x2.to(npu()), bias.to(npu()), x3.to(npu()));
      ASSERT_EQ(got.sizes(), at::IntArrayRef(out_shape));
      expectClose(got.cpu(), cpuProduct(x1, x2, bias, x3), tol, tol);
      expectClose(allReduce(x1.to(npu()), x2.to(npu())).cpu(), cpuProduct(x1, x2), tol, tol);
    }
  }
}

TEST_F(MatmulCommOps, MmAllReduceRunsTileMatMulsAndTileAllReducesOnTwoStreams) {
  const at::Tensor x1 = randn({1024, 64}, at::kHalf).to(npu()), x2 = randn({64, 32}, at::kHalf).to(npu());
  allReduce(x1, x2);  // the communicator's first use outside the recording
  OpRecorder rec;
  allReduce(x1, x2);
  std::vector<torch_npu::sim::TaskRecord> matmuls, all_reduces;
  for (const auto& r : torch_npu::sim::taskRecords(0)) {
    if (r.op_type == "MatMul") matmuls.push_back(r);
    if (r.op_type == "HcclAllReduce") all_reduces.push_back(r);
  }
  // 1024 rows: 4 tiles of 256 (Note [Matmul-communication pipelines]).
  ASSERT_EQ(matmuls.size(), 4u) << rec.summary();
  ASSERT_EQ(all_reduces.size(), 4u) << rec.summary();
  EXPECT_NE(matmuls[0].stream_id, all_reduces[0].stream_id);
  for (size_t t = 0; t < 4; ++t) {
    // Tile t's all-reduce starts once tile t's MatMul has ended, not after the whole product.
    EXPECT_GE(all_reduces[t].start_us, matmuls[t].start_us + matmuls[t].duration_us) << t;
    if (t + 1 < 4) { EXPECT_LE(all_reduces[t].start_us, matmuls[t + 1].start_us) << t; }
  }
}

TEST_F(MatmulCommOps, AllGatherAndReduceScatterFormsOnOneRankAreTheProduct) {
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    const double tol = dtype == at::kHalf ? 2e-3 : 1e-2;
    const at::Tensor x1 = randn({96, 256}, dtype), x2 = randn({256, 40}, dtype);
    const auto [out, gathered] = allGatherMm().call(x1.to(npu()), x2.to(npu()), hcom_, 1, {}, 0, true, 0);
    expectClose(out.cpu(), cpuProduct(x1, x2), tol, tol);
    EXPECT_TRUE(at::equal(gathered.cpu(), x1));
    // An input stored FRACTAL_NZ is gathered by its values, not by its stored bytes.
    const auto [nz_out, nz_gathered] =
        allGatherMm().call(npuFormatCast(x1.to(npu()), 29), x2.to(npu()), hcom_, 1, {}, 0, true, 0);
    EXPECT_TRUE(at::equal(nz_gathered.cpu(), x1));
    expectClose(nz_out.cpu(), cpuProduct(x1, x2), tol, tol);
    const auto [out2, none] = allGatherMm().call(x1.to(npu()), x2.to(npu()), hcom_, 1, {}, 0, false, 0);
    EXPECT_TRUE(at::equal(out2.cpu(), out.cpu()));
    EXPECT_EQ(none.numel(), 0);
    const at::Tensor scattered = mmReduceScatter().call(x1.to(npu()), x2.to(npu()), hcom_, 1, "sum", {}, 0);
    expectClose(scattered.cpu(), cpuProduct(x1, x2), tol, tol);
  }
  const at::Tensor empty = at::empty({0, 256}, at::kHalf);
  const at::Tensor w = randn({256, 8}, at::kHalf);
  EXPECT_EQ(std::get<0>(allGatherMm().call(empty.to(npu()), w.to(npu()), hcom_, 1, {}, 0, true, 0)).sizes(),
            at::IntArrayRef({0, 8}));
  EXPECT_EQ(mmReduceScatter().call(empty.to(npu()), w.to(npu()), hcom_, 1, "sum", {}, 0).sizes(),
            at::IntArrayRef({0, 8}));
}

TEST_F(MatmulCommOps, BadCallsRaiseNamingWhatIsWrong) {
  const at::Tensor x1 = randn({32, 256}, at::kHalf).to(npu()), x2 = randn({256, 16}, at::kHalf).to(npu());
  EXPECT_THROW_WITH(mmAllReduce().call(x1, x2, "no_such_comm", "sum", {}, {}, {}, {}, {}, {}, {}, {}, 0, 0),
                    "npu_mm_all_reduce_base: hcom 'no_such_comm' names no live HCCL communicator");
  EXPECT_THROW_WITH(allReduce(x1.to(at::kFloat), x2.to(at::kFloat)), "x1 must be float16 or bfloat16");
  EXPECT_THROW_WITH(allReduce(x1, x2.to(at::kBFloat16)), "x2 must have x1's dtype");
  EXPECT_THROW_WITH(allReduce(x1, x2.t()), "x1's last dim (k = 256) must equal x2's first (16)");
  EXPECT_THROW_WITH(allReduce(x1.cpu(), x2), "expected an NPU x1");
  EXPECT_THROW_WITH(allReduce(x1, x2.cpu()), "x1 and x2 must be on one device");
  EXPECT_THROW_WITH(allReduce(x1.sum(), x2), "x1 must be 2-D [m, k] or 3-D [s, m, k], got []");
  EXPECT_THROW_WITH(allReduce(x1, x2, randn({16}, at::kFloat).to(npu())), "bias must be a Half tensor");
  EXPECT_EQ(allReduce(x1.narrow(1, 0, 0), x2.narrow(0, 0, 0)).sizes(), at::IntArrayRef({32, 16}));  // k = 0
  EXPECT_EQ(allReduce(x1, x2.narrow(1, 0, 0)).sizes(), at::IntArrayRef({32, 0}));                   // n = 0
  EXPECT_THROW_WITH(allReduce(x1, x2, {}, {}, "max"), "reduce_op must be 'sum'");
  EXPECT_THROW_WITH(allReduce(x1, x2, {}, {}, "sum", 2), "comm_turn must be 0");
  EXPECT_THROW_WITH(allReduce(x1, x2, randn({8}, at::kHalf).to(npu())), "bias must be 1-D of x2's n (16)");
  EXPECT_THROW_WITH(allReduce(x1, x2, {}, randn({32, 8}, at::kHalf).to(npu())), "x3 must be a Half tensor");
  EXPECT_THROW_WITH(allReduce(x1, x2, {}, {}, "sum", 0, randn({16}, at::kHalf).to(npu())), "the quantised forms");
  EXPECT_THROW_WITH(allGatherMm().call(x1, x2, hcom_, 2, {}, 0, true, 0),
                    "world_size is 2 but the communicator hcom has 1 ranks");
  EXPECT_THROW_WITH(allGatherMm().call(x1, x2, hcom_, 1, {}, 1, true, 0), "gather_index must be 0");
  EXPECT_THROW_WITH(allGatherMm().call(x1.narrow(1, 0, 128), x2.narrow(0, 0, 128), hcom_, 1, {}, 0, true, 0),
                    "k must be in [256, 65535)");
  EXPECT_THROW_WITH(mmReduceScatter().call(x1, x2, hcom_, 1, "sum", randn({16}, at::kHalf).to(npu()), 0),
                    "bias is not supported");
  EXPECT_THROW_WITH(mmReduceScatter().call(x1.unsqueeze(0), x2, hcom_, 1, "sum", {}, 0), "x1 must be 2-D [m, k], got");
  // The group's destruction forgets its name.
  const std::string name = hcom_;
  group_.reset();
  EXPECT_THROW_WITH(mmAllReduce().call(x1, x2, name, "sum", {}, {}, {}, {}, {}, {}, {}, {}, 0, 0),
                    "names no live HCCL communicator");
}

}  // namespace
