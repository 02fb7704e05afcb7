// Batch normalization kernels (OPS.md "Batch normalization"): results vs
// double-precision references, fp16 within one rounding, NC1HWC0 activations
// and NC1HWC0-lifted [C] parameters bit-identical to NCHW/ND, running-stat
// aliasing (direct and through aclopExecuteV2), thread-count independence,
// costs and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel_test_util.h"
#include "sim_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

// A host tensor of logical shape `logical` in format f (NCHW/ND: row-major).
struct FTensor {
  TensorArg arg;
  std::vector<uint8_t> buf;
  FTensor() = default;
  // Copies re-point arg.data at their own buffer.
  FTensor(const FTensor& o) : arg(o.arg), buf(o.buf) { arg.data = buf.data(); }
  FTensor(FTensor&& o) noexcept : arg(std::move(o.arg)), buf(std::move(o.buf)) { arg.data = buf.data(); }
  FTensor& operator=(FTensor o) {
    arg = std::move(o.arg);
    buf = std::move(o.buf);
    arg.data = buf.data();
    return *this;
  }
  FTensor(aclFormat f, aclDataType dt, const Shape& logical, uint8_t fill = 0xCD) {
    Shape storage;
    std::string err;
    EXPECT_TRUE(formatStorageShape(f, dt, logical, &storage, &err)) << err;
    buf.assign(static_cast<size_t>(numelOf(storage)) * dtypeSize(dt) + 1, fill);
    buf.back() = 0;  // the guard byte past the data: equal in every tensor, so buffers compare
    arg.dtype = dt;
    arg.format = f;
    arg.shape = storage;
    arg.origin_format = f == ACL_FORMAT_ND ? ACL_FORMAT_ND : ACL_FORMAT_NCHW;
    arg.origin_shape = logical;
    arg.data = buf.data();
    arg.bytes = buf.size() - 1;
  }
  static FTensor values(aclFormat base, aclDataType dt, const Shape& logical, const std::vector<float>& v) {
    FTensor t(base, dt, logical);
    storeFloat(dt, t.arg.data, 0, static_cast<int64_t>(v.size()), v.data());
    return t;
  }
  std::vector<float> floats() const {  // base formats only
    std::vector<float> v(static_cast<size_t>(numelOf(arg.shape)));
    loadFloat(arg.dtype, arg.data, 0, 1, numelOf(arg.shape), v.data());
    return v;
  }
};

FTensor transTo(const FTensor& src, aclFormat to) {
  FTensor dst(to, src.arg.dtype, src.arg.origin_shape, 0x7F);
  OpCall c;
  c.op_type = "TransData";
  c.inputs.push_back(src.arg);
  c.outputs.push_back(dst.arg);
  run(c);
  return dst;
}

OpCall bnCall(const std::string& op, const std::vector<const FTensor*>& ins, const std::vector<const FTensor*>& outs,
              AttrMap a = {}) {
  OpCall c;
  c.op_type = op;
  for (auto* t : ins) c.inputs.push_back(t->arg);
  for (auto* t : outs) c.outputs.push_back(t->arg);
  c.attrs = std::move(a);
  return c;
}

// ---- double references -------------------------------------------------------------------

struct Dims {
  int64_t n, c, h, w;
  int64_t m() const { return n * h * w; }
  int64_t at(int64_t i, int64_t ch, int64_t k) const { return (i * c + ch) * h * w + k; }
};

void refStats(const std::vector<float>& x, const Dims& d, std::vector<double>* sum, std::vector<double>* sq) {
  sum->assign(d.c, 0.0);
  sq->assign(d.c, 0.0);
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t ch = 0; ch < d.c; ++ch)
      for (int64_t k = 0; k < d.h * d.w; ++k) {
        const double v = x[d.at(i, ch, k)];
        (*sum)[ch] += v;
        (*sq)[ch] += v * v;
      }
}

void expectNear(const std::vector<float>& got, const std::vector<double>& want, double rel, double abs_tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], abs_tol + rel * std::fabs(want[i])) << what << " element " << i;
}

// |got - want| within one fp16 rounding (plus fp32 slack) of want.
void expectHalfNear(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double a = std::fabs(want[i]);
    const double ulp = a < 6.103515625e-05 ? 5.960464477539063e-08 : std::ldexp(1.0, std::ilogb(a) - 10);
    ASSERT_LE(std::fabs(got[i] - want[i]), ulp + 1e-5 * a + 1e-6) << what << " element " << i << " want " << want[i];
  }
}

const Dims kDims{3, 19, 5, 7};  // C = 19: two C1 blocks, the second mostly padding

