/*
 * sim_graphs.h - hand-built test graphs for the teacher: shapes, dtypes and
 * node costs are set directly (independently of graph/ops/shape.c), with the
 * cost conventions of ir.h (1 MAC = 2 FLOPs; bytes by element type).
 */
#ifndef DIPPM_TEST_SIM_GRAPHS_H
#define DIPPM_TEST_SIM_GRAPHS_H

#include <stdint.h>

#include "graph/ir/ir.h"

/* y[M,N] = x[M,K] @ W[K,N] (W an initializer), float32. */
struct graph *sg_gemm(int64_t m, int64_t k, int64_t n);
/* n_layers of MatMul -> Add(bias) -> Relu on [batch, width]. */
struct graph *sg_mlp(int64_t batch, int64_t width, int n_layers);
/* Stem conv then n_blocks residual blocks Conv-BN-Relu-Conv-BN-Add-Relu on
 * [batch, ch, hw, hw], then GlobalAveragePool, Flatten, Gemm to 1000. */
struct graph *sg_cnn(int64_t batch, int64_t ch, int64_t hw, int n_blocks);
/* One attention block: MatMul(q,k^T) -> Softmax -> MatMul(v), Transpose,
 * Reshape, with LayerNorm, on [batch, seq, d]. */
struct graph *sg_attn(int64_t batch, int64_t seq, int64_t d);

/* One depthwise 3x3 Conv (group = ch) on [batch, ch, hw, hw]. */
struct graph *sg_dwconv(int64_t batch, int64_t ch, int64_t hw);
/* MatMul then SiLU written as exporters write it: y = h * Sigmoid(h). */
struct graph *sg_swish(int64_t batch, int64_t width);

#endif
