// Convolutions and pooling of a ResNet-18 training step: Conv2D,
// Conv2DBackpropInput and Conv2DBackpropFilter per layer shape (batch 2,
// 64x64 input, fp32 and fp16), and MaxPoolWithArgmaxV1 with its gradient.
// GFLOP/s counts 2 * N * Ho * Wo * Cout * Cin * Kh * Kw per launch.
//
// Run:  build/benchmarks/sim/ascend_sim_bench --benchmark_filter=Conv
#include "sim_bench.h"

namespace sim_bench {
namespace {

struct ConvShape {
  int64_t cin, hw, cout, k, stride, pad;
  int64_t out() const { return (hw + 2 * pad - k) / stride + 1; }
};

constexpr int64_t kBatch = 2;

aclopAttr* convAttr(const ConvShape& s) {
  aclopAttr* a = aclopCreateAttr();
  const int64_t strides[] = {s.stride, s.stride}, pads[] = {s.pad, s.pad, s.pad, s.pad}, dilations[] = {1, 1};
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "strides", 2, strides));
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "pads", 4, pads));
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "dilations", 2, dilations));
  SIM_BENCH_CHECK(aclopSetAttrInt(a, "groups", 1));
  return a;
}

void conv(benchmark::State& state, const std::string& op, aclDataType dt, ConvShape s) {
  const std::vector<int64_t> xs{kBatch, s.cin, s.hw, s.hw}, ws{s.cout, s.cin, s.k, s.k},
      ys{kBatch, s.cout, s.out(), s.out()};
  DeviceTensor x(dt, xs, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW), w(dt, ws, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW),
      y(dt, ys, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW);
  aclopAttr* attr = convAttr(s);
  if (op == "Conv2DBackpropInput") SIM_BENCH_CHECK(aclopSetAttrListInt(attr, "input_size", 4, xs.data()));
  if (op == "Conv2DBackpropFilter") SIM_BENCH_CHECK(aclopSetAttrListInt(attr, "filter_size", 4, ws.data()));
  const double flops = 2.0 * kBatch * s.out() * s.out() * s.cout * s.cin * s.k * s.k;
  if (op == "Conv2D")
    timeLaunches(state, [&] { launch("Conv2D", {&x, &w}, {&y}, attr); }, "GFLOP/s", flops);
  else if (op == "Conv2DBackpropInput")
    timeLaunches(state, [&] { launch("Conv2DBackpropInput", {&w, &y}, {&x}, attr); }, "GFLOP/s", flops);
  else
    timeLaunches(state, [&] { launch("Conv2DBackpropFilter", {&x, &y}, {&w}, attr); }, "GFLOP/s", flops);
  aclopDestroyAttr(attr);
}

void maxPool(benchmark::State& state, aclDataType dt) {
  const std::vector<int64_t> xs{kBatch, 64, 32, 32}, ys{kBatch, 64, 16, 16};
  DeviceTensor x(dt, xs, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW), y(dt, ys, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW),
      dy(dt, ys, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW), dx(dt, xs, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW),
      idx(ACL_INT64, ys, ACL_FORMAT_NCHW, ACL_FORMAT_NCHW);
  aclopAttr* a = aclopCreateAttr();
  const int64_t ksize[] = {3, 3}, strides[] = {2, 2}, pads[] = {1, 1, 1, 1};
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "ksize", 2, ksize));
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "strides", 2, strides));
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "pads", 4, pads));
  const int64_t dilations[] = {1, 1};
  SIM_BENCH_CHECK(aclopSetAttrListInt(a, "dilations", 2, dilations));
  SIM_BENCH_CHECK(aclopSetAttrBool(a, "ceil_mode", 0));
  timeLaunches(
      state,
      [&] {
        launch("MaxPoolWithArgmaxV1", {&x}, {&y, &idx}, a);
        launch("MaxPoolGradWithArgmaxV1", {&x, &dy, &idx}, {&dx}, a);
      },
      "GB/s", static_cast<double>(x.bytes() * 2 + y.bytes() * 2 + idx.bytes() * 2));
  aclopDestroyAttr(a);
}

const bool kRegistered = [] {
  const ConvShape shapes[] = {{3, 64, 64, 7, 2, 3},    {64, 16, 64, 3, 1, 1},  {64, 16, 128, 3, 2, 1},
                              {64, 16, 128, 1, 2, 0},  {128, 8, 128, 3, 1, 1}, {128, 8, 256, 3, 2, 1},
                              {256, 4, 256, 3, 1, 1},  {256, 4, 512, 3, 2, 1}, {512, 2, 512, 3, 1, 1}};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (const char* op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"})
      for (const ConvShape& s : shapes) {
        const std::string name = std::string("Conv/") + op + "/" + dtypeName(dt) + "/Cin" + std::to_string(s.cin) +
                                 "_HW" + std::to_string(s.hw) + "_Cout" + std::to_string(s.cout) + "_K" +
                                 std::to_string(s.k) + "_S" + std::to_string(s.stride);
        hostTimed(benchmark::RegisterBenchmark(name.c_str(), conv, std::string(op), dt, s), benchmark::kMillisecond,
                  0.1);
      }
    hostTimed(benchmark::RegisterBenchmark((std::string("Conv/MaxPoolFwdBwd/") + dtypeName(dt)).c_str(), maxPool, dt),
              benchmark::kMillisecond, 0.1);
  }
  return true;
}();

}  // namespace
}  // namespace sim_bench
