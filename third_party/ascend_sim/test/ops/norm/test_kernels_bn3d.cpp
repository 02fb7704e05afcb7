// The BN3D* batch norm kernels (Note [Batch norm of 5-D activations]): on NCDHW, NDC1HWC0 (pads
// poisoned) and mixed activations they give the bits of the 4-D kernels on the NCHW view
// [N, C, D*H, W], in fp32 and fp16; output pads are zero; each family refuses the other's ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format_test_util.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

const Shape kShape5{2, 20, 3, 5, 4};  // C = 20: the second C1 block mostly padding
const Shape kShape4{2, 20, 15, 4};    // the NCHW view [N, C, D*H, W]

// A 5-D activation with `v` in `layout` (NCDHW, or NDC1HWC0 with NaN pads).
FormatTensor act5(aclFormat layout, aclDataType dt, const std::vector<float>& v) {
  FormatTensor t(ACL_FORMAT_NCDHW, dt, kShape5);
  t.set(v);
  if (layout == ACL_FORMAT_NCDHW) return t;
  FormatTensor p = transTo(t, layout);
  poisonPads(p);
  return p;
}

FormatTensor param(const std::vector<float>& v) {
  FormatTensor t(ACL_FORMAT_ND, ACL_FLOAT, {kShape5[1]});
  t.set(v);
  return t;
}

// The bytes of a 5-D output as NCDHW (its pads checked zero first).
std::vector<uint8_t> ncdhwBytes(const FormatTensor& t, const std::string& what) {
  if (t.arg.format == ACL_FORMAT_NCDHW) return t.bytes();
  expectZeroPads(t, what);
  return transTo(t, ACL_FORMAT_NCDHW).bytes();
}

AttrMap epsilonAttrs(bool factor) {
  AttrMap a;
  a.set("epsilon", 1e-3f);
  if (factor) a.set("factor", 0.1f);
  return a;
}

}  // namespace

