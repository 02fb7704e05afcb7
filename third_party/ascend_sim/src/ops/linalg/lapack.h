// The single-precision LAPACK and BLAS routines behind the linear algebra
// kernels, called through their Fortran symbols (Debian's liblapack.so.3 /
// libblas.so.3, i.e. OpenBLAS, the library PyTorch's CPU kernels call too).
//
// Note [Fortran calling convention]
// Every argument is passed by pointer, matrices are column-major with a
// leading dimension (lda >= max(1, rows)), and each CHARACTER argument has a
// hidden length argument appended after the declared ones (gfortran's ABI);
// routines implemented in C ignore the extra arguments, so passing them is
// correct for both. Integers are 32-bit (LP64 LAPACK).
#pragma once

#include <cstddef>

extern "C" {
// LU with partial pivoting and its solve.
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t trans_len);
// Cholesky, its solve and its inverse.
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void spotrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, float* b, const int* ldb,
             int* info, size_t uplo_len);
void spotri_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
// Householder QR and its reflectors.
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info,
             size_t side_len, size_t trans_len);
// SVD (divide and conquer) and the symmetric eigensolver (divide and conquer).
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t jobz_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
// The symmetric eigensolver by QR iteration (torch.symeig's routine).
void ssyev_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
            const int* lwork, int* info, size_t jobz_len, size_t uplo_len);
// Least squares: QR (gels), complete orthogonal factorisation (gelsy), SVD
// (gelsd: divide and conquer, gelss: QR iteration).
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
            const int* ldb, float* work, const int* lwork, int* info, size_t trans_len);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
// Symmetric indefinite (Bunch-Kaufman) factorisation and its solve.
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, size_t uplo_len);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info, size_t uplo_len);
// BLAS: triangular solve with several right-hand sides, matrix product.
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, size_t side_len,
            size_t uplo_len, size_t transa_len, size_t diag_len);
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc,
            size_t transa_len, size_t transb_len);
}
