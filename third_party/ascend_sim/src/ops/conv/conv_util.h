// Helpers shared by the convolution (conv2d.cpp) and pooling (pooling.cpp)
// kernels: operands in NCHW or a private format (NC1HWC0 activations,
// FRACTAL_Z filters) seen as logical NCHW fp32 buffers, and the window
// attributes (ksize / strides / pads / dilations) of OPS.md "Convolution and
// pooling".
//
// Note [Conv and pooling operands]
// Every 4-D operand is handled through its logical NCHW view: compute loads it
// into an fp32 (or int64) row-major [N,C,H,W] scratch buffer (exact for
// fp16/bf16/fp32), the kernel computes there, and the result is stored back
// with one rounding into the caller's format (pads of private formats zero, as
// TransData writes them). Base formats (ND, NCHW) are plain row-major storage
// of their descriptor shape; private formats take their logical shape from the
// origin format/shape (storageMapOf). Other formats are rejected with
// ACL_ERROR_OP_UNSUPPORTED_FORMAT.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/shape.h"
#include "kernel/format_access.h"
#include "kernel/kernel.h"

namespace ascend_sim {
namespace convutil {

// Which formats an operand may have besides the base formats ND / NCHW.
enum class OperandKind {
  kActivation,    // NC1HWC0
  kFilter,        // FRACTAL_Z
  kChannel,       // [C] parameter: NC1HWC0 (lifted [1,C,1,1])
  kActivation3d,  // NDC1HWC0 (5-D activations; base NCDHW)
  kFilter3d,      // FRACTAL_Z_3D (5-D filters; base NCDHW)
};

// Validates t's format for `kind` (error names `who`), and for a private
// format that its storage shape matches its origin shape. Returns the logical
// shape (NCHW order for 4-D operands).
Shape logicalShapeOf(const OpCall& call, const TensorArg& t, const std::string& who, OperandKind kind);
// logicalShapeOf + the logical shape must be 4-D.
Shape shape4dOf(const OpCall& call, const TensorArg& t, const std::string& who, OperandKind kind);

// Whether t's storage holds its logical elements in row-major logical order (ND / NCHW), so
// that logical element i is storage element i.
bool storesLogicalOrder(const TensorArg& t);
// Loads all logical elements of t (row-major logical order) into fp32 / int64.
void loadLogicalF32(const TensorArg& t, float* dst);
void loadLogicalI64(const TensorArg& t, int64_t* dst);
// Stores row-major logical values into t (one rounding to t's dtype; pads zero).
void storeLogicalF32(const TensorArg& t, const float* src);
void storeLogicalI64(const TensorArg& t, const int64_t* src);

// A list-of-ints attribute of exactly `n` values (also accepting the
// 4-value NCHW form [1, 1, h, w] when n == 2), or `fallback` when absent.
std::vector<int64_t> attrList(const OpCall& call, const char* name, size_t n, const std::vector<int64_t>& fallback,
                              bool required);

// 2-D sliding-window geometry (conv and pooling).
struct Window {
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  int64_t dh = 1, dw = 1;
  int64_t effH() const { return dh * (kh - 1) + 1; }
  int64_t effW() const { return dw * (kw - 1) + 1; }
};

// strides / pads / dilations of `call` into w (kh, kw untouched); checks
// strides and dilations >= 1 and pads >= 0. `strides_default` is used when the
// attribute is absent (conv: [1,1]; pooling: ksize).
void parseWindowAttrs(const OpCall& call, Window* w, const std::vector<int64_t>& strides_default);

// Output extent of a window over `in` elements with pads lo/hi
// (PyTorch's pooling_output_shape when ceil_mode).
int64_t windowOut(int64_t in, int64_t k_eff, int64_t stride, int64_t pad_lo, int64_t pad_hi, bool ceil_mode);

// force_fp16 with an fp32 output: the Cube result is an fp16 value (the
// convolutions round every result element through fp16, saturating on a
// saturation-mode chip and reporting the overflow).
struct ResultRounding {
  bool through_fp16 = false;
  bool saturate = false;
  float apply(float v, bool* overflow) const { return through_fp16 ? throughFp16(v, overflow) : v; }
  float throughFp16(float v, bool* overflow) const;
};
ResultRounding resultRoundingOf(const OpCall& call);

// Shape in messages: "[2,3,4,5]".
inline std::string str(const Shape& s) { return shapeToString(s); }

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows of a convolution product per host task (a multiple of the Cube tiles' 6 and 12 rows).
constexpr int64_t kRowBand = 96;

// The host tasks of a convolution product (Note [Simulated cores on host threads] in conv2d.cpp):
// `units` (group, sample) or group products x `bands` of rows x groups of its 16-column panels,
// the panels split only as far as units x bands falls short of `min_tasks` (deep layers: few
// rows, many channels). Task t covers unit, band and panels [p0, p1) (possibly empty).
struct ProductTasks {
  int64_t units, bands, panels, pgroups;
  ProductTasks(int64_t units_, int64_t bands_, int64_t panels_, int64_t min_tasks)
      : units(units_),
        bands(bands_),
        panels(panels_),
        pgroups(std::max<int64_t>(1, std::min(panels_, ceilDiv(min_tasks, units_ * bands_)))) {}
  int64_t count() const { return units * bands * pgroups; }
  struct Task {
    int64_t unit, band, p0, p1;
  };
  Task operator[](int64_t t) const {
    const int64_t pg = t % pgroups;
    return {t / (bands * pgroups), t / pgroups % bands, pg * panels / pgroups, (pg + 1) * panels / pgroups};
  }
};

}  // namespace convutil
}  // namespace ascend_sim
