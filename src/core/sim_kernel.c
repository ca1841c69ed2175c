/*
 * sim_kernel.c - the time of one GPU kernel: a roofline with size-dependent
 * efficiency. Compute time uses the tensor-core peak when the precision and
 * the op allow it (CUDA cores otherwise), scaled by the best CTA tiling's
 * tile and wave quantisation over the SMs (with split-K for small outputs),
 * a K-length term, alignment and grouping penalties. Memory time uses the
 * DRAM bandwidth with penalties for reductions and gathers. The kernel takes
 * the larger of the two (overlap); fixed launch costs are added by sim.c.
 */
#include <math.h>

#include "core/sim_impl.h"

/* The share of the SMs busy over the waves that n CTAs need (the last wave
 * may run part-full). */
static double wave_fill(double ctas, int sms)
{
    return ctas / (ceil(ctas / sms) * sms);
}

/* A fused attention kernel's efficiency: one CTA per block of q_block
 * queries of each sequence and head, with the keys, the softmax and the
 * context product inside it (a 128-wide tile's main-loop peak, the head
 * size as K), and as many waves as those CTAs need. When they cannot fill
 * the GPU, the keys are split across CTAs too and the partial results
 * merged in a second pass (FlashAttention's split-KV heuristic), as GEMMs
 * split K: at least 128 keys per split. */
static double attention_size_eff(const struct sim_kernel_in *in, int sms)
{
    const struct sim_fixed *f = &sim_fixed;
    double qb = in->q_block > 0 && in->q_block < in->m ? in->q_block : in->m;
    double blocks = ceil(in->m / qb);
    double rows_q = in->m / (blocks * qb);
    double k_q = in->k / (in->k + f->attn_k_half), best = 0;
    for (int s = 1; s <= f->split_k_max; s *= 2) {
        if (s > 1 && in->n / s < f->split_k_min_k)
            break;
        double ctas = blocks * in->batches * s;
        double e = f->tile_peak[1] * rows_q * wave_fill(ctas, sms) * k_q;
        if (s > 1)
            e *= 0.9; /* the partial results are merged in a second pass */
        if (e > best)
            best = e;
    }
    return best;
}

/* Best efficiency over the tile shapes and split-K factors for an
 * M x N x K GEMM repeated `batches` times on `sms` SMs; with only_tile >= 0
 * that one tile, no split-K and no small-M kernel (a library that does not
 * choose by shape). */
static double gemm_size_eff(double m, double n, double k, double batches, int sms, bool simt,
                            double k_half, int only_tile)
{
    const struct sim_fixed *f = &sim_fixed;
    /* A few rows (decode steps, batch-1 Linear layers): the libraries switch
     * to matrix-vector or small-M kernels that stream the weights row-block
     * by row-block; CUDA-core (SIMT) kernels lose nothing to M padding, and
     * tensor-core ones pad M only to the MMA height (16), not to a CTA tile. */
    double best = 0;
    if (m <= f->skinny_m && only_tile < 0) {
        double rows_q = simt ? 1.0 : m / (16.0 * ceil(m / 16.0));
        double tiles = ceil(n / f->skinny_n) * batches;
        best = f->skinny_peak * rows_q * wave_fill(tiles, sms) * k / (k + k_half);
    }
    /* ... or a tiled kernel, whichever is faster (so time never falls as M
     * grows past the small-M range). */
    for (int t = 0; t < SIM_N_TILES; t++) {
        if (only_tile >= 0 && t != only_tile)
            continue;
        double tm = f->tile_m[t], tn = f->tile_n[t];
        double mt = ceil(m / tm), nt = ceil(n / tn);
        double tile_q = (m * n) / (mt * tm * nt * tn);
        for (int s = 1; s <= f->split_k_max; s *= 2) {
            double ks = k / s;
            if (s > 1 && (ks < f->split_k_min_k || only_tile >= 0))
                break;
            double tiles = mt * nt * batches * s;
            double k_q = ks / (ks + k_half);
            double e = f->tile_peak[t] * tile_q * wave_fill(tiles, sms) * k_q;
            if (s > 1)
                e *= 0.9; /* partial sums are reduced in a second pass */
            if (e > best)
                best = e;
        }
    }
    return best;
}

