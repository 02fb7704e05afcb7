#include "ops/linalg/linalg_util.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

namespace ascend_sim {
namespace linalg {

Matrices checkMatrices(const OpCall& call, const TensorArg& t, const std::string& name, bool square) {
  checkDtype(call, t, name, kLinalgTypes);
  if (t.shape.size() < 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " must have at least 2 dims (a batch of matrices), got shape " + shapeToString(t.shape));
  Matrices m;
  m.batch.assign(t.shape.begin(), t.shape.end() - 2);
  m.rows = t.shape[t.shape.size() - 2];
  m.cols = t.shape.back();
  m.count = numelOf(m.batch);
  if (square && m.rows != m.cols)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " must be a batch of square matrices, got shape " + shapeToString(t.shape));
  // LAPACK indexes with 32-bit integers: rows * cols must fit.
  if (m.rows > 0 && m.cols > INT_MAX / std::max<int64_t>(m.rows, 1))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " matrices of " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
             " are too large for LAPACK's 32-bit indices");
  return m;
}

Shape batchShape(const Shape& batch, std::initializer_list<int64_t> tail) {
  Shape s = batch;
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

void checkOutShape(const OpCall& call, size_t index, const std::string& name, const Shape& want) {
  checkShapeEq(call, call.outputs[index], "output " + name, want, "expected shape");
}

void checkInt32Out(const OpCall& call, size_t index, const std::string& name, const Shape& want) {
  checkDtype(call, call.outputs[index], "output " + name, dtBit(ACL_INT32));
  checkOutShape(call, index, name, want);
}

void checkFloatOut(const OpCall& call, size_t index, const std::string& name, const TensorArg& x, const Shape& want) {
  checkSameDtype(call, x, "x", call.outputs[index], "output " + name);
  checkOutShape(call, index, name, want);
}

Shape broadcastBatch(const OpCall& call, const Matrices& a, const std::string& aname, const Matrices& b,
                     const std::string& bname) {
  Shape out;
  if (!broadcastShapes(a.batch, b.batch, &out))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "batch dims " + shapeToString(a.batch) + " of " + aname + " and " + shapeToString(b.batch) + " of " + bname +
             " do not broadcast");
  return out;
}

std::vector<int64_t> batchIndex(const Shape& in, const Shape& out) {
  const Shape strides = broadcastStrides(in, out);
  const int64_t n = numelOf(out);
  std::vector<int64_t> index(static_cast<size_t>(n), 0);
  Shape pos(out.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < out.size(); ++d) off += pos[d] * strides[d];
    index[static_cast<size_t>(i)] = off;
    for (size_t d = out.size(); d-- > 0;) {  // next row-major position
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return index;
}

void loadColMajor(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, float* dst, int64_t ld) {
  const int64_t base = index * rows * cols;
  for (int64_t j = 0; j < cols; ++j) loadFloat(t.dtype, t.data, base + j, cols, rows, dst + j * ld);
}

void loadTransposed(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, float* dst) {
  loadFloat(t.dtype, t.data, index * rows * cols, 1, rows * cols, dst);
}

void storeColMajor(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, const float* src, int64_t ld) {
  std::vector<float> row(static_cast<size_t>(cols));
  const int64_t base = index * rows * cols;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) row[static_cast<size_t>(j)] = src[i + j * ld];
    storeFloat(t.dtype, t.data, base + i * cols, cols, row.data());
  }
}

void storeInts(const TensorArg& t, int64_t offset, int64_t n, const int* src) {
  std::vector<int64_t> v(src, src + n);
  storeInt(t.dtype, t.data, offset, n, v.data());
}

std::vector<int> loadPivots(const OpCall& call, const TensorArg& pivots, int64_t index, int64_t k, int64_t rows) {
  std::vector<int64_t> v(static_cast<size_t>(k));
  loadInt(pivots.dtype, pivots.data, index * k, 1, k, v.data());
  for (int64_t i = 0; i < k; ++i)
    if (v[static_cast<size_t>(i)] < 1 || v[static_cast<size_t>(i)] > rows)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "pivot " + std::to_string(i) + " of matrix " + std::to_string(index) + " is " +
               std::to_string(v[static_cast<size_t>(i)]) + ", outside [1, " + std::to_string(rows) + "]");
  return std::vector<int>(v.begin(), v.end());
}

bool allFinite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

void zeroTriangle(float* a, int64_t rows, int64_t cols, int64_t ld, bool keep_upper) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      if (keep_upper ? i > j : i < j) a[i + j * ld] = 0.0f;
}

int workspaceSize(float query) { return std::max(1, static_cast<int>(std::ceil(query))); }

KernelCost aiCpuCost(const OpCall& call, double flops) {
  KernelCost c;
  c.core = CoreType::kAiCpu;
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.flops = flops;
  return c;
}

Matrices checkSquareWithOptionalInfo(const OpCall& call) {
  if (call.outputs.size() != 1 && call.outputs.size() != 2)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected outputs y [, info], got " + std::to_string(call.outputs.size()) + " outputs");
  checkArity(call, 1, 1, call.outputs.size());
  const Matrices x = checkMatrices(call, call.inputs[0], "input x", true);
  checkFloatOut(call, 0, "y", call.inputs[0], call.inputs[0].shape);
  if (call.outputs.size() == 2) checkInt32Out(call, 1, "info", x.batch);
  return x;
}

