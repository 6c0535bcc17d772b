/*
 * One OpenBLAS for the whole build: OpenCV's BLAS/LAPACK calls, forwarded to NumPy's.
 *
 * The opencv-python wheel carries its own OpenBLAS (39 MB with libgfortran) for the
 * 19 routines below; NumPy already ships one (scipy-openblas64, 25 MB). The build puts
 * this library in place of OpenCV's, under the same file name, so cv2 loads it instead.
 *
 * OpenCV calls the LP64 interface (32-bit integers); NumPy's OpenBLAS is ILP64 (64-bit
 * integers, symbols named scipy_<name>64_ / scipy_<name>_64_). Every call copies the
 * integer arguments and integer arrays (pivots, the SVD's iwork) to 64 bits and back.
 * Character arguments are passed with gfortran's hidden length (1).
 *
 * Built by packaging/blas_shim/build_shim.py; tested by tests/packaging/test_blas_shim.py.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef int64_t i64;

/* ---- CBLAS gemm: integers by value, the enums are C ints in both interfaces ---- */

extern void scipy_cblas_sgemm64_(int, int, int, i64, i64, i64, float, const float *, i64,
                                 const float *, i64, float, float *, i64);
extern void scipy_cblas_dgemm64_(int, int, int, i64, i64, i64, double, const double *, i64,
                                 const double *, i64, double, double *, i64);
extern void scipy_cblas_cgemm64_(int, int, int, i64, i64, i64, const void *, const void *, i64,
                                 const void *, i64, const void *, void *, i64);
extern void scipy_cblas_zgemm64_(int, int, int, i64, i64, i64, const void *, const void *, i64,
                                 const void *, i64, const void *, void *, i64);

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc) {
    scipy_cblas_sgemm64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                 int lda, const double *b, int ldb, double beta, double *c, int ldc) {
    scipy_cblas_dgemm64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_cgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                 int ldc) {
    scipy_cblas_cgemm64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_zgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                 const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                 int ldc) {
    scipy_cblas_zgemm64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* ---- LAPACK (Fortran interface: every argument by reference) ---- */

/* a 64-bit copy of an int array (NULL when it cannot be had: the call then reports it) */
static i64 *widen(const int *src, i64 count) {
    i64 *out = malloc((size_t)(count > 0 ? count : 1) * sizeof(i64));
    if (out != NULL && src != NULL) {
        for (i64 k = 0; k < count; k++) out[k] = src[k];
    }
    return out;
}

static void narrow(int *dst, const i64 *src, i64 count) {
    for (i64 k = 0; k < count; k++) dst[k] = (int)src[k];
}

#define MIN(a, b) ((a) < (b) ? (a) : (b))
/* LAPACK's own code for "could not allocate" is not defined; -1000 is outside its range */
#define NO_MEMORY (-1000)

/* xGESV: solve A X = B (LU with partial pivoting) */
#define GESV(T, X)                                                                          \
    extern void scipy_##X##gesv_64_(i64 *, i64 *, T *, i64 *, i64 *, T *, i64 *, i64 *);    \
    void X##gesv_(int *n, int *nrhs, T *a, int *lda, int *ipiv, T *b, int *ldb, int *info) { \
        i64 n8 = *n, nrhs8 = *nrhs, lda8 = *lda, ldb8 = *ldb, info8 = 0;                   \
        i64 *ipiv8 = widen(NULL, n8);                                                       \
        if (ipiv8 == NULL) { *info = NO_MEMORY; return; }                                   \
        scipy_##X##gesv_64_(&n8, &nrhs8, a, &lda8, ipiv8, b, &ldb8, &info8);                \
        narrow(ipiv, ipiv8, n8);                                                            \
        free(ipiv8);                                                                        \
        *info = (int)info8;                                                                 \
    }
GESV(float, s)
GESV(double, d)

/* xGETRF: LU factorisation */
#define GETRF(T, X)                                                                  \
    extern void scipy_##X##getrf_64_(i64 *, i64 *, T *, i64 *, i64 *, i64 *);       \
    void X##getrf_(int *m, int *n, T *a, int *lda, int *ipiv, int *info) {           \
        i64 m8 = *m, n8 = *n, lda8 = *lda, info8 = 0, k = MIN(m8, n8);               \
        i64 *ipiv8 = widen(NULL, k);                                                 \
        if (ipiv8 == NULL) { *info = NO_MEMORY; return; }                            \
        scipy_##X##getrf_64_(&m8, &n8, a, &lda8, ipiv8, &info8);                     \
        narrow(ipiv, ipiv8, k);                                                      \
        free(ipiv8);                                                                 \
        *info = (int)info8;                                                          \
    }
GETRF(float, s)
GETRF(double, d)

/* xPOTRF: Cholesky factorisation */
#define POTRF(T, X)                                                                  \
    extern void scipy_##X##potrf_64_(char *, i64 *, T *, i64 *, i64 *, size_t);      \
    void X##potrf_(char *uplo, int *n, T *a, int *lda, int *info) {                  \
        i64 n8 = *n, lda8 = *lda, info8 = 0;                                         \
        scipy_##X##potrf_64_(uplo, &n8, a, &lda8, &info8, 1);                        \
        *info = (int)info8;                                                          \
    }
