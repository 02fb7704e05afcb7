// Host tensors in any storage format, for the kernel suites that compare
// formats (elementwise ops on private formats, TransData, convolution,
// pooling): building them, TransData between formats, and their pads.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/shape.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel_test_util.h"
#include "kernel/kernel.h"

namespace ascend_sim {
namespace test {

// Note [Format test tensors]
// A FormatTensor holds a tensor of logical shape `logical` stored in format f:
// the storage shape is what the format rule gives, every byte is `fill` until
// written, and one guard byte past arg.bytes catches overruns. The origin
// format is f's base layout (NCHW for NC1HWC0 and FRACTAL_Z, ND for
// FRACTAL_NZ, ...). Kernels read the origin format only to reorder an NHWC
// origin shape (logicalShape) and TransData names it in messages.
// Copies keep arg.data pointing at the source's buffer: re-point after a copy
// (moves keep the buffer).
struct FormatTensor {
  TensorArg arg;
  std::vector<uint8_t> buf;

  FormatTensor(aclFormat f, aclDataType dt, const Shape& logical, uint8_t fill = 0xCD) {
    Shape storage;
    std::string err;
    EXPECT_TRUE(formatStorageShape(f, dt, logical, &storage, &err)) << err;
    buf.assign(static_cast<size_t>(numelOf(storage)) * dtypeSize(dt) + 1, fill);
    arg.dtype = dt;
    arg.format = f;
    arg.shape = storage;
    arg.origin_format = findFormat(f)->base;
    arg.origin_shape = logical;
    arg.data = buf.data();
    arg.bytes = buf.size() - 1;
  }

  const Shape& logical() const { return arg.origin_shape; }
  size_t itemSize() const { return dtypeSize(arg.dtype); }
  // Storage bytes, without the guard byte.
  size_t byteCount() const { return buf.size() - 1; }
  std::vector<uint8_t> bytes() const { return std::vector<uint8_t>(buf.begin(), buf.end() - 1); }

  StorageMap map() const {
    StorageMap m;
    std::string err;
    EXPECT_TRUE(makeStorageMap(arg.format, arg.dtype, logical(), &m, &err)) << err;
    return m;
  }
  // Logical values, row-major.
  std::vector<float> values() const {
    std::vector<float> v(static_cast<size_t>(numelOf(logical())));
    loadLogicalFloat(arg, map(), v.data());
    return v;
  }
  std::vector<int64_t> ints() const {
    std::vector<int64_t> v(static_cast<size_t>(numelOf(logical())));
    loadLogicalInt(arg, map(), v.data());
    return v;
  }
  void set(const std::vector<float>& v) { storeLogicalFloat(arg, map(), v.data()); }
};

// The row-major base format of a logical shape of this rank.
inline aclFormat baseFor(size_t rank) {
  return rank == 4 ? ACL_FORMAT_NCHW : rank == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
}

inline OpCall opCall(const std::string& op, const std::vector<const FormatTensor*>& ins,
                     const std::vector<const FormatTensor*>& outs, AttrMap attrs = {}, LaunchContext ctx = {}) {
  OpCall c;
  c.op_type = op;
  for (const FormatTensor* t : ins) c.inputs.push_back(t->arg);
  for (const FormatTensor* t : outs) c.outputs.push_back(t->arg);
  c.attrs = std::move(attrs);
  c.ctx = ctx;
  return c;
}

inline OpCall transCall(const FormatTensor& src, const FormatTensor& dst) {
  return opCall("TransData", {&src}, {&dst});
}

// Runs TransData src -> a fresh tensor in format `to`.
inline FormatTensor transTo(const FormatTensor& src, aclFormat to) {
  FormatTensor dst(to, src.arg.dtype, src.logical());
  run(transCall(src, dst));
  return dst;
}

// TransData fills pads with poison instead of zeros while this lives.
struct PoisonEnv {
  explicit PoisonEnv(const char* value = "1") { setenv("ASCEND_SIM_TRANSDATA_POISON", value, 1); }
  ~PoisonEnv() { unsetenv("ASCEND_SIM_TRANSDATA_POISON"); }
};

// The storage element offset of every logical element of t (row-major), from
// the format's closed form (formatElementOffset).
inline std::vector<int64_t> storageOffsets(const FormatTensor& t) {
  const Shape& s = t.logical();
  std::vector<int64_t> offsets(static_cast<size_t>(numelOf(s)));
  Shape idx(s.size(), 0);
  for (size_t l = 0; l < offsets.size(); ++l) {
    int64_t rem = static_cast<int64_t>(l);
    for (size_t d = s.size(); d-- > 0;) {
      idx[d] = rem % s[d];
      rem /= s[d];
    }
    offsets[l] = formatElementOffset(t.arg.format, t.arg.dtype, s, idx.data());
  }
  return offsets;
}

// Per storage element of t: whether it holds a logical element (the others are pads).
inline std::vector<bool> logicalElementMask(const FormatTensor& t) {
  std::vector<bool> logical(static_cast<size_t>(numelOf(t.arg.shape)), false);
  for (int64_t o : storageOffsets(t)) logical[static_cast<size_t>(o)] = true;
  return logical;
}

// Fills every pad element of a private-format tensor with NaN bytes (0xFF).
inline void poisonPads(FormatTensor& t) {
  const std::vector<bool> logical = logicalElementMask(t);
  const size_t sz = t.itemSize();
  for (size_t e = 0; e < logical.size(); ++e)
    if (!logical[e]) std::memset(t.buf.data() + e * sz, 0xFF, sz);
}

// Every pad element of t is zero.
inline void expectZeroPads(const FormatTensor& t, const std::string& what = "") {
  const std::vector<bool> logical = logicalElementMask(t);
  const size_t size = t.itemSize();
  const std::vector<uint8_t> zero(size, 0);
  for (size_t k = 0; k < logical.size(); ++k) {
    if (logical[k]) continue;
    ASSERT_EQ(std::memcmp(&t.buf[k * size], zero.data(), size), 0) << what << ": pad element " << k << " is not zero";
  }
}

}  // namespace test
}  // namespace ascend_sim
