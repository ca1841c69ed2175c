/* gnn_kernels.c - the GNN's row and matrix helpers (see gnn_kernels.h). */
#include "core/gnn_kernels.h"

#include <cblas.h>

#define BLK GK_BLK

void gk_relu_to(const float *restrict in, float *restrict out, size_t n)
{
    size_t i = 0;
    for (; i + BLK <= n; i += BLK)
        for (int j = 0; j < BLK; j++)
            out[i + j] = in[i + j] > 0 ? in[i + j] : 0;
    for (; i < n; i++)
        out[i] = in[i] > 0 ? in[i] : 0;
}

void gk_relu_inplace(float *x, size_t n)
{
    size_t i = 0;
    for (; i + BLK <= n; i += BLK)
        for (int j = 0; j < BLK; j++)
            x[i + j] = x[i + j] > 0 ? x[i + j] : 0;
    for (; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

void gk_dense(int m, int n, int k, const float *A, const float *B, const float *bias, float *C)
{
    if (m == 0)
        return;
    if (bias)
        for (int i = 0; i < m; i++)
            gk_copy_row(C + (size_t)i * n, bias, n);
    else
        memset(C, 0, sizeof(float) * (size_t)m * (size_t)n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 1.0f, C, n);
}

void gk_dense_back(int m, int n, int k, const float *A, const float *W, const float *dC, float *dW,
                   float *db, float *dA)
{
    if (m == 0)
        return;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, n, m, 1.0f, A, k, dC, n, 1.0f, dW, n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            db[j] += dC[(size_t)i * n + j];
    if (dA)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, k, n, 1.0f, dC, n, W, n, 0.0f, dA,
                    k);
}

void gk_readout_pool(const float *restrict h, const int *restrict cls, int b0, int b1, int H,
                     float *restrict sum, float *restrict mx)
{
    const float *first = h + (size_t)cls[b0] * H;
    memcpy(sum, first, sizeof(float) * (size_t)H);
    memcpy(mx, first, sizeof(float) * (size_t)H);
    for (int i = b0 + 1; i < b1; i++) {
        const float *restrict row = h + (size_t)cls[i] * H;
        int k = 0;
        for (; k + BLK <= H; k += BLK)
            for (int j = 0; j < BLK; j++) {
                sum[k + j] += row[k + j];
                mx[k + j] = row[k + j] > mx[k + j] ? row[k + j] : mx[k + j];
            }
        for (; k < H; k++) {
            sum[k] += row[k];
            mx[k] = row[k] > mx[k] ? row[k] : mx[k];
        }
    }
}

/* ---- small products with a fixed width ------------------------------- */

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define GK_X86 1

#define AVX2 __attribute__((target("avx2,fma")))

/* One row of width 24 or 32: c = init + a[0..k) B (the accumulators
 * named, so that they stay in registers). */
static AVX2 void row_24_32(int n, int k, const float *a, const float *B, const float *init,
                           float *c)
{
    __m256 c0 = _mm256_loadu_ps(init), c1 = _mm256_loadu_ps(init + 8);
    __m256 c2 = _mm256_loadu_ps(init + 16), c3 = _mm256_setzero_ps();
    if (n == 32) {
        c3 = _mm256_loadu_ps(init + 24);
        for (int p = 0; p < k; p++) {
            __m256 av = _mm256_broadcast_ss(a + p);
            const float *b = B + (size_t)p * 32;
            c0 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b), c0);
            c1 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + 8), c1);
            c2 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + 16), c2);
            c3 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + 24), c3);
        }
        _mm256_storeu_ps(c + 24, c3);
    } else {
        for (int p = 0; p < k; p++) {
            __m256 av = _mm256_broadcast_ss(a + p);
            const float *b = B + (size_t)p * 24;
            c0 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b), c0);
            c1 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + 8), c1);
            c2 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + 16), c2);
        }
    }
    _mm256_storeu_ps(c, c0);
    _mm256_storeu_ps(c + 8, c1);
    _mm256_storeu_ps(c + 16, c2);
}

#define FMA3(r, av)                                                                                \
    do {                                                                                           \
        c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                                \
        c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);                                                \
        c##r##2 = _mm256_fmadd_ps(av, b2, c##r##2);                                                \
    } while (0)
#define LOAD3(r, p)                                                                                \
    __m256 c##r##0 = _mm256_loadu_ps(p), c##r##1 = _mm256_loadu_ps((p) + 8),                       \
           c##r##2 = _mm256_loadu_ps((p) + 16)
#define STORE3(r, p)                                                                               \
    do {                                                                                           \
        _mm256_storeu_ps(p, c##r##0);                                                              \
        _mm256_storeu_ps((p) + 8, c##r##1);                                                        \
        _mm256_storeu_ps((p) + 16, c##r##2);                                                       \
    } while (0)

/* Four rows of width 24: twelve accumulators, three B vectors, one
 * broadcast (the sixteen ymm registers). */
static AVX2 void rows4_24(int k, const float *a, size_t lda, const float *B, const float *bias,
                          float *c)
{
    const float *i0 = bias ? bias : c, *i1 = bias ? bias : c + 24, *i2 = bias ? bias : c + 48,
                *i3 = bias ? bias : c + 72;
    LOAD3(0, i0);
    LOAD3(1, i1);
    LOAD3(2, i2);
    LOAD3(3, i3);
    for (int p = 0; p < k; p++) {
        const float *b = B + (size_t)p * 24;
        __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), b2 = _mm256_loadu_ps(b + 16);
        FMA3(0, _mm256_broadcast_ss(a + p));
        FMA3(1, _mm256_broadcast_ss(a + lda + p));
        FMA3(2, _mm256_broadcast_ss(a + 2 * lda + p));
        FMA3(3, _mm256_broadcast_ss(a + 3 * lda + p));
    }
    STORE3(0, c);
    STORE3(1, c + 24);
    STORE3(2, c + 48);
    STORE3(3, c + 72);
}

static AVX2 void gemm_avx2(int m, int n, int k, const float *A, int lda, const float *B,
                           const float *bias, float *C)
{
    int i = 0;
    if (n == 24)
        for (; i + 4 <= m; i += 4)
            rows4_24(k, A + (size_t)i * lda, (size_t)lda, B, bias, C + (size_t)i * 24);
    for (; i < m; i++) {
        const float *a = A + (size_t)i * lda;
        float *c = C + (size_t)i * n;
        const float *init = bias ? bias : c;
        if (n == 24 || n == 32)
            row_24_32(n, k, a, B, init, c);
        else
            for (int j = 0; j < n; j++) {
                float s = init[j];
                for (int p = 0; p < k; p++)
                    s = __builtin_fmaf(a[p], B[(size_t)p * n + j], s);
                c[j] = s;
            }
    }
}
#endif

void gk_gemm(int m, int n, int k, const float *A, int lda, const float *B, const float *bias,
             float *C)
{
    if (m <= 0)
        return;
#ifdef GK_X86
    if ((n == 24 || n == 32 || n == 3) && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma")) {
        gemm_avx2(m, n, k, A, lda, B, bias, C);
        return;
    }
#endif
    if (bias)
        for (int i = 0; i < m; i++)
            gk_copy_row(C + (size_t)i * n, bias, n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, lda, B, n, 1.0f, C, n);
}