POTRF(float, s)
POTRF(double, d)

/* xPOSV: solve A X = B for a symmetric positive definite A */
#define POSV(T, X)                                                                            \
    extern void scipy_##X##posv_64_(char *, i64 *, i64 *, T *, i64 *, T *, i64 *, i64 *,      \
                                    size_t);                                                  \
    void X##posv_(char *uplo, int *n, int *nrhs, T *a, int *lda, T *b, int *ldb, int *info) { \
        i64 n8 = *n, nrhs8 = *nrhs, lda8 = *lda, ldb8 = *ldb, info8 = 0;                     \
        scipy_##X##posv_64_(uplo, &n8, &nrhs8, a, &lda8, b, &ldb8, &info8, 1);                \
        *info = (int)info8;                                                                   \
    }
POSV(float, s)
POSV(double, d)

/* xGESDD: singular value decomposition (divide and conquer); iwork is 8 * min(m, n) */
#define GESDD(T, X)                                                                          \
    extern void scipy_##X##gesdd_64_(char *, i64 *, i64 *, T *, i64 *, T *, T *, i64 *, T *, \
                                     i64 *, T *, i64 *, i64 *, i64 *, size_t);               \
    void X##gesdd_(char *jobz, int *m, int *n, T *a, int *lda, T *s, T *u, int *ldu, T *vt,  \
                   int *ldvt, T *work, int *lwork, int *iwork, int *info) {                  \
        i64 m8 = *m, n8 = *n, lda8 = *lda, ldu8 = *ldu, ldvt8 = *ldvt, lwork8 = *lwork;      \
        i64 info8 = 0, count = 8 * MIN(m8, n8);                                              \
        i64 *iwork8 = widen(NULL, count);                                                    \
        if (iwork8 == NULL) { *info = NO_MEMORY; return; }                                   \
        scipy_##X##gesdd_64_(jobz, &m8, &n8, a, &lda8, s, u, &ldu8, vt, &ldvt8, work,        \
                             &lwork8, iwork8, &info8, 1);                                    \
        if (iwork != NULL) narrow(iwork, iwork8, count);                                     \
        free(iwork8);                                                                        \
        *info = (int)info8;                                                                  \
    }
GESDD(float, s)
GESDD(double, d)

/* xGEQRF: QR factorisation */
#define GEQRF(T, X)                                                                          \
    extern void scipy_##X##geqrf_64_(i64 *, i64 *, T *, i64 *, T *, T *, i64 *, i64 *);      \
    void X##geqrf_(int *m, int *n, T *a, int *lda, T *tau, T *work, int *lwork, int *info) { \
        i64 m8 = *m, n8 = *n, lda8 = *lda, lwork8 = *lwork, info8 = 0;                      \
        scipy_##X##geqrf_64_(&m8, &n8, a, &lda8, tau, work, &lwork8, &info8);                \
        *info = (int)info8;                                                                  \
    }
GEQRF(float, s)
GEQRF(double, d)

/* xGELS: least squares by QR or LQ */
#define GELS(T, X)                                                                              \
    extern void scipy_##X##gels_64_(char *, i64 *, i64 *, i64 *, T *, i64 *, T *, i64 *, T *,   \
                                    i64 *, i64 *, size_t);                                      \
    void X##gels_(char *trans, int *m, int *n, int *nrhs, T *a, int *lda, T *b, int *ldb,      \
                  T *work, int *lwork, int *info) {                                             \
        i64 m8 = *m, n8 = *n, nrhs8 = *nrhs, lda8 = *lda, ldb8 = *ldb, lwork8 = *lwork;         \
        i64 info8 = 0;                                                                          \
        scipy_##X##gels_64_(trans, &m8, &n8, &nrhs8, a, &lda8, b, &ldb8, work, &lwork8, &info8, \
                            1);                                                                 \
        *info = (int)info8;                                                                     \
    }
GELS(float, s)
GELS(double, d)

/* DGEEV: eigenvalues and eigenvectors of a general matrix */
extern void scipy_dgeev_64_(char *, char *, i64 *, double *, i64 *, double *, double *, double *,
                            i64 *, double *, i64 *, double *, i64 *, i64 *, size_t, size_t);
void dgeev_(char *jobvl, char *jobvr, int *n, double *a, int *lda, double *wr, double *wi,
            double *vl, int *ldvl, double *vr, int *ldvr, double *work, int *lwork, int *info) {
    i64 n8 = *n, lda8 = *lda, ldvl8 = *ldvl, ldvr8 = *ldvr, lwork8 = *lwork, info8 = 0;
    scipy_dgeev_64_(jobvl, jobvr, &n8, a, &lda8, wr, wi, vl, &ldvl8, vr, &ldvr8, work, &lwork8,
                    &info8, 1, 1);
    *info = (int)info8;
}