TEST(KernelBN3d, EveryKernelMatchesTheFourDOpsOnTheNchwView) {
  const int64_t numel = numelOf(kShape5), c = kShape5[1];
  const std::vector<float> xv = randomFloats(static_cast<size_t>(numel), -2, 3, 11),
                           dyv = randomFloats(static_cast<size_t>(numel), -1, 1, 12);
  const std::vector<float> scale = randomFloats(c, 0.5f, 1.5f, 13), offset = randomFloats(c, -1, 1, 14),
                           rm = randomFloats(c, -0.5f, 0.5f, 15), rv = randomFloats(c, 0.5f, 2, 16);
  struct Layouts {
    aclFormat x, dy, out;
  };
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const Layouts& l : {Layouts{ACL_FORMAT_NCDHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NCDHW},
                             Layouts{ACL_FORMAT_NDC1HWC0, ACL_FORMAT_NDC1HWC0, ACL_FORMAT_NDC1HWC0},
                             Layouts{ACL_FORMAT_NDC1HWC0, ACL_FORMAT_NCDHW, ACL_FORMAT_NCDHW},
                             Layouts{ACL_FORMAT_NCDHW, ACL_FORMAT_NDC1HWC0, ACL_FORMAT_NDC1HWC0}}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " x " + formatToString(l.x) + " dy " + formatToString(l.dy) +
                   " outputs " + formatToString(l.out));
      FormatTensor x4(ACL_FORMAT_NCHW, dt, kShape4), dy4(ACL_FORMAT_NCHW, dt, kShape4);
      x4.set(xv), dy4.set(dyv);
      const FormatTensor x = act5(l.x, dt, xv), dy = act5(l.dy, dt, dyv);
      const FormatTensor sc = param(scale), of = param(offset), m = param(rm), v = param(rv);
      auto fresh = [&] { return FormatTensor(ACL_FORMAT_ND, ACL_FLOAT, {c}); };
      // Reduce
      FormatTensor s4 = fresh(), q4 = fresh(), s = fresh(), q = fresh();
      run(opCall("BNTrainingReduce", {&x4}, {&s4, &q4}));
      run(opCall("BN3DTrainingReduce", {&x}, {&s, &q}));
      EXPECT_EQ(s.bytes(), s4.bytes());
      EXPECT_EQ(q.bytes(), q4.bytes());
      // Update
      FormatTensor y4(ACL_FORMAT_NCHW, dt, kShape4), y(l.out, dt, kShape5);
      FormatTensor rm4 = fresh(), rv4 = fresh(), sm4 = fresh(), si4 = fresh();
      FormatTensor rmo = fresh(), rvo = fresh(), sm = fresh(), si = fresh();
      run(opCall("BNTrainingUpdate", {&x4, &s4, &q4, &sc, &of, &m, &v}, {&y4, &rm4, &rv4, &sm4, &si4},
                 epsilonAttrs(true)));
      run(opCall("BN3DTrainingUpdate", {&x, &s, &q, &sc, &of, &m, &v}, {&y, &rmo, &rvo, &sm, &si}, epsilonAttrs(true)));
      EXPECT_EQ(ncdhwBytes(y, "y"), y4.bytes());
      EXPECT_EQ(rvo.bytes(), rv4.bytes());  // the unbiased variance counts N*D*H*W elements
      EXPECT_EQ(si.bytes(), si4.bytes());
      // UpdateGrad
      FormatTensor ds4 = fresh(), do4 = fresh(), ds = fresh(), dof = fresh();
      run(opCall("BNTrainingUpdateGrad", {&dy4, &x4, &sm4, &si4}, {&ds4, &do4}, epsilonAttrs(false)));
      run(opCall("BN3DTrainingUpdateGrad", {&dy, &x, &sm, &si}, {&ds, &dof}, epsilonAttrs(false)));
      EXPECT_EQ(ds.bytes(), ds4.bytes());
      EXPECT_EQ(dof.bytes(), do4.bytes());
      // ReduceGrad
      FormatTensor dx4(ACL_FORMAT_NCHW, dt, kShape4), dx(l.out, dt, kShape5);
      run(opCall("BNTrainingReduceGrad", {&dy4, &x4, &ds4, &do4, &sc, &sm4, &si4}, {&dx4}, epsilonAttrs(false)));
      run(opCall("BN3DTrainingReduceGrad", {&dy, &x, &ds, &dof, &sc, &sm, &si}, {&dx}, epsilonAttrs(false)));
      EXPECT_EQ(ncdhwBytes(dx, "dx"), dx4.bytes());
    }
}

TEST(KernelBN3d, EachFamilyRefusesTheOthersRanks) {
  const int64_t c = kShape5[1];
  FormatTensor x4(ACL_FORMAT_NCHW, ACL_FLOAT, kShape4), x5(ACL_FORMAT_NCDHW, ACL_FLOAT, kShape5);
  FormatTensor x6 = transTo(x5, ACL_FORMAT_NDC1HWC0);
  FormatTensor s(ACL_FORMAT_ND, ACL_FLOAT, {c}), q(ACL_FORMAT_ND, ACL_FLOAT, {c});
  EXPECT_KERNEL_ERROR(opCall("BN3DTrainingReduce", {&x4}, {&s, &q}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "must be NCDHW, ND or NDC1HWC0");
  FormatTensor xnd(ACL_FORMAT_ND, ACL_FLOAT, kShape4);
  EXPECT_KERNEL_ERROR(opCall("BN3DTrainingReduce", {&xnd}, {&s, &q}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must be 5-D [N,C,D,H,W]");
  EXPECT_KERNEL_ERROR(opCall("BNTrainingReduce", {&x6}, {&s, &q}), ACL_ERROR_OP_UNSUPPORTED_FORMAT,
                      "5-D activations take the BN3D* ops");
  FormatTensor x5nd(ACL_FORMAT_ND, ACL_FLOAT, kShape5);
  EXPECT_KERNEL_ERROR(opCall("BNTrainingReduce", {&x5nd}, {&s, &q}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "5-D activations take the BN3D* ops");
  FormatTensor bad_param(ACL_FORMAT_ND, ACL_FLOAT, {c + 1});
  EXPECT_KERNEL_ERROR(opCall("BN3DTrainingReduce", {&x6}, {&bad_param, &q}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "to match the 20 channels of x");
}