std::vector<float> xValues(const Dims& d, uint32_t seed) {
  std::vector<float> v = randomFloats(static_cast<size_t>(d.n * d.c * d.h * d.w), -2.0f, 3.0f, seed);
  for (int64_t i = 0; i < d.n; ++i)  // per-channel offsets so the means differ
    for (int64_t ch = 0; ch < d.c; ++ch)
      for (int64_t k = 0; k < d.h * d.w; ++k) v[d.at(i, ch, k)] += 0.25f * static_cast<float>(ch);
  return v;
}

std::vector<float> paramValues(int64_t c, float lo, float hi, uint32_t seed) {
  return randomFloats(static_cast<size_t>(c), lo, hi, seed);
}

Shape nchw(const Dims& d) { return {d.n, d.c, d.h, d.w}; }

// ---- BNTrainingReduce ----------------------------------------------------------------------

TEST(KernelBN, ReduceMatchesDoubleAndReduceSum) {
  const Dims d = kDims;
  const std::vector<float> xv = xValues(d, 1);
  FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d), xv);
  FTensor sum(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), sq(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  run(bnCall("BNTrainingReduce", {&x}, {&sum, &sq}));
  std::vector<double> rs, rq;
  refStats(xv, d, &rs, &rq);
  expectNear(sum.floats(), rs, 1e-5, 1e-4, "sum");
  expectNear(sq.floats(), rq, 1e-5, 1e-4, "square_sum");
  // The reduction rule: bit-identical to ReduceSum over axes {0, 2, 3}.
  FTensor rsum(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  OpCall c = bnCall("ReduceSum", {&x}, {&rsum}, attrs({{"axes", std::vector<int64_t>{0, 2, 3}}, {"keep_dims", false}}));
  run(c);
  EXPECT_EQ(std::memcmp(rsum.arg.data, sum.arg.data, static_cast<size_t>(d.c) * 4), 0);
}

TEST(KernelBN, ReduceFp16AccumulatesInFp32) {
  const Dims d{4, 5, 16, 16};  // M = 1024: many 128-element blocks
  std::vector<float> xv = xValues(d, 2);
  FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT16, nchw(d), xv);
  xv = x.floats();  // the fp16 values
  FTensor sum(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), sq(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  run(bnCall("BNTrainingReduce", {&x}, {&sum, &sq}));
  std::vector<double> rs, rq;
  refStats(xv, d, &rs, &rq);
  expectNear(sum.floats(), rs, 1e-5, 1e-3, "sum");
  expectNear(sq.floats(), rq, 1e-5, 1e-3, "square_sum");
}

// ---- BNTrainingUpdate ----------------------------------------------------------------------

struct UpdateRef {
  std::vector<double> y, rmean, rvar, mean, invstd;
};

UpdateRef refUpdate(const std::vector<float>& x, const Dims& d, const std::vector<float>& scale,
                    const std::vector<float>& offset, const std::vector<float>& rm, const std::vector<float>& rv,
                    double eps, double factor) {
  std::vector<double> s, q;
  refStats(x, d, &s, &q);
  UpdateRef r;
  r.y.resize(x.size());
  const double m = static_cast<double>(d.m());
  for (int64_t ch = 0; ch < d.c; ++ch) {
    const double mean = s[ch] / m, var = q[ch] / m - mean * mean;
    const double is = 1.0 / std::sqrt(var + eps);
    r.mean.push_back(mean);
    r.invstd.push_back(is);
    r.rmean.push_back((1 - factor) * rm[ch] + factor * mean);
    r.rvar.push_back((1 - factor) * rv[ch] + factor * var * m / (m - 1));
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t k = 0; k < d.h * d.w; ++k)
        r.y[d.at(i, ch, k)] = (x[d.at(i, ch, k)] - mean) * is * scale[ch] + offset[ch];
  }
  return r;
}

struct UpdateCase {
  Dims d;
  std::vector<float> xv, scale, offset, rm, rv, sum, sq;
  explicit UpdateCase(const Dims& dd, aclDataType dt = ACL_FLOAT) : d(dd) {
    xv = xValues(d, 3);
    FTensor x = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), xv);
    xv = x.floats();
    scale = paramValues(d.c, 0.5f, 1.5f, 4);
    offset = paramValues(d.c, -1.0f, 1.0f, 5);
    rm = paramValues(d.c, -0.5f, 0.5f, 6);
    rv = paramValues(d.c, 0.5f, 2.0f, 7);
    FTensor s(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), q(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingReduce", {&x}, {&s, &q}));
    sum = s.floats();
    sq = q.floats();
  }
};

