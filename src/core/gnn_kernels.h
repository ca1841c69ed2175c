/*
 * gnn_kernels.h - the GNN's row and matrix helpers (gnn.c, gnn_train.c): row copies and
 * sums inlined into the hot loops, ReLU variants, dense layers and their
 * backward on OpenBLAS, the readout's pooling.
 *
 * The hot elementwise loops work in blocks of 8: a fixed trip count is what
 * -O2's cheap vectoriser accepts (it adds no epilogue for an unknown one).
 */
#ifndef DIPPM_GNN_KERNELS_H
#define DIPPM_GNN_KERNELS_H

#include <stddef.h>
#include <string.h>

#define GK_BLK 8

/* dst[0..n) = src[0..n): fixed-size blocks, which the compiler inlines as
 * vector moves (a call to memcpy per 24-float row costs more than the copy). */
static inline void gk_copy_row(float *restrict dst, const float *restrict src, int n)
{
    int k = 0;
    for (; k + GK_BLK <= n; k += GK_BLK)
        memcpy(dst + k, src + k, sizeof(float) * GK_BLK);
    for (; k < n; k++)
        dst[k] = src[k];
}

/* x[k] *= f. */
static inline void gk_scale_row(float *x, float f, int n)
{
    int k = 0;
    for (; k + GK_BLK <= n; k += GK_BLK)
        for (int j = 0; j < GK_BLK; j++)
            x[k + j] *= f;
    for (; k < n; k++)
        x[k] *= f;
}

/* dst[k] += src[k]. */
static inline void gk_add_row(float *restrict dst, const float *restrict src, int n)
{
    int k = 0;
    for (; k + GK_BLK <= n; k += GK_BLK)
        for (int j = 0; j < GK_BLK; j++)
            dst[k + j] += src[k + j];
    for (; k < n; k++)
        dst[k] += src[k];
}

/* out[k] = max(z[k], 0) + skip[k]: one row of a layer's output with its
 * residual. */
static inline void gk_relu_add_row(const float *restrict z, const float *restrict skip,
                                   float *restrict out, int n)
{
    int k = 0;
    for (; k + GK_BLK <= n; k += GK_BLK)
        for (int j = 0; j < GK_BLK; j++)
            out[k + j] = (z[k + j] > 0 ? z[k + j] : 0) + skip[k + j];
    for (; k < n; k++)
        out[k] = (z[k] > 0 ? z[k] : 0) + skip[k];
}

/* out = max(in, 0); in and out must not overlap (restrict is what lets
 * -O2 vectorise it: with a possible alias it compiles to a compare and a
 * branch per element, mispredicted half the time). */
void gk_relu_to(const float *restrict in, float *restrict out, size_t n);
/* x = max(x, 0) in place. */
void gk_relu_inplace(float *x, size_t n);

/* C[m x n] = A[m x k] B[k x n] + bias (broadcast rows; bias may be NULL). */
void gk_dense(int m, int n, int k, const float *A, const float *B, const float *bias, float *C);
/* dW[k x n] += A^T dC; db[n] += colsum(dC); dA[m x k] = dC W^T (if dA). */
void gk_dense_back(int m, int n, int k, const float *A, const float *W, const float *dC, float *dW,
                   float *db, float *dA);

/* C[m x n] = init + A[m x k] B[k x n], A's rows lda apart: init is bias
 * (broadcast to every row) or, with bias NULL, C itself (accumulate). For
 * n = 24 (every row) and n = 32 or 3 (heads, one row at a time) on a CPU
 * with AVX2 and FMA, a kernel with no call overhead whose every element is
 * one chain init, fma(A[i][0], B[0][j], .), ..., fma(A[i][k-1], B[k-1][j], .),
 * whatever the row's position in the blocks (the classes of a graph give
 * the same floats as its nodes would); otherwise OpenBLAS (and then, as
 * for training, the summation order is OpenBLAS's). */
void gk_gemm(int m, int n, int k, const float *A, int lda, const float *B, const float *bias,
             float *C);

/* The sum and the max, per column, of rows cls[b0..b1-1] (b1 > b0) of h
 * (H columns): all float and branch-free, so -O2 vectorises it. */
void gk_readout_pool(const float *restrict h, const int *restrict cls, int b0, int b1, int H,
                     float *restrict sum, float *restrict mx);

#endif
