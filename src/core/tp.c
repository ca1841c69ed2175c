/* tp.c - tensor parallelism: the shard of a decoder template and the
 * all-reduce cost (tp.h). */
#include "core/tp.h"

#include <stdio.h>
#include <string.h>

#include "core/predict.h"

/* Per-call latency of a small all-reduce. NVLink: NCCL's all_reduce_perf
 * with CUDA graphs on an 8x H100 HGX board reports about 6 us for messages
 * up to tens of KiB between two GPUs, and the custom one-shot kernels of
 * TensorRT-LLM and vLLM sit in the same few-us range. PCIe: the same ring
 * through the host bridge, about twice that (12 us, an estimate). */
#define TP_NVLINK_LATENCY_S 6e-6
#define TP_PCIE_LATENCY_S 12e-6

bool tp_valid(int n)
{
    return n == 1 || n == 2 || n == 4 || n == 8;
}

void tp_link_of(const struct gpu_spec *g, struct tp_link *l)
{
    if (g->nvlink_gbs > 0)
        *l = (struct tp_link){"NVLink", g->nvlink_gbs * 1e9 / 2, TP_NVLINK_LATENCY_S};
    else
        *l = (struct tp_link){"PCIe", g->pcie_gbs * 1e9 / 2, TP_PCIE_LATENCY_S};
}

double tp_allreduce_s(const struct tp_link *l, int n, double bytes)
{
    if (n <= 1 || l->bw_bytes <= 0)
        return 0;
    return 2.0 * (n - 1) / n * bytes / l->bw_bytes + l->latency_s;
}

double tp_act_bytes(enum precision p)
{
    return p == PREC_FP32 || p == PREC_TF32 ? 4 : 2;
}

double tp_pass_ms(const struct tp_link *l, int n, int layers, int hidden, double batch,
                  double tokens, enum precision p)
{
    double bytes = batch * tokens * hidden * tp_act_bytes(p);
    return (2.0 * layers + 1) * tp_allreduce_s(l, n, bytes) * 1e3;
}

/* Index of parameter name of a's family (it must have it). */
static int param(const struct zoo_args *a, const char *name)
{
    return zoo_param_find(a->fam, name);
}

static double arg(const struct zoo_args *a, const char *name)
{
    return a->num[param(a, name)];
}

static enum status set_int(struct zoo_args *a, const char *name, long v, struct diag *d)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    return zoo_args_set(a, name, buf, d);
}

/* The MLP width w split n ways, rounded up to the template's step (64):
 * 11008 / 8 = 1376 runs as 1408, 2% more than the shard holds. */
static long split_width(double w, int n)
{
    long s = ((long)w + n - 1) / n;
    return (s + 63) / 64 * 64;
}

enum status tp_shard_args(struct zoo_args *a, int n, struct diag *d)
{
    if (n == 1)
        return ST_OK;
    const char *fam = zoo_family_name(a->fam);
    bool llama = !strcmp(fam, "llama"), moe = !strcmp(fam, "moe");
    if (!llama && !moe)
        return diag_set(d, ST_EUSAGE, "--tp %d: zoo:%s cannot be split across GPUs: tensor "
                        "parallelism is predicted for the decoder templates llama and moe, "
                        "whose head width stays fixed when the heads are divided", n, fam);
    long heads = (long)arg(a, "heads"), kv = (long)arg(a, "kv_heads");
    if (heads % n)
        return diag_set(d, ST_EUSAGE, "--tp %d: zoo:%s has %ld query heads, which %d GPUs "
                        "cannot share equally (heads must be a multiple of the GPU count)", n,
                        fam, heads, n);
    if (kv % n && n % kv)
        return diag_set(d, ST_EUSAGE, "--tp %d: zoo:%s has %ld key/value heads: expected a "
                        "multiple or a divisor of the GPU count", n, fam, kv);
    long head_dim = (long)arg(a, "head_dim");
    if (!head_dim)
        head_dim = (long)arg(a, "hidden") / heads;
    const char *mlp = llama ? "intermediate" : "expert_inter";
    double vocab = arg(a, "vocab");
    enum status st;
    if ((st = set_int(a, "head_dim", head_dim, d)) || (st = set_int(a, "heads", heads / n, d)) ||
        (st = set_int(a, "kv_heads", kv >= n ? kv / n : 1, d)) ||
        (st = set_int(a, mlp, split_width(arg(a, mlp), n), d)))
        return st;
    /* a tied LM head is the embedding: both split by vocabulary together */
    return set_int(a, "vocab", (long)((vocab + n - 1) / n), d);
}

enum status tp_refuse_export(const char *model, int n, struct diag *d)
{
    return diag_set(d, ST_EUSAGE, "--tp %d: %s is not a zoo template: splitting its heads and "
                    "MLP across GPUs needs the model's sizes, which dippm reads only from the "
                    "decoder templates (zoo:llama, zoo:moe); an exported graph is predicted "
                    "on one GPU", n, model);
}

struct graph *tp_shard_graph(const struct graph *g, int n, int *layers, int *hidden,
                             struct diag *d)
{
    char fam[32];
    if (!zoo_graph_family(g, fam, sizeof fam)) {
        tp_refuse_export(g->path ? g->path : g->name, n, d);
        return NULL;
    }
    struct zoo_args a;
    if (zoo_args_parse(g->path, &a, d))
        return NULL;
    int il = zoo_param_find(a.fam, "layers"), ih = zoo_param_find(a.fam, "hidden");
    *layers = il >= 0 ? (int)a.num[il] : 0;
    *hidden = ih >= 0 ? (int)a.num[ih] : 0;
    struct graph *s;
    if (tp_shard_args(&a, n, d) || !(s = zoo_build(&a, d)))
        return NULL;
    for (int i = 0; i < g->n_syms; i++)
        if (graph_sym_find(s, g->syms[i].name) >= 0 &&
            graph_sym_set(s, g->syms[i].name, g->syms[i].val, d)) {
            graph_free(s);
            return NULL;
        }
    return s;
}

void tp_pass_apply(struct prediction *pr, const struct config *cfg, int n, int layers,
                   int hidden, double tokens, struct tp_group *t)
{
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    t->n = n;
    tp_link_of(gs, &t->link);
    t->allreduces = 2 * layers + 1;
    t->pass_ms = tp_pass_ms(&t->link, n, layers, hidden, (double)cfg->batch, tokens, cfg->prec);
    pr->latency_ms += t->pass_ms;
    pr->throughput = pr->latency_ms > 0 ? (double)cfg->batch * 1e3 / pr->latency_ms : 0;
    pr->energy_j = (pr->energy_j + gs->idle_w * t->pass_ms * 1e-3) * n;
    pr->energy_mj_per_sample = pr->energy_j * 1e3 / (double)cfg->batch;
}