AttrMap updAttrs() { return attrs({{"epsilon", 1e-5f}, {"factor", 0.1f}}); }

TEST(KernelBN, UpdateMatchesDouble) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    const UpdateCase k(kDims, dt);
    const Dims& d = k.d;
    FTensor x = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), k.xv);
    auto p = [&](const std::vector<float>& v) { return FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v); };
    FTensor sum = p(k.sum), sq = p(k.sq), scale = p(k.scale), offset = p(k.offset), rm = p(k.rm), rv = p(k.rv);
    FTensor y(ACL_FORMAT_NCHW, dt, nchw(d));
    FTensor rmo(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), rvo(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
    FTensor sm(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), si(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingUpdate", {&x, &sum, &sq, &scale, &offset, &rm, &rv}, {&y, &rmo, &rvo, &sm, &si},
               updAttrs()));
    const UpdateRef r = refUpdate(k.xv, d, k.scale, k.offset, k.rm, k.rv, 1e-5, 0.1);
    expectNear(sm.floats(), r.mean, 1e-5, 1e-6, "save_mean");
    expectNear(si.floats(), r.invstd, 1e-4, 1e-6, "save_invstd");
    expectNear(rmo.floats(), r.rmean, 1e-5, 1e-6, "running_mean");
    expectNear(rvo.floats(), r.rvar, 1e-4, 1e-6, "running_var");
    if (dt == ACL_FLOAT)
      expectNear(y.floats(), r.y, 1e-4, 1e-5, "y");
    else
      expectHalfNear(y.floats(), r.y, "y");
  }
}

// Runs BNTrainingUpdate with x/y in fx and the [C] tensors in fp; returns the
// outputs converted back to NCHW / ND (as raw bytes) after checking pads.
std::vector<std::vector<uint8_t>> runUpdateIn(const UpdateCase& k, aclFormat fx, aclFormat fp) {
  const Dims& d = k.d;
  FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d), k.xv);
  if (fx != ACL_FORMAT_NCHW) x = transTo(x, fx);
  auto p = [&](const std::vector<float>& v) {
    FTensor t = FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v);
    return fp == ACL_FORMAT_ND ? t : transTo(t, fp);
  };
  FTensor sum = p(k.sum), sq = p(k.sq), scale = p(k.scale), offset = p(k.offset), rm = p(k.rm), rv = p(k.rv);
  FTensor y(fx, ACL_FLOAT, nchw(d));
  std::vector<FTensor> outs;
  for (int i = 0; i < 4; ++i) outs.emplace_back(fp, ACL_FLOAT, Shape{d.c});
  run(bnCall("BNTrainingUpdate", {&x, &sum, &sq, &scale, &offset, &rm, &rv},
             {&y, &outs[0], &outs[1], &outs[2], &outs[3]}, updAttrs()));
  std::vector<std::vector<uint8_t>> res;
  auto back = [&](const FTensor& t, aclFormat base) {
    if (t.arg.format != base) {
      // pads of private outputs must be zero
      const StorageMap m = [&] {
        StorageMap mm;
        std::string err;
        EXPECT_TRUE(makeStorageMap(t.arg.format, t.arg.dtype, t.arg.origin_shape, &mm, &err));
        return mm;
      }();
      std::vector<uint8_t> copy = t.buf;
      TensorArg a = t.arg;
      a.data = copy.data();
      zeroPads(a, m);
      EXPECT_EQ(copy, t.buf) << "pads of an NC1HWC0 output are not zero";
      FTensor b = transTo(t, base);
      res.emplace_back(b.buf);
    } else {
      res.emplace_back(t.buf);
    }
  };
  back(y, ACL_FORMAT_NCHW);
  for (auto& o : outs) back(o, ACL_FORMAT_ND);
  return res;
}

TEST(KernelBN, UpdateNC1HWC0BitIdenticalToNCHW) {
  forEachHostIsa([](HostIsa) {  // the block moves of every SIMD level (Note [Batch norm by channel groups])
    const UpdateCase k(kDims);
    const auto ref = runUpdateIn(k, ACL_FORMAT_NCHW, ACL_FORMAT_ND);
    for (aclFormat fx : {ACL_FORMAT_NCHW, ACL_FORMAT_NC1HWC0})
      for (aclFormat fp : {ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0}) {
        SCOPED_TRACE(std::to_string(fx) + "/" + std::to_string(fp));
        const auto got = runUpdateIn(k, fx, fp);
        ASSERT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], ref[i]) << "output " << i;
      }
  });
}