static bool aligned(double v, int elems)
{
    if (elems <= 0)
        return true;
    double q = v / elems;
    return fabs(q - floor(q + 0.5)) < 1e-9;
}

double sim_overlap(double c, double m, double p)
{
    double hi = c > m ? c : m, lo = c > m ? m : c;
    /* below 2% of the larger, the smaller adds under 0.01% (p >= 1.5) */
    if (hi <= 0 || lo <= 0.02 * hi || p >= 30)
        return hi;
    return hi * pow(1 + pow(lo / hi, p), 1 / p);
}

/* The fraction of the table's math peaks the GPU holds under load beyond
 * what tc_eff (fitted on A100) covers: Hopper parts run below boost. */
static double clock_keep(const struct hw *hw, const struct sim_params *p)
{
    const char *fam = hw->gpu ? hw->gpu->family : "";
    return fam[0] == 'H' ? p->hopper_clock : 1.0;
}

/* 0 below share x cap, 1 past (1 + soft) x it, linear between. */
static double over_share(double used, double cap, double share, double soft)
{
    double c = cap * share;
    if (!(c > 0) || used <= c)
        return used > 0 && !(c > 0) ? 1.0 : 0.0;
    double x = (used - c) / (c * (soft > 1e-6 ? soft : 1e-6));
    return x < 1 ? x : 1.0;
}

double sim_row_miss(const struct hw *hw, const struct sim_params *p, double row_bytes,
                    int block)
{
    const struct sim_board *board = sim_board_of(hw);
    if (!(row_bytes > 0) || block <= 0 || !(board->l1_kib > 0))
        return 0;
    int resident = board->sm_threads / block;
    double per_sm = (resident > 1 ? resident : 1) * row_bytes;
    double l1 = over_share(per_sm, board->l1_kib * 1024, p->row_cache, p->row_cache_soft);
    double l2 = over_share(per_sm * hw->sms, hw->l2_bytes, p->row_cache, p->row_cache_soft);
    return l1 * l2;
}

/* What a matrix product or convolution runs at: the peak it runs on
 * (tensor cores, or the CUDA cores' FP32 or vector peak), its efficiency
 * against that peak and the share of in->flops its algorithm executes. */
struct gemm_rate {
    double peak, eff, algo;
    bool tc;
};

