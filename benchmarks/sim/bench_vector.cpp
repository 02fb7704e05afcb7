// Vector unit: elementwise (Add, Mul, Relu) and reduction (ReduceSum) GB/s,
// fp32 and fp16, on 1K / 1M / 16M elements. Bytes per launch = every input
// and output read or written once (Add: 3n, Relu: 2n elements).
// ReduceSum reduces a [n/1024, 1024] tensor over the last axis ("last") or
// over both axes to a scalar ("all").
//
// Run:  build/benchmarks/sim/ascend_sim_bench --benchmark_filter=Vector
#include "sim_bench.h"

namespace sim_bench {
namespace {

constexpr int64_t kRow = 1024;  // ReduceSum's last axis

void elementwise(benchmark::State& state, aclDataType dt, std::string op, int64_t n) {
  DeviceTensor x1(dt, {n}), x2(dt, {n}), y(dt, {n});
  const bool unary = op == "Relu";
  std::vector<const DeviceTensor*> ins = {&x1};
  if (!unary) ins.push_back(&x2);
  timeLaunches(state, [&] { launch(op.c_str(), ins, {&y}); }, "GB/s",
               static_cast<double>((ins.size() + 1) * n * dtypeSize(dt)));
}

void reduceSum(benchmark::State& state, aclDataType dt, bool all_axes, int64_t n) {
  DeviceTensor x(dt, {n / kRow, kRow});
  DeviceTensor y(dt, all_axes ? std::vector<int64_t>{} : std::vector<int64_t>{n / kRow});
  const std::vector<int64_t> axes = all_axes ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{-1};
  aclopAttr* attr = aclopCreateAttr();
  SIM_BENCH_CHECK(aclopSetAttrListInt(attr, "axes", static_cast<int>(axes.size()), axes.data()));
  SIM_BENCH_CHECK(aclopSetAttrBool(attr, "keep_dims", 0));
  timeLaunches(state, [&] { launch("ReduceSum", {&x}, {&y}, attr); }, "GB/s",
               static_cast<double>(x.bytes() + y.bytes()));
  aclopDestroyAttr(attr);
}

std::string sizeName(int64_t n) {
  return n >= (1 << 20) ? std::to_string(n >> 20) + "M" : std::to_string(n >> 10) + "K";
}

const bool kRegistered = [] {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (int64_t n : {int64_t{1} << 10, int64_t{1} << 20, int64_t{1} << 24}) {
      const std::string suffix = std::string("/") + dtypeName(dt) + "/" + sizeName(n);
      for (const char* op : {"Add", "Mul", "Relu"})
        hostTimed(benchmark::RegisterBenchmark(("Vector/" + std::string(op) + suffix).c_str(), elementwise, dt,
                                               std::string(op), n),
                  benchmark::kMicrosecond, 0.1);
      for (bool all_axes : {false, true})
        hostTimed(benchmark::RegisterBenchmark(
                      ("Vector/ReduceSum/" + std::string(all_axes ? "all" : "last") + suffix).c_str(), reduceSum, dt,
                      all_axes, n),
                  benchmark::kMicrosecond, 0.1);
    }
  return true;
}();

}  // namespace
}  // namespace sim_bench