TEST(KernelBN, ReduceNC1HWC0BitIdenticalToNCHW) {
  forEachHostIsa([](HostIsa) {  // the block moves of every SIMD level (Note [Batch norm by channel groups])
    const Dims d = kDims;
    FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT16, nchw(d), xValues(d, 9));
    FTensor x5 = transTo(x, ACL_FORMAT_NC1HWC0);
    FTensor s1(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), q1(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
    FTensor s2(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {d.c}), q2(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingReduce", {&x}, {&s1, &q1}));
    run(bnCall("BNTrainingReduce", {&x5}, {&s2, &q2}));
    EXPECT_EQ(transTo(s2, ACL_FORMAT_ND).buf, s1.buf);
    EXPECT_EQ(transTo(q2, ACL_FORMAT_ND).buf, q1.buf);
  });
}

TEST(KernelBN, UpdateRunningStatsMayAliasInputs) {
  const UpdateCase k(kDims);
  const Dims& d = k.d;
  FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d), k.xv);
  auto p = [&](const std::vector<float>& v) { return FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v); };
  FTensor sum = p(k.sum), sq = p(k.sq), scale = p(k.scale), offset = p(k.offset);
  // Separate buffers (reference).
  FTensor rm = p(k.rm), rv = p(k.rv), y(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d));
  FTensor rmo(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), rvo(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  FTensor sm(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), si(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  run(bnCall("BNTrainingUpdate", {&x, &sum, &sq, &scale, &offset, &rm, &rv}, {&y, &rmo, &rvo, &sm, &si},
             updAttrs()));
  // In place: running_mean_out / running_var_out share the inputs' buffers,
  // and (NC1HWC0 params) too.
  for (aclFormat fp : {ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0}) {
    auto q = [&](const std::vector<float>& v) {
      FTensor t = p(v);
      return fp == ACL_FORMAT_ND ? t : transTo(t, fp);
    };
    FTensor sum2 = q(k.sum), sq2 = q(k.sq), scale2 = q(k.scale), offset2 = q(k.offset);
    FTensor rm2 = q(k.rm), rv2 = q(k.rv), y2(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d));
    FTensor sm2(fp, ACL_FLOAT, {d.c}), si2(fp, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingUpdate", {&x, &sum2, &sq2, &scale2, &offset2, &rm2, &rv2}, {&y2, &rm2, &rv2, &sm2, &si2},
               updAttrs()));
    const FTensor rm_nd = fp == ACL_FORMAT_ND ? rm2 : transTo(rm2, ACL_FORMAT_ND);
    const FTensor rv_nd = fp == ACL_FORMAT_ND ? rv2 : transTo(rv2, ACL_FORMAT_ND);
    EXPECT_EQ(rm_nd.buf, rmo.buf);
    EXPECT_EQ(rv_nd.buf, rvo.buf);
    EXPECT_EQ(y2.buf, y.buf);
  }
  // In-place y (y aliases x) gives the same y.
  FTensor xi = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d), k.xv);
  FTensor rm3 = p(k.rm), rv3 = p(k.rv);
  run(bnCall("BNTrainingUpdate", {&xi, &sum, &sq, &scale, &offset, &rm3, &rv3}, {&xi, &rm3, &rv3, &sm, &si},
             updAttrs()));
  EXPECT_EQ(xi.buf, y.buf);
}

TEST(KernelBN, UpdateAliasThroughRuntime) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  const UpdateCase k(Dims{2, 3, 4, 4});
  const Dims& d = k.d;
  DevTensor x(ACL_FLOAT, nchw(d)), sum(ACL_FLOAT, {d.c}), sq(ACL_FLOAT, {d.c}), scale(ACL_FLOAT, {d.c}),
      offset(ACL_FLOAT, {d.c}), rm(ACL_FLOAT, {d.c}), rv(ACL_FLOAT, {d.c}), y(ACL_FLOAT, nchw(d)),
      sm(ACL_FLOAT, {d.c}), si(ACL_FLOAT, {d.c});
  x.setFloats(k.xv);
  sum.setFloats(k.sum);
  sq.setFloats(k.sq);
  scale.setFloats(k.scale);
  offset.setFloats(k.offset);
  rm.setFloats(k.rm);
  rv.setFloats(k.rv);
  aclopAttr* a = aclopCreateAttr();
  ASSERT_ACL_OK(aclopSetAttrFloat(a, "epsilon", 1e-5f));
  ASSERT_ACL_OK(aclopSetAttrFloat(a, "factor", 0.1f));
  ASSERT_ACL_OK(launchOp("BNTrainingUpdate", {&x, &sum, &sq, &scale, &offset, &rm, &rv}, {&y, &rm, &rv, &sm, &si}, a));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  aclopDestroyAttr(a);
  const UpdateRef r = refUpdate(k.xv, d, k.scale, k.offset, k.rm, k.rv, 1e-5, 0.1);
  expectNear(rm.floats(), r.rmean, 1e-5, 1e-6, "running_mean (aliased)");
  expectNear(rv.floats(), r.rvar, 1e-4, 1e-6, "running_var (aliased)");
  expectNear(y.floats(), r.y, 1e-4, 1e-5, "y");
}