static struct gemm_rate gemm_rate(const struct hw *hw, const struct config *cfg,
                                  const struct sim_params *p, const struct sim_kernel_in *in,
                                  double vec_peak, bool half)
{
    const struct sim_fixed *f = &sim_fixed;
    const struct sim_board *board = sim_board_of(hw);
    struct gemm_rate r = {.algo = 1};
    double peak, eff;
    /* "fp32" is each runtime's default, not strict FP32. Eager PyTorch
     * lets cuDNN convolutions use TF32 tensor cores
     * (torch.backends.cudnn.allow_tf32 = True) and keeps matrix products
     * in FP32 (torch.backends.cuda.matmul.allow_tf32 = False); TensorRT
     * builds FP32 engines with TF32 allowed (BuilderFlag kTF32 is on by
     * default), so every GEMM and convolution may run TF32; so does
     * ONNX Runtime's CUDA execution provider (use_tf32 is on by
     * default; before that option its float GEMMs set cuBLAS's TF32
     * math mode on Ampere and newer). A GPU without TF32 tensor cores
     * (T4, V100) runs them on CUDA cores. */
    bool tf32_conv = cfg->prec == PREC_FP32 && hw->peak_tf32_flops > 0 &&
                     (runtime_engine(cfg->rt) || runtime_onnxruntime(cfg->rt) ||
                      in->cls == OPC_CONV);
    bool tc = cfg->prec != PREC_FP32 || tf32_conv;
    /* An FP32 batched matrix product on CUDA cores: the family's
     * library may run one tile whatever the shape (sim_board). */
    int simt_tile = in->batches > 1 && in->cls != OPC_CONV ? board->batched_sgemm_tile : -1;
    double simt_keep = simt_tile >= 0 ? p->batched_sgemm_eff : 1.0;
    double size = in->attention && in->m > f->skinny_m
                      ? attention_size_eff(in, hw->sms)
                      : gemm_size_eff(in->m, in->n, in->k, in->batches, hw->sms, !tc,
                                      tc ? p->k_half : p->simt_k_half, tc ? -1 : simt_tile);
    if (tc) {
        enum precision ep = tf32_conv ? PREC_TF32 : cfg->prec;
        r.tc = true;
        peak = tf32_conv ? hw->peak_tf32_flops : hw->peak_flops;
        eff = p->tc_eff[runtime_base(cfg->rt)] * size;
        int al = f->align_elems[ep];
        if (!aligned(in->k, al) || !aligned(in->n, al))
            eff *= f->misalign_eff;
        if (in->grouped)
            eff *= f->grouped_eff;
        if (in->cls == OPC_CONV)
            eff *= p->conv_eff[runtime_base(cfg->rt)];
        /* A few rows: a CUDA-core matrix-vector kernel (half2 math for
         * 16-bit types) beats tensor cores padded to 16 rows. More rows:
         * a 16-bit matrix product is never slower than the FP32 one on
         * the CUDA cores (cuBLAS can run it so, FP32 compute), which
         * matters where tensor cores are only a few times the CUDA
         * cores and the product is small and misaligned (L4: 121 vs 30
         * TFLOPS; an N=10 head). */
        bool skinny = in->m <= f->skinny_m && !in->grouped;
        bool sgemm = !skinny && half && !in->attention && in->cls != OPC_CONV;
        double simt = skinny || sgemm
                          ? p->cuda_eff * board->fp32_keep * simt_keep *
                                gemm_size_eff(in->m, in->n, in->k, in->batches,
                                              hw->sms, true, p->simt_k_half, simt_tile)
                          : 0;
        double simt_peak = sgemm ? hw->peak_fp32_flops : vec_peak;
        if (sgemm && in->grouped)
            simt *= f->grouped_eff;
        if (simt_peak * simt > peak * eff) {
            r.tc = false;
            peak = simt_peak;
            eff = simt;
        }
    } else if (in->cls == OPC_CONV) {
        /* An FP32 convolution on CUDA cores. cuDNN runs it as an
         * implicit SGEMM (its kernels are the volta/ampere sgemm ones
         * cuBLAS runs), or, for a 3x3 stride-1 kernel, with Winograd's
         * or FFT's transforms, which do a fraction of the direct
         * convolution's multiplications: that rate, in direct FLOPs,
         * is simt_winograd against cuda_eff (sim_params.c). conv_eff
         * is the tensor-core convolutions' loss against their GEMMs
         * and does not apply here; neither does fp32_keep, each
         * family's SGEMM share, which its Winograd rows do not show. */
        peak = hw->peak_fp32_flops;
        eff = p->cuda_eff * size;
        if (in->winograd)
            r.algo = 1.0 / f->simt_winograd;
        else
            eff *= board->fp32_keep;
        if (in->grouped)
            eff *= f->grouped_eff;
    } else {
        peak = hw->peak_fp32_flops;
        eff = p->cuda_eff * size * board->fp32_keep * simt_keep;
        if (in->grouped)
            eff *= f->grouped_eff;
    }
    r.peak = peak;
    r.eff = eff;
    return r;
}

/* The share of the DRAM bandwidth a kernel of in's class keeps, from the
 * runtime's streaming share bw_eff. */
