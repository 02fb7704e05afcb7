// MatMul and BatchMatMul (OPS.md "Matrix") on the simulated Cube.
//
// Note [MatMul numerics and blocking]
// Contract (SIMULATOR.md §3): each output element has one fp32 accumulator
// that adds a[i,k]*b[k,j] for k = 0, 1, ..., K-1 with a fused multiply-add,
// then adds the bias (fp32), then is rounded once to the output dtype. fp16 /
// bf16 operands are widened to fp32 exactly; their products are exact, so FMA
// and mul+add agree for them.
// Implementation: A is converted to a row-major fp32 copy [M,K] (transposes
// are resolved there), B to fp32 column panels of kPanel columns laid out
// [panel][K][kPanel] (zero padded). A micro-kernel computes a kRows x kPanel
// tile with the accumulators in registers, walking k in ascending order, so
// the order per element is exactly the contract's and the result does not
// depend on blocking, SIMD width or threads. On x86-64 hosts with FMA the
// micro-kernel uses AVX2 FMA (bitwise identical to std::fma); elsewhere a
// portable std::fma loop gives the same bits, more slowly.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_utils.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ASCEND_SIM_HAVE_AVX2_PATH 1
#endif

namespace ascend_sim {
namespace {

constexpr int64_t kPanel = 16;     // output columns per micro tile
constexpr int64_t kRows = 6;       // output rows per micro tile
constexpr int64_t kRowBlock = 96;  // rows of A kept hot while panels stream

// C[r][0..16) = sum_k A[r*lda + k] * Bp[k*16 + j], r < R, ascending k, fused.
template <int R>
void microPortable(const float* a, int64_t lda, const float* bp, int64_t k_len, float* c) {
  float acc[R][kPanel] = {};
  for (int64_t k = 0; k < k_len; ++k)
    for (int r = 0; r < R; ++r) {
      const float av = a[r * lda + k];
      for (int64_t j = 0; j < kPanel; ++j) acc[r][j] = std::fma(av, bp[k * kPanel + j], acc[r][j]);
    }
  for (int r = 0; r < R; ++r)
    for (int64_t j = 0; j < kPanel; ++j) c[r * kPanel + j] = acc[r][j];
}

#ifdef ASCEND_SIM_HAVE_AVX2_PATH
template <int R>
__attribute__((target("avx2,fma"))) void microAvx2(const float* a, int64_t lda, const float* bp,
                                                   int64_t k_len, float* c) {
  __m256 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < k_len; ++k) {
    const __m256 b0 = _mm256_loadu_ps(bp + k * kPanel);
    const __m256 b1 = _mm256_loadu_ps(bp + k * kPanel + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + k);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * kPanel, acc[r][0]);
    _mm256_storeu_ps(c + r * kPanel + 8, acc[r][1]);
  }
}
bool hostHasFma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

using MicroFn = void (*)(const float*, int64_t, const float*, int64_t, float*);

MicroFn microFor(int64_t rows) {
#ifdef ASCEND_SIM_HAVE_AVX2_PATH
  if (hostHasFma()) {
    static const MicroFn fns[] = {nullptr, microAvx2<1>, microAvx2<2>, microAvx2<3>,
                                  microAvx2<4>, microAvx2<5>, microAvx2<6>};
    return fns[rows];
  }
#endif
  static const MicroFn fns[] = {nullptr, microPortable<1>, microPortable<2>, microPortable<3>,
                                microPortable<4>, microPortable<5>, microPortable<6>};
  return fns[rows];
}

// One matrix operand: element (r, c) of the logical [rows, cols] matrix is at
// base[offset + r * rs + c * cs].
struct MatView {
  aclDataType dtype;
  const void* base;
  int64_t offset, rs, cs;
};

MatView viewOf(const TensorArg& t, int64_t offset, bool transposed) {
  const int64_t inner = t.shape.back();  // row length of the stored matrix
  return transposed ? MatView{t.dtype, t.data, offset, 1, inner}
                    : MatView{t.dtype, t.data, offset, inner, 1};
}

// c[M,N] (fp32, row-major) = A[M,K] * B[K,N] + bias, per Note [MatMul numerics and blocking].
void gemm(const MatView& a, const MatView& b, const float* bias, int64_t m, int64_t n, int64_t k,
          float* c) {
  std::vector<float> ap(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i) loadFloat(a.dtype, a.base, a.offset + i * a.rs, a.cs, k, &ap[i * k]);
  const int64_t panels = (n + kPanel - 1) / kPanel;
  std::vector<float> bp(static_cast<size_t>(panels * k * kPanel), 0.0f);
  if (b.cs == 1) {  // B rows are contiguous: read row by row, scatter into panels
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t kk = 0; kk < k; ++kk) {
      loadFloat(b.dtype, b.base, b.offset + kk * b.rs, 1, n, row.data());
      for (int64_t j = 0; j < n; ++j) bp[((j / kPanel) * k + kk) * kPanel + j % kPanel] = row[j];
    }
  } else {  // B columns are contiguous (transposed B)
    std::vector<float> col(static_cast<size_t>(k));
    for (int64_t j = 0; j < n; ++j) {
      loadFloat(b.dtype, b.base, b.offset + j * b.cs, b.rs, k, col.data());
      float* dst = &bp[(j / kPanel) * k * kPanel + j % kPanel];
      for (int64_t kk = 0; kk < k; ++kk) dst[kk * kPanel] = col[kk];
    }
  }
  float tile[kRows * kPanel];
  for (int64_t i0 = 0; i0 < m; i0 += kRowBlock) {
    const int64_t i1 = std::min(m, i0 + kRowBlock);
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t j0 = p * kPanel, jn = std::min(kPanel, n - j0);
      for (int64_t i = i0; i < i1; i += kRows) {
        const int64_t rows = std::min(kRows, i1 - i);
        microFor(rows)(&ap[i * k], k, &bp[p * k * kPanel], k, tile);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < jn; ++j)
            c[(i + r) * n + j0 + j] = bias ? tile[r * kPanel + j] + bias[j0 + j] : tile[r * kPanel + j];
      }
    }
  }
}