// ---- BNInfer -------------------------------------------------------------------------------

TEST(KernelBN, InferMatchesDoubleAndFormats) {
  const Dims d = kDims;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    FTensor x = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), xValues(d, 11));
    const std::vector<float> xv = x.floats();
    const auto sc = paramValues(d.c, 0.5f, 1.5f, 12), of = paramValues(d.c, -1, 1, 13),
               mu = paramValues(d.c, -1, 2, 14), var = paramValues(d.c, 0.2f, 3, 15);
    auto p = [&](const std::vector<float>& v) { return FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v); };
    FTensor scale = p(sc), offset = p(of), mean = p(mu), variance = p(var), y(ACL_FORMAT_NCHW, dt, nchw(d));
    run(bnCall("BNInfer", {&x, &scale, &offset, &mean, &variance}, {&y}, attrs({{"epsilon", 1e-3f}})));
    std::vector<double> want(xv.size());
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t ch = 0; ch < d.c; ++ch)
        for (int64_t q = 0; q < d.h * d.w; ++q)
          want[d.at(i, ch, q)] = (xv[d.at(i, ch, q)] - mu[ch]) / std::sqrt(var[ch] + 1e-3) * sc[ch] + of[ch];
    if (dt == ACL_FLOAT)
      expectNear(y.floats(), want, 1e-5, 1e-5, "y");
    else
      expectHalfNear(y.floats(), want, "y");
    // NC1HWC0 x/y and params: same bits.
    FTensor x5 = transTo(x, ACL_FORMAT_NC1HWC0), y5(ACL_FORMAT_NC1HWC0, dt, nchw(d));
    FTensor s5 = transTo(scale, ACL_FORMAT_NC1HWC0), o5 = transTo(offset, ACL_FORMAT_NC1HWC0),
            m5 = transTo(mean, ACL_FORMAT_NC1HWC0), v5 = transTo(variance, ACL_FORMAT_NC1HWC0);
    run(bnCall("BNInfer", {&x5, &s5, &o5, &m5, &v5}, {&y5}, attrs({{"epsilon", 1e-3f}})));
    EXPECT_EQ(transTo(y5, ACL_FORMAT_NCHW).buf, y.buf);
  }
}

// ---- backward ------------------------------------------------------------------------------

struct GradRef {
  std::vector<double> dscale, doffset, dx;
};

// Analytic batch-norm backward (training mode) in double.
GradRef refGrad(const std::vector<float>& dy, const std::vector<float>& x, const Dims& d,
                const std::vector<float>& mean, const std::vector<float>& invstd, const std::vector<float>& scale) {
  GradRef r;
  r.dx.resize(x.size());
  const double m = static_cast<double>(d.m());
  for (int64_t ch = 0; ch < d.c; ++ch) {
    double sdy = 0, sdyx = 0;
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t q = 0; q < d.h * d.w; ++q) {
        sdy += dy[d.at(i, ch, q)];
        sdyx += dy[d.at(i, ch, q)] * (x[d.at(i, ch, q)] - static_cast<double>(mean[ch]));
      }
    const double is = invstd[ch];
    r.doffset.push_back(sdy);
    r.dscale.push_back(sdyx * is);
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t q = 0; q < d.h * d.w; ++q) {
        const int64_t j = d.at(i, ch, q);
        const double xhat = (x[j] - static_cast<double>(mean[ch])) * is;
        r.dx[j] = scale[ch] * is * (dy[j] - sdy / m - xhat * (sdyx * is) / m);
      }
  }
  return r;
}