static double kernel_bw_eff(const struct hw *hw, const struct sim_params *p,
                            const struct sim_kernel_in *in, double bw_eff)
{
    const struct sim_fixed *f = &sim_fixed;
    const struct sim_board *board = sim_board_of(hw);
    switch (in->cls) {
    case OPC_REDUCE: bw_eff *= f->reduce_bw_eff; break;
    case OPC_NORM: bw_eff *= p->norm_bw_eff; break;
    case OPC_GATHER: bw_eff *= f->gather_bw_eff; break;
    default: break;
    }
    bw_eff *= board->bw_keep;
    if (bw_eff > 1)
        bw_eff = 1;
    /* a block softmax's scalar tail: as many bytes as its resident threads
     * keep in flight (sim_params.c softmax_thread_bpc) */
    if (in->row_tail && hw->gpu) {
        double supply = hw->sms * board->sm_threads * hw->gpu->clock_mhz * 1e6 *
                        p->softmax_thread_bpc;
        if (supply < hw->bw_bytes * bw_eff)
            bw_eff = supply / hw->bw_bytes;
    }
    return bw_eff;
}

void sim_kernel_time(const struct hw *hw, const struct config *cfg, const struct sim_params *p,
                     const struct sim_kernel_in *in, struct sim_kernel_out *out)
{
    const struct sim_fixed *f = &sim_fixed;
    bool half = cfg->prec == PREC_FP16 || cfg->prec == PREC_BF16 || cfg->prec == PREC_INT8 ||
                cfg->prec == PREC_FP8;
    /* CUDA-core vector peak: packed half2 math doubles FP32's rate. */
    double vec_peak = hw->peak_fp32_flops * (half ? 2.0 : 1.0);
    double peak = vec_peak, eff = f->vec_eff, bw_eff = p->bw_eff;
    double algo = 1; /* the share of in->flops the kernel's algorithm executes */
    out->tc = false;
    out->eff = 0;

    if (in->gemm && in->depthwise) {
        eff = f->dw_eff;
        bw_eff *= p->dw_bw_eff[runtime_base(cfg->rt)];
    } else if (in->gemm) {
        struct gemm_rate g = gemm_rate(hw, cfg, p, in, vec_peak, half);
        peak = g.peak;
        eff = g.eff;
        algo = g.algo;
        out->tc = g.tc;
        out->eff = eff;
    }
    /* No kernel beats the roofline: a family's fitted share (sim_board) may
     * exceed 1 where its table peak underrates the board (V100 PCIe holds
     * its boost clock under an SGEMM), but never the peak itself. */
    if (eff < 1e-6)
        eff = 1e-6;
    if (eff > 1)
        eff = 1;
    bw_eff = kernel_bw_eff(hw, p, in, bw_eff);
    /* Fused epilogue math (bias, activation) runs on the CUDA cores while
     * other tiles' main loops keep the tensor cores busy: the two overlap as
     * compute and memory do (sim_overlap). */
    double keep = clock_keep(hw, p);
    out->clock = keep;
    out->peak = peak;
    double main_s = in->flops * algo / (peak * eff * keep);
    double epi_s = in->vec_flops / (vec_peak * f->vec_eff * keep);
    out->compute_s = sim_overlap(main_s, epi_s, p->overlap_p);
    double reread = in->reread_bytes > 0
                        ? in->reread_bytes *
                              sim_row_miss(hw, p, in->row_bytes, in->row_block)
                        : 0;
    out->memory_s = (in->bytes + reread) / (hw->bw_bytes * bw_eff);
    /* the roofline of the arithmetic the algorithm does (a Winograd
     * convolution's, fewer FLOPs than the direct one counts) */
    double ideal_c = in->flops * algo / peak + in->vec_flops / vec_peak;
    double ideal_m = in->bytes / hw->bw_bytes;
    out->roofline_s = ideal_c > ideal_m ? ideal_c : ideal_m;
}