void factorEachMatrix(const OpCall& call, int64_t count, bool empty, size_t info_output,
                      const std::function<int(int64_t index)>& factor) {
  for (int64_t index = 0; index < count; ++index) {
    const int info = empty ? 0 : factor(index);
    if (info_output < call.outputs.size()) storeInts(call.outputs[info_output], index, 1, &info);
  }
}

void updateEachSquareMatrix(const OpCall& call, const Matrices& x, size_t info_output,
                            const std::function<int(int64_t index, float* a)>& update) {
  const int64_t n = x.rows;
  std::vector<float> a(static_cast<size_t>(n * n));
  factorEachMatrix(call, x.count, n == 0, info_output, [&](int64_t index) {
    loadColMajor(call.inputs[0], index, n, n, a.data(), n);
    const int info = update(index, a.data());
    storeColMajor(call.outputs[0], index, n, n, a.data(), n);
    return info;
  });
}

namespace {

// A solve operand and its name in messages.
struct SolveOperand {
  size_t input;
  std::string name;
  bool square;
};

// Note [Solve operands in input order].
bool factorFirst(const FactorSolveInputs& in) { return in.factor < in.b; }

// The factor and b, in input order.
std::pair<SolveOperand, SolveOperand> inInputOrder(const FactorSolveInputs& in) {
  const SolveOperand factor{in.factor, in.factor_name, true}, b{in.b, "b", false};
  if (factorFirst(in)) return {factor, b};
  return {b, factor};
}

}  // namespace

FactorSolve factorSolveOperands(const OpCall& call, const FactorSolveInputs& in) {
  const auto [first, second] = inInputOrder(in);
  const Matrices m1 = checkMatrices(call, call.inputs[first.input], "input " + first.name, first.square);
  const Matrices m2 = checkMatrices(call, call.inputs[second.input], "input " + second.name, second.square);
  FactorSolve s;
  s.batch = broadcastBatch(call, m1, first.name, m2, second.name);
  s.factor = factorFirst(in) ? m1 : m2;
  s.b = factorFirst(in) ? m2 : m1;
  return s;
}

FactorSolve checkFactorSolve(const OpCall& call, const FactorSolveInputs& in) {
  const FactorSolve s = factorSolveOperands(call, in);
  const auto [first, second] = inInputOrder(in);
  checkSameDtype(call, call.inputs[first.input], first.name, call.inputs[second.input], second.name);
  const std::string factor_name = in.factor_name;
  if (in.pivots >= 0) {
    const TensorArg& pivots = call.inputs[static_cast<size_t>(in.pivots)];
    checkDtype(call, pivots, "input pivots", dtBit(ACL_INT32));
    checkShapeEq(call, pivots, "input pivots", batchShape(s.factor.batch, {s.factor.rows}),
                 factor_name + " batch + [n]");
  }
  if (s.b.rows != s.factor.rows)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "b has " + std::to_string(s.b.rows) + " rows but " + factor_name + " is " + std::to_string(s.factor.rows) +
             " x " + std::to_string(s.factor.rows));
  checkFloatOut(call, 0, "x", call.inputs[0], batchShape(s.batch, {s.b.rows, s.b.cols}));
  return s;
}

void solveEachMatrix(const OpCall& call, const FactorSolveInputs& in, const FactorSolve& s,
                     const std::function<void(int64_t factor_index, const float* a, float* x)>& solve) {
  const int64_t n = s.factor.rows, nrhs = s.b.cols, count = numelOf(s.batch);
  if (n == 0 || nrhs == 0) return;
  const std::vector<int64_t> factor_of = batchIndex(s.factor.batch, s.batch), b_of = batchIndex(s.b.batch, s.batch);
  std::vector<float> a(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * nrhs));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t fi = factor_of[static_cast<size_t>(i)];
    loadColMajor(call.inputs[in.factor], fi, n, n, a.data(), n);
    loadColMajor(call.inputs[in.b], b_of[static_cast<size_t>(i)], n, nrhs, x.data(), n);
    solve(fi, a.data(), x.data());
    storeColMajor(call.outputs[0], i, n, nrhs, x.data(), n);
  }
}

KernelCost factorSolveCost(const OpCall& call, const FactorSolve& s) {
  const double n = static_cast<double>(s.factor.rows);
  return aiCpuCost(call, static_cast<double>(numelOf(s.batch)) * 2.0 * n * n * static_cast<double>(s.b.cols));
}

double luFlops(double m, double n) {
  const double k = std::min(m, n), big = std::max(m, n);
  return big * k * k - k * k * k / 3.0;
}

double qrFlops(double m, double n) {
  if (m >= n) return 2.0 * m * n * n - 2.0 / 3.0 * n * n * n;
  return 2.0 * n * m * m - 2.0 / 3.0 * m * m * m;
}

double orgqrFlops(double m, double n, double k) {
  return 4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 / 3.0 * k * k * k;
}

}  // namespace linalg
}  // namespace ascend_sim
