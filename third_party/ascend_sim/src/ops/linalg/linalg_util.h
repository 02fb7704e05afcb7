// Shared pieces of the linear algebra kernels (OPS.md "Linear algebra (AI
// CPU)"): batch-of-matrices shapes, column-major working copies, batch
// broadcasting, the batch loops of the factorisations and of the solves with
// a factor, and the AI CPU cost.
//
// Note [Linear algebra kernels]
// CANN runs MatrixInverse, Cholesky, Qr, Svd, ... on the AI CPU, so these
// kernels are AI CPU ops (core = kAiCpu, costed by their LAPACK FLOP count,
// Note [Op cost]). A tensor [..., rows, cols] is a batch of row-major
// matrices; the leading dims are the batch. Each matrix is loaded into an
// fp32 column-major working copy (fp16 is exact in fp32), handed to the
// single-precision LAPACK routine PyTorch's CPU kernels call (OpenBLAS's
// liblapack.so.3, lapack.h), and its results are stored rounding once to
// the output dtype. Calling the same routine on the same column-major matrix
// is what makes the results — including the signs of Householder vectors,
// singular vectors and eigenvectors, which LAPACK leaves to the algorithm —
// those of PyTorch's CPU. Matrices are processed one after another on the
// stream's thread, never split over host threads, so the bits do not depend
// on the simulator's thread count.
// Numerical failures (a singular matrix, a matrix that is not positive
// definite, an SVD that does not converge) are data, not errors: they are
// reported through `info` outputs (LAPACK's info, 0 = success) as PyTorch's
// *_ex operators expect. Only malformed data that would make LAPACK read out
// of bounds (pivots outside [1, n]) is a device fault.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace linalg {

// Element types of the linear algebra kernels (computed in fp32).
constexpr DtypeMask kLinalgTypes = dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16);

// A tensor seen as a batch of rows x cols matrices.
struct Matrices {
  Shape batch;  // leading dims
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t count = 0;  // number of matrices (product of batch)
  int64_t k() const { return rows < cols ? rows : cols; }
};

// Checks `t` (called `name` in messages) has rank >= 2, a kLinalgTypes dtype,
// square matrices when `square`, and dims LAPACK's 32-bit integers can hold.
Matrices checkMatrices(const OpCall& call, const TensorArg& t, const std::string& name, bool square);
// batch + tail.
Shape batchShape(const Shape& batch, std::initializer_list<int64_t> tail);
// The output shapes all kernels check the same way.
void checkOutShape(const OpCall& call, size_t index, const std::string& name, const Shape& want);
// An int32 output (info, pivots) of shape `want`.
void checkInt32Out(const OpCall& call, size_t index, const std::string& name, const Shape& want);
// Output `index` has x's dtype and shape `want`.
void checkFloatOut(const OpCall& call, size_t index, const std::string& name, const TensorArg& x, const Shape& want);

// Broadcast batch of two operands (e.g. A and B of a solve); fails naming both.
Shape broadcastBatch(const OpCall& call, const Matrices& a, const std::string& aname, const Matrices& b,
                     const std::string& bname);
// For every matrix of the `out` batch, the index of the matrix of the `in`
// batch it reads (in broadcasts to out).
std::vector<int64_t> batchIndex(const Shape& in, const Shape& out);

// Matrix `index` (rows x cols, row-major in t) into dst, column-major with
// leading dimension ld >= rows.
void loadColMajor(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, float* dst, int64_t ld);
// The same matrix transposed, column-major (cols x rows, leading dimension
// cols): that is its row-major layout, so this is a plain copy.
void loadTransposed(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, float* dst);
// Column-major src (rows x cols, leading dimension ld) into matrix `index`
// of t, rounding once to t's dtype.
void storeColMajor(const TensorArg& t, int64_t index, int64_t rows, int64_t cols, const float* src, int64_t ld);
// n int32/int64 values at element `offset` of t.
void storeInts(const TensorArg& t, int64_t offset, int64_t n, const int* src);
// The k LAPACK pivots (1-based row numbers) of matrix `index`; a pivot
// outside [1, rows] is a device fault naming the matrix and the value.
std::vector<int> loadPivots(const OpCall& call, const TensorArg& pivots, int64_t index, int64_t k, int64_t rows);