TEST(KernelBN, BackwardMatchesAnalyticReference) {
  const Dims d = kDims;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    SCOPED_TRACE(dtypeName(dt));
    FTensor x = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), xValues(d, 21));
    FTensor dy = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d),
                                 randomFloats(static_cast<size_t>(numelOf(nchw(d))), -1, 1, 22));
    const std::vector<float> xv = x.floats(), dyv = dy.floats();
    // save_mean / save_invstd from the forward pass.
    std::vector<double> s, q;
    refStats(xv, d, &s, &q);
    std::vector<float> mu, is;
    for (int64_t ch = 0; ch < d.c; ++ch) {
      const double m = s[ch] / d.m();
      mu.push_back(static_cast<float>(m));
      is.push_back(static_cast<float>(1.0 / std::sqrt(q[ch] / d.m() - m * m + 1e-5)));
    }
    const auto sc = paramValues(d.c, 0.5f, 1.5f, 23);
    auto p = [&](const std::vector<float>& v) { return FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v); };
    FTensor mean = p(mu), invstd = p(is), scale = p(sc);
    FTensor dscale(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), doffset(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingUpdateGrad", {&dy, &x, &mean, &invstd}, {&dscale, &doffset}));
    const GradRef r = refGrad(dyv, xv, d, mu, is, sc);
    expectNear(dscale.floats(), r.dscale, 1e-4, 1e-4, "diff_scale");
    expectNear(doffset.floats(), r.doffset, 1e-4, 1e-4, "diff_offset");
    FTensor dx(ACL_FORMAT_NCHW, dt, nchw(d));
    run(bnCall("BNTrainingReduceGrad", {&dy, &x, &dscale, &doffset, &scale, &mean, &invstd}, {&dx}));
    if (dt == ACL_FLOAT)
      expectNear(dx.floats(), r.dx, 1e-4, 2e-5, "dx");
    else
      expectHalfNear(dx.floats(), r.dx, "dx");
    // Mixed layouts: dy NC1HWC0, x NCHW, dx NC1HWC0, params NC1HWC0 -> same bits.
    FTensor dy5 = transTo(dy, ACL_FORMAT_NC1HWC0), dx5(ACL_FORMAT_NC1HWC0, dt, nchw(d));
    FTensor m5 = transTo(mean, ACL_FORMAT_NC1HWC0), i5 = transTo(invstd, ACL_FORMAT_NC1HWC0),
            s5 = transTo(scale, ACL_FORMAT_NC1HWC0);
    FTensor ds5(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {d.c}), do5(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {d.c});
    run(bnCall("BNTrainingUpdateGrad", {&dy5, &x, &m5, &i5}, {&ds5, &do5}));
    EXPECT_EQ(transTo(ds5, ACL_FORMAT_ND).buf, dscale.buf);
    EXPECT_EQ(transTo(do5, ACL_FORMAT_ND).buf, doffset.buf);
    run(bnCall("BNTrainingReduceGrad", {&dy5, &x, &ds5, &do5, &s5, &m5, &i5}, {&dx5}));
    EXPECT_EQ(transTo(dx5, ACL_FORMAT_NCHW).buf, dx.buf);
  }
}

// Note [Batch norm on C0 lanes]: with every activation operand in NC1HWC0 (input pads poisoned
// with NaN), all five kernels give the bits of the NCHW run, in fp32 and fp16, for a partial last
// C1 block and for more rows than a pairwise block; output pads are zero.
FTensor poisoned5hd(const FTensor& nchw_tensor) {
  FTensor t = transTo(nchw_tensor, ACL_FORMAT_NC1HWC0);
  StorageMap m;
  std::string err;
  EXPECT_TRUE(makeStorageMap(t.arg.format, t.arg.dtype, t.arg.origin_shape, &m, &err)) << err;
  const std::vector<uint8_t> used = logicalMask(m);
  const size_t sz = dtypeSize(t.arg.dtype);
  for (size_t e = 0; e < used.size(); ++e)
    if (!used[e]) std::memset(t.buf.data() + e * sz, 0xFF, sz);
  return t;
}

std::vector<uint8_t> backToNchw(const FTensor& t) {
  StorageMap m;
  std::string err;
  EXPECT_TRUE(makeStorageMap(t.arg.format, t.arg.dtype, t.arg.origin_shape, &m, &err)) << err;
  std::vector<uint8_t> copy = t.buf;
  TensorArg a = t.arg;
  a.data = copy.data();
  zeroPads(a, m);
  EXPECT_EQ(copy, t.buf) << "pads of an NC1HWC0 output are not zero";
  return transTo(t, ACL_FORMAT_NCHW).buf;
}

