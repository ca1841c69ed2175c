/* zoo_moe.c - a mixture-of-experts decoder (Hugging Face MixtralForCausalLM,
 * Qwen3MoeForCausalLM): the LLaMA-style decoder of zoo_llama.c whose MLP is
 * a router over `experts` SwiGLU experts of width expert_inter, of which
 * top_k run on each token.
 *
 * Routing is data-dependent; the graph is static. It holds what routing
 * costs on average: the router (Linear, Softmax, TopK), then top_k experts'
 * MLPs applied to every token and weighted by their routing probability, so
 * FLOPs and the weight bytes read per token follow the active experts. The
 * other experts are resident: their weights sit in one initializer per
 * layer ("mlp.experts.resident", [experts - top_k, 3, expert_inter, hidden])
 * held by an Identity view that reads nothing, so parameters and memory
 * count every expert. Each expert MatMul carries routed_experts = [experts,
 * top_k]: the teacher (src/core/sim.c) then charges the weights of every expert a
 * batch of M tokens touches on average, experts (1 - (1 - top_k/experts)^M),
 * as the grouped GEMM of a serving runtime reads them. */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const char *const moe_names[] = {"mixtral-8x7b", "qwen3-30b-a3b", "custom"};
static const char *const moe_presets[] = {
    "layers=32:hidden=4096:heads=32:kv_heads=8:head_dim=128:experts=8:top_k=2:"
    "expert_inter=14336:vocab=32000:context=32768:qk_norm=0:tied=0",
    "layers=48:hidden=2048:heads=32:kv_heads=4:head_dim=128:experts=128:top_k=8:"
    "expert_inter=768:vocab=151936:context=40960:qk_norm=1:tied=0",
    ""};
static const char *const moe_phases[] = {"prefill", "decode"};
static const char *const moe_logits[] = {"all", "last"};

static const struct zoo_param moe_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 3, .choices = moe_names,
     .presets = moe_presets, .def = "mixtral-8x7b",
     .help = "published configuration to start from (sets every size parameter)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "32", .help = "decoder layers"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "4096", .help = "hidden width"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "32", .help = "query heads"},
    {.name = "kv_heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 1, .smax = 8,
     .def = "8", .help = "key/value heads (must divide heads)"},
    {.name = "head_dim", .type = ZOO_PT_INT, .min = 8, .max = 512, .step = 8, .smin = 32,
     .smax = 128, .def = "128", .help = "width of one attention head (even)"},
    {.name = "experts", .type = ZOO_PT_INT, .min = 1, .max = 512, .smin = 2, .smax = 16,
     .def = "8", .help = "experts per layer"},
    {.name = "top_k", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 1, .smax = 4,
     .def = "2", .help = "experts each token is routed to (at most experts)"},
    {.name = "expert_inter", .type = ZOO_PT_INT, .min = 64, .max = 65536, .step = 64,
     .smin = 128, .smax = 2048, .def = "14336", .help = "SwiGLU width of one expert"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 50000, .def = "32000", .help = "vocabulary size"},
    {.name = "context", .type = ZOO_PT_INT, .min = 2, .max = 131072, .smin = 128, .smax = 1024,
     .def = "32768", .help = "context length: rotary table rows and seq default"},
    {.name = "qk_norm", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = RMSNorm on each query and key head (Qwen3)"},
    {.name = "tied", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = LM head shares the token embedding"},
    {.name = "phase", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = moe_phases,
     .def = "prefill",
     .help = "prefill: seq tokens at once; decode: 1 token over a KV cache of seq tokens"},
    {.name = "logits", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = moe_logits,
     .def = "all",
     .help = "all: LM head on every position (as an export computes it); last: on the "
             "last only (what generation needs)"},
};

static enum status moe_check(const struct zoo_args *a, struct diag *d)
{
    int e = zoo_arg_int(a, "experts"), k = zoo_arg_int(a, "top_k");
    enum status st = zoo_check_multiple(a, "moe", "heads", "kv_heads", d);
    if (st)
        return st;
    if (k > e)
        return diag_set(d, ST_ERANGE, "zoo:moe: top_k=%d exceeds experts=%d", k, e);
    return ST_OK;
}

int zb_moe_mlp(struct zoo_build *b, int y, int h, int inter, int experts, int top_k)
{
    int router = zb_softmax(b, zb_linear(b, y, "mlp.gate", h, experts, false), -1);
    const int64_t kk = top_k;
    int ti[2] = {router, zb_const_ints(b, &kk, 1, false)}, top[2];
    zb_node_multi(b, OP_TopK, "mlp.topk", ti, 2, top, 2);
    graph_attr_int(b->g, zb_last(b), "axis", -1);
    int out = -1;
    for (int j = 0; j < top_k; j++) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "mlp.experts.%d", j);
        int first = b->g->n_nodes;
        int e = zb_swiglu(b, y, prefix, h, inter);
        /* routing for the teacher: each expert MatMul is one of top_k of
         * `experts`, so a batch reads the weights of every expert it touches */
        const int64_t re[2] = {experts, top_k};
        for (int ni = first; ni < b->g->n_nodes; ni++)
            if (b->g->nodes[ni].op == OP_MatMul)
                graph_attr_ints(b->g, ni, "routed_experts", re, 2);
        const int64_t s0 = j, s1 = j + 1, axis = -1;
        int w = zb_slice(b, top[0], &s0, &s1, &axis, NULL, 1);
        e = zb_binary(b, OP_Mul, e, w);
        out = out < 0 ? e : zb_binary(b, OP_Add, out, e);
    }
    if (experts > top_k) {
        const int64_t rd[4] = {experts - top_k, 3, inter, h};
        int r = zb_weight(b, "mlp.experts.resident", 4, rd);
        zb_node(b, OP_Identity, "mlp.experts.resident", &r, 1);
    }
    return out;
}

static enum status moe_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct zb_decoder c = {
        .layers = zoo_arg_int(a, "layers"), .hidden = zoo_arg_int(a, "hidden"),
        .heads = zoo_arg_int(a, "heads"), .kv_heads = zoo_arg_int(a, "kv_heads"),
        .head_dim = zoo_arg_int(a, "head_dim"), .inter = zoo_arg_int(a, "expert_inter"),
        .vocab = zoo_arg_int(a, "vocab"), .context = zoo_arg_int(a, "context"),
        .experts = zoo_arg_int(a, "experts"), .top_k = zoo_arg_int(a, "top_k"),
        .tied = zoo_arg_int(a, "tied") != 0, .qk_norm = zoo_arg_int(a, "qk_norm") != 0,
        .decode = strcmp(zoo_arg_enum(a, "phase"), "decode") == 0,
        .last_logits = strcmp(zoo_arg_enum(a, "logits"), "last") == 0};
    return zb_decoder_build(b, &c);
}

const struct zoo_family zoo_fam_moe = {
    .name = "moe",
    .help = "mixture-of-experts decoder (Mixtral, Qwen3-MoE): routed SwiGLU experts; KV cache",
    .n_params = sizeof moe_params / sizeof moe_params[0],
    .params = moe_params,
    .check = moe_check,
    .build = moe_build,
};