// Whether every value is finite (no NaN, no infinity).
bool allFinite(const std::vector<float>& v);

// Sets the strictly lower (keep_upper) or strictly upper triangle of a
// column-major rows x cols matrix to zero.
void zeroTriangle(float* a, int64_t rows, int64_t cols, int64_t ld, bool keep_upper);

// LAPACK's integer type for a dimension already checked by checkMatrices.
inline int lapackInt(int64_t v) { return static_cast<int>(v); }
// The workspace size LAPACK returned from a query (lwork = -1) in `query`.
int workspaceSize(float query);

// AI CPU cost: every operand moved once, `flops` computed (Note [Op cost]).
KernelCost aiCpuCost(const OpCall& call, double flops);

// ---- Batched factorisations (Cholesky, CholeskyInverse, MatrixInverse, Lu,
// LdlFactor) ------------------------------------------------------------------

// Checks the outputs of a kernel x -> y [, info] on square matrices: y has
// x's dtype and shape, the optional info is int32 of x's batch shape.
// Returns x (input 0) seen as matrices.
Matrices checkSquareWithOptionalInfo(const OpCall& call);

// Runs `factor(index)` on each of the `count` matrices of a batch and stores
// the LAPACK info it returns at element `index` of output `info_output`,
// when the call has that output. Empty matrices (`empty`) are not factorised:
// their info is 0.
void factorEachMatrix(const OpCall& call, int64_t count, bool empty, size_t info_output,
                      const std::function<int(int64_t index)>& factor);
// factorEachMatrix for the kernels that rewrite each square matrix of x
// (input 0, checked by checkMatrices) in place into output 0 (Cholesky,
// CholeskyInverse, LdlFactor): matrix `index` is loaded column-major into an
// n x n scratch `a`, update(index, a) runs LAPACK on it and returns its info,
// and a is stored into output 0.
void updateEachSquareMatrix(const OpCall& call, const Matrices& x, size_t info_output,
                            const std::function<int(int64_t index, float* a)>& update);

// ---- Solves with a factorisation (LuSolve, LdlSolve, CholeskySolve) ----------

// Where a solve kernel x = A^-1 b finds A's factor and b.
struct FactorSolveInputs {
  size_t factor;            // a batch of square n x n factors
  const char* factor_name;  // its name in messages: "lu", "ld", "factor"
  size_t b;                 // a batch of n x nrhs right-hand sides
  int pivots;               // int32 pivots, shape factor batch + [n]; -1: none
};

// The operands of a solve seen as matrices, with their broadcast batch.
struct FactorSolve {
  Matrices factor, b;
  Shape batch;  // x's batch
};

// Note [Solve operands in input order]
// The factor and b are checked, and named in messages, in the order of their
// inputs (LuSolve, LdlSolve: factor first; CholeskySolve: b first), so that
// every kernel reports the first bad operand as it always did.

// The factor and b checked by checkMatrices, their batches broadcast.
FactorSolve factorSolveOperands(const OpCall& call, const FactorSolveInputs& in);
// All of a solve kernel's checks but its arity and attributes: the operands,
// b's dtype is the factor's, the pivots, b has n rows, and output x is
// batch + [n, nrhs] of that dtype.
FactorSolve checkFactorSolve(const OpCall& call, const FactorSolveInputs& in);
// For every matrix of the batch: loads the factor into `a` (column-major
// n x n) and b into `x` (column-major n x nrhs), calls
// solve(factor_index, a, x) to solve in place and stores x into output 0.
// Does nothing when n or nrhs is 0.
void solveEachMatrix(const OpCall& call, const FactorSolveInputs& in, const FactorSolve& s,
                     const std::function<void(int64_t factor_index, const float* a, float* x)>& solve);
// AI CPU cost of the solves: 2 n^2 nrhs FLOPs a matrix.
KernelCost factorSolveCost(const OpCall& call, const FactorSolve& s);

// LAPACK FLOP counts of one matrix (LAWN 41), used by the kernels' costs.
double luFlops(double m, double n);               // getrf
double qrFlops(double m, double n);               // geqrf
double orgqrFlops(double m, double n, double k);  // orgqr / ormqr (applying k reflectors)

}  // namespace linalg
}  // namespace ascend_sim