TEST(KernelBN, EveryKernelOnC0LanesBitIdenticalToNchw) {
  for (const Dims& d : {kDims, Dims{2, 40, 9, 9}})
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(dtypeName(dt) + std::string(" C=") + std::to_string(d.c));
      const int64_t numel = numelOf(nchw(d));
      FTensor x = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), xValues(d, 41));
      FTensor dy = FTensor::values(ACL_FORMAT_NCHW, dt, nchw(d), randomFloats(static_cast<size_t>(numel), -1, 1, 42));
      FTensor x5 = poisoned5hd(x), dy5 = poisoned5hd(dy);
      auto p = [&](const std::vector<float>& v) { return FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.c}, v); };
      auto c = [&]() { return FTensor(ACL_FORMAT_ND, ACL_FLOAT, {d.c}); };
      // BNTrainingReduce
      FTensor s = c(), q = c(), s5 = c(), q5 = c();
      run(bnCall("BNTrainingReduce", {&x}, {&s, &q}));
      run(bnCall("BNTrainingReduce", {&x5}, {&s5, &q5}));
      EXPECT_EQ(s5.buf, s.buf);
      EXPECT_EQ(q5.buf, q.buf);
      // BNTrainingUpdate
      FTensor scale = p(paramValues(d.c, 0.5f, 1.5f, 43)), offset = p(paramValues(d.c, -1, 1, 44));
      FTensor rm = p(paramValues(d.c, -0.5f, 0.5f, 45)), rv = p(paramValues(d.c, 0.5f, 2, 46));
      FTensor y(ACL_FORMAT_NCHW, dt, nchw(d)), y5(ACL_FORMAT_NC1HWC0, dt, nchw(d));
      FTensor rmo = c(), rvo = c(), sm = c(), si = c(), rmo5 = c(), rvo5 = c(), sm5 = c(), si5 = c();
      run(bnCall("BNTrainingUpdate", {&x, &s, &q, &scale, &offset, &rm, &rv}, {&y, &rmo, &rvo, &sm, &si},
                 updAttrs()));
      run(bnCall("BNTrainingUpdate", {&x5, &s, &q, &scale, &offset, &rm, &rv}, {&y5, &rmo5, &rvo5, &sm5, &si5},
                 updAttrs()));
      EXPECT_EQ(backToNchw(y5), y.buf);
      EXPECT_EQ(sm5.buf, sm.buf);
      // BNInfer
      FTensor yi(ACL_FORMAT_NCHW, dt, nchw(d)), yi5(ACL_FORMAT_NC1HWC0, dt, nchw(d));
      run(bnCall("BNInfer", {&x, &scale, &offset, &rm, &rv}, {&yi}, attrs({{"epsilon", 1e-3f}})));
      run(bnCall("BNInfer", {&x5, &scale, &offset, &rm, &rv}, {&yi5}, attrs({{"epsilon", 1e-3f}})));
      EXPECT_EQ(backToNchw(yi5), yi.buf);
      // BNTrainingUpdateGrad
      FTensor ds = c(), dof = c(), ds5 = c(), dof5 = c();
      run(bnCall("BNTrainingUpdateGrad", {&dy, &x, &sm, &si}, {&ds, &dof}));
      run(bnCall("BNTrainingUpdateGrad", {&dy5, &x5, &sm, &si}, {&ds5, &dof5}));
      EXPECT_EQ(ds5.buf, ds.buf);
      EXPECT_EQ(dof5.buf, dof.buf);
      // BNTrainingReduceGrad
      FTensor dx(ACL_FORMAT_NCHW, dt, nchw(d)), dx5(ACL_FORMAT_NC1HWC0, dt, nchw(d));
      run(bnCall("BNTrainingReduceGrad", {&dy, &x, &ds, &dof, &scale, &sm, &si}, {&dx}));
      run(bnCall("BNTrainingReduceGrad", {&dy5, &x5, &ds, &dof, &scale, &sm, &si}, {&dx5}));
      EXPECT_EQ(backToNchw(dx5), dx.buf);
    }
}

