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

void gk_relu_add_to(const float *restrict z, const float *restrict skip, float *restrict out,
                    size_t n)
{
    size_t i = 0;
    for (; i + BLK <= n; i += BLK)
        for (int j = 0; j < BLK; j++)
            out[i + j] = (z[i + j] > 0 ? z[i + j] : 0) + skip[i + j];
    for (; i < n; i++)
        out[i] = (z[i] > 0 ? z[i] : 0) + skip[i];
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

void gk_dense_back(int m, int n, int k, const float *A, const float *W, const float *dC,
                   float *dW, float *db, float *dA)
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