struct MatmulDims {
  int64_t m, n, k;
  Shape batch;  // broadcast batch shape (empty for MatMul)
  bool ta, tb;
};

bool isBatch(const OpCall& call) { return call.op_type == "BatchMatMul"; }

MatmulDims dimsOf(const OpCall& call) {
  const bool batch = isBatch(call);
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  MatmulDims d;
  d.ta = attrBool(call, batch ? "adj_x1" : "transpose_x1", false);
  d.tb = attrBool(call, batch ? "adj_x2" : "transpose_x2", false);
  const size_t r1 = x1.shape.size(), r2 = x2.shape.size();
  d.m = d.ta ? x1.shape[r1 - 1] : x1.shape[r1 - 2];
  const int64_t k1 = d.ta ? x1.shape[r1 - 2] : x1.shape[r1 - 1];
  d.k = d.tb ? x2.shape[r2 - 1] : x2.shape[r2 - 2];
  d.n = d.tb ? x2.shape[r2 - 2] : x2.shape[r2 - 1];
  if (k1 != d.k)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "inner dimensions differ: x1 " + shapeToString(x1.shape) + (d.ta ? " (transposed)" : "") +
             " has K=" + std::to_string(k1) + " but x2 " + shapeToString(x2.shape) +
             (d.tb ? " (transposed)" : "") + " has K=" + std::to_string(d.k));
  Shape b1(x1.shape.begin(), x1.shape.end() - 2), b2(x2.shape.begin(), x2.shape.end() - 2);
  if (!broadcastShapes(b1, b2, &d.batch))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "batch dims " + shapeToString(b1) + " of x1 and " + shapeToString(b2) +
             " of x2 do not broadcast");
  return d;
}

void validateMatmul(const OpCall& call) {
  const bool batch = isBatch(call);
  checkArity(call, 2, 3, 1);
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x1, "input x1", kFloatTypes);
  checkSameDtype(call, x1, "x1", x2, "x2");
  checkDtype(call, y, "output y", kFloatTypes);
  for (const TensorArg* t : {&x1, &x2}) {
    const bool bad = batch ? t->shape.size() < 2 : t->shape.size() != 2;
    if (bad)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(t == &x1 ? "x1" : "x2") + " shape " + shapeToString(t->shape) + " must be " +
               (batch ? "at least 2-D" : "2-D"));
  }
  MatmulDims d = dimsOf(call);
  Shape want = d.batch;
  want.push_back(d.m);
  want.push_back(d.n);
  checkShapeEq(call, y, "output y", want, "the expected shape");
  if (call.inputs.size() == 3) {
    const TensorArg& bias = call.inputs[2];
    checkDtype(call, bias, "input bias", kFloatTypes);
    const bool ok = bias.numel() == d.n &&
                    (bias.shape.size() == 1 || (bias.shape.size() == 2 && bias.shape[0] == 1));
    if (!ok)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "bias shape " + shapeToString(bias.shape) + " must be [" + std::to_string(d.n) + "] (N)");
  }
}

void computeMatmul(const OpCall& call) {
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const MatmulDims d = dimsOf(call);
  std::vector<float> bias;
  if (call.inputs.size() == 3) {
    bias.resize(static_cast<size_t>(d.n));
    loadFloat(call.inputs[2].dtype, call.inputs[2].data, 0, 1, d.n, bias.data());
  }
  const int64_t batches = numelOf(d.batch);
  const Shape b1(x1.shape.begin(), x1.shape.end() - 2), b2(x2.shape.begin(), x2.shape.end() - 2);
  const Shape s1 = broadcastStrides(b1, d.batch), s2 = broadcastStrides(b2, d.batch);
  const int64_t mat1 = x1.shape[x1.shape.size() - 1] * x1.shape[x1.shape.size() - 2];
  const int64_t mat2 = x2.shape[x2.shape.size() - 1] * x2.shape[x2.shape.size() - 2];
  std::vector<float> c(static_cast<size_t>(d.m * d.n));
  Shape idx(d.batch.size(), 0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t o1 = 0, o2 = 0;
    for (size_t q = 0; q < idx.size(); ++q) {
      o1 += idx[q] * s1[q];
      o2 += idx[q] * s2[q];
    }
    gemm(viewOf(x1, o1 * mat1, d.ta), viewOf(x2, o2 * mat2, d.tb), bias.empty() ? nullptr : bias.data(),
         d.m, d.n, d.k, c.data());
    storeFloat(y.dtype, y.data, bi * d.m * d.n, d.m * d.n, c.data());
    for (size_t q = idx.size(); q-- > 0;) {
      if (++idx[q] < d.batch[q]) break;
      idx[q] = 0;
    }
  }
}

KernelCost costMatmul(const OpCall& call) {
  const MatmulDims d = dimsOf(call);
  auto pad = [](int64_t v) { return static_cast<double>((v + 15) / 16 * 16); };
  const double batches = static_cast<double>(numelOf(d.batch));
  KernelCost c = vectorCost(call);
  c.core = CoreType::kCube;
  c.cube_macs = batches * pad(d.m) * pad(d.n) * pad(d.k);
  c.vector_bytes = 0;
  c.flops = 2.0 * batches * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatMul", &validateMatmul, &computeMatmul, &costMatmul});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BatchMatMul", &validateMatmul, &computeMatmul, &costMatmul});

}  // namespace
}  // namespace ascend_sim