TEST(KernelBN, RankTwoInputAndThreadCountIndependence) {
  // [N, C] (BatchNorm1d) is read as [N, C, 1, 1].
  const Dims d{37, 6, 1, 1};
  const std::vector<float> xv = xValues(d, 31);
  FTensor x2 = FTensor::values(ACL_FORMAT_ND, ACL_FLOAT, {d.n, d.c}, xv);
  FTensor s(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), q(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  run(bnCall("BNTrainingReduce", {&x2}, {&s, &q}));
  std::vector<double> rs, rq;
  refStats(xv, d, &rs, &rq);
  expectNear(s.floats(), rs, 1e-5, 1e-4, "sum");
  // Bits do not depend on the host thread count.
  const Dims big{8, 40, 9, 9};
  FTensor x = FTensor::values(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(big), xValues(big, 32));
  FTensor a1(ACL_FORMAT_ND, ACL_FLOAT, {big.c}), b1(ACL_FORMAT_ND, ACL_FLOAT, {big.c});
  FTensor a2(ACL_FORMAT_ND, ACL_FLOAT, {big.c}), b2(ACL_FORMAT_ND, ACL_FLOAT, {big.c});
  setHostThreadLimitForTesting(1);
  run(bnCall("BNTrainingReduce", {&x}, {&a1, &b1}));
  setHostThreadLimitForTesting(0);
  run(bnCall("BNTrainingReduce", {&x}, {&a2, &b2}));
  EXPECT_EQ(a1.buf, a2.buf);
  EXPECT_EQ(b1.buf, b2.buf);
}

TEST(KernelBN, CostIsVectorWithStorageBytes) {
  const Dims d = kDims;
  FTensor x(ACL_FORMAT_NC1HWC0, ACL_FLOAT16, nchw(d));
  FTensor s(ACL_FORMAT_ND, ACL_FLOAT, {d.c}), q(ACL_FORMAT_ND, ACL_FLOAT, {d.c});
  OpCall c = bnCall("BNTrainingReduce", {&x}, {&s, &q});
  const KernelDef& k = kernel("BNTrainingReduce");
  k.validate(c);
  const KernelCost cost = k.cost(c);
  EXPECT_EQ(cost.core, CoreType::kVector);
  // storage bytes: x [3,2,5,7,16] fp16 + 2 x 19 fp32
  EXPECT_DOUBLE_EQ(cost.mte_bytes, 3.0 * 2 * 5 * 7 * 16 * 2 + 2 * 19 * 4);
  EXPECT_GT(cost.vector_repeats, 0);
  EXPECT_EQ(cost.block_dim, 19u);
}

TEST(KernelBN, ValidationErrors) {
  const Dims d = kDims;
  FTensor x(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d));
  FTensor c19(ACL_FORMAT_ND, ACL_FLOAT, {19}), c18(ACL_FORMAT_ND, ACL_FLOAT, {18}), h19(ACL_FORMAT_ND, ACL_FLOAT16, {19});
  FTensor y(ACL_FORMAT_NCHW, ACL_FLOAT, nchw(d)), y16(ACL_FORMAT_NCHW, ACL_FLOAT16, nchw(d));
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingReduce", {&x}, {&c19}), ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 2 outputs");
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingReduce", {&x}, {&c19, &c18}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output square_sum shape [18] must be [19]");
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingReduce", {&x}, {&c19, &h19}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "output square_sum dtype float16");
  EXPECT_KERNEL_ERROR(bnCall("BNInfer", {&x, &c19, &c19, &c19, &c19}, {&y16}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y dtype float16 does not match x dtype float32");
  FTensor nhwc(ACL_FORMAT_NHWC, ACL_FLOAT, nchw(d));
  EXPECT_KERNEL_ERROR(bnCall("BNInfer", {&nhwc, &c19, &c19, &c19, &c19}, {&y}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "must be NCHW, ND or NC1HWC0");
  FTensor fz(ACL_FORMAT_FRACTAL_Z, ACL_FLOAT, {19});
  EXPECT_KERNEL_ERROR(bnCall("BNInfer", {&x, &c19, &fz, &c19, &c19}, {&y}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "input offset has format FRACTAL_Z");
  FTensor ybad(ACL_FORMAT_NCHW, ACL_FLOAT, {3, 19, 5, 6});
  EXPECT_KERNEL_ERROR(bnCall("BNInfer", {&x, &c19, &c19, &c19, &c19}, {&ybad}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape (as NCHW) [3,19,5,6] does not match x shape [3,19,5,7]");
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingUpdate", {&x, &c19, &c19, &c19, &c19, &c19, &c19}, {&y, &c19, &c19, &c19, &c19},
                             attrs({{"epsilon", 1e-5f}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "missing required attribute 'factor'");
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingUpdate", {&x, &c19, &c19, &c19, &c19, &c19}, {&y, &c19, &c19, &c19, &c19},
                             updAttrs()),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 7 inputs, got 6");
  FTensor x5bad(ACL_FORMAT_NC1HWC0, ACL_FLOAT, {19, 5, 7});  // 3-D origin in NC1HWC0
  EXPECT_KERNEL_ERROR(bnCall("BNTrainingReduce", {&x5bad}, {&c19, &c19}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must have a 4-D origin shape");
}

}  // namespace
