/* zoo_llama.c - a LLaMA-style decoder (Hugging Face LlamaForCausalLM):
 * RMSNorm, rotary position embedding, grouped-query attention and a SwiGLU
 * MLP, with a prefill pass or a one-token decode step over an explicit KV
 * cache of kv_heads heads.
 *
 * Grouped-query attention is computed in grouped form: queries are
 * [B, kv_heads, heads/kv_heads, S, hd] and keys/values [B, kv_heads, 1, T, hd],
 * so MatMul broadcasts over the group instead of materialising repeat_kv;
 * the MACs are those of the repeated form. RMSNorm is decomposed (Pow,
 * ReduceMean, Add, Sqrt, Div, Mul) as the ONNX exporter writes it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const char *const llama_names[] = {
    "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "tinyllama-1.1b",
    "qwen3-8b",  "qwen3-14b",  "qwen3-32b",  "custom"};
static const char *const llama_presets[] = {
    "layers=32:hidden=4096:heads=32:kv_heads=32:intermediate=11008:vocab=32000:context=4096:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=40:hidden=5120:heads=40:kv_heads=40:intermediate=13824:vocab=32000:context=4096:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=80:hidden=8192:heads=64:kv_heads=8:intermediate=28672:vocab=32000:context=4096:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=32:hidden=4096:heads=32:kv_heads=8:intermediate=14336:vocab=128256:context=8192:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=80:hidden=8192:heads=64:kv_heads=8:intermediate=28672:vocab=128256:context=8192:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=22:hidden=2048:heads=32:kv_heads=4:intermediate=5632:vocab=32000:context=2048:"
    "tied=0:head_dim=0:qk_norm=0",
    "layers=36:hidden=4096:heads=32:kv_heads=8:intermediate=12288:vocab=151936:context=40960:"
    "tied=0:head_dim=128:qk_norm=1",
    "layers=40:hidden=5120:heads=40:kv_heads=8:intermediate=17408:vocab=151936:context=40960:"
    "tied=0:head_dim=128:qk_norm=1",
    "layers=64:hidden=5120:heads=64:kv_heads=8:intermediate=25600:vocab=151936:context=40960:"
    "tied=0:head_dim=128:qk_norm=1",
    ""};
static const char *const llama_phases[] = {"prefill", "decode"};
static const char *const llama_logits[] = {"all", "last"};

static const struct zoo_param llama_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 10, .choices = llama_names,
     .presets = llama_presets, .def = "tinyllama-1.1b",
     .help = "published configuration to start from (sets every size parameter)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 24,
     .def = "22", .help = "decoder layers"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "2048", .help = "hidden width (a multiple of heads)"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "32", .help = "query heads (must divide hidden)"},
    {.name = "kv_heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 1, .smax = 16,
     .def = "4", .help = "key/value heads for grouped-query attention (must divide heads)"},
    {.name = "intermediate", .type = ZOO_PT_INT, .min = 64, .max = 65536, .step = 64,
     .smin = 256, .smax = 4096, .def = "5632", .help = "SwiGLU MLP width"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 50000, .def = "32000", .help = "vocabulary size"},
    {.name = "context", .type = ZOO_PT_INT, .min = 2, .max = 131072, .smin = 128, .smax = 2048,
     .def = "2048", .help = "context length: rotary table rows and seq default"},
    {.name = "tied", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = LM head shares the token embedding"},
    {.name = "head_dim", .type = ZOO_PT_INT, .min = 0, .max = 512, .step = 2, .smin = 0,
     .smax = 128, .def = "0", .help = "width of one head; 0 = hidden/heads (Qwen3: 128)"},
    {.name = "qk_norm", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0", .help = "1 = RMSNorm on each query and key head (Qwen3)"},
    {.name = "phase", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = llama_phases,
     .def = "prefill",
     .help = "prefill: seq tokens at once; decode: 1 token over a KV cache of seq tokens"},
    {.name = "logits", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = llama_logits,
     .def = "all",
     .help = "all: LM head on every position (as an export computes it); last: on the "
             "last only (what generation needs)"},
};

static enum status llama_check(const struct zoo_args *a, struct diag *d)
{
    int hidden = zoo_arg_int(a, "hidden"), heads = zoo_arg_int(a, "heads");
    enum status st = zoo_check_multiple(a, "llama", "heads", "kv_heads", d);
    if (st || zoo_arg_int(a, "head_dim"))
        return st; /* explicit head width (even by its step) */
    if ((st = zoo_check_multiple(a, "llama", "hidden", "heads", d)))
        return st;
    if ((hidden / heads) % 2)
        return diag_set(d, ST_ERANGE,
                        "zoo:llama: head width hidden/heads = %d must be even (rotary halves)",
                        hidden / heads);
    return ST_OK;
}

static int token_input(struct zoo_build *b, const char *name, int64_t seq, bool sym)
{
    const int64_t dims[2] = {1, seq};
    const char *const syms[2] = {"batch", sym ? "seq" : NULL};
    return zb_input(b, name, DT_INT64, 2, dims, syms);
}

/* Attention of one layer on the normed input y; returns the context after
 * o_proj. present[0..1] receive the keys and values the cache keeps. */
static int attention(struct zoo_build *b, const struct zb_decoder *c, int y, int cos, int sin,
                     int causal, int past_k, int past_v, int *present)
{
    int h = c->hidden, heads = c->heads, kvh = c->kv_heads, hd = c->head_dim;
    int rep = heads / kvh;
    static const int64_t ax2[1] = {2};
    const int64_t qs[4] = {0, 0, heads, hd}, ks[4] = {0, 0, kvh, hd};
    int q = zb_reshape(b, zb_linear(b, y, "self_attn.q_proj", h, heads * hd, false), qs, 4);
    int k = zb_reshape(b, zb_linear(b, y, "self_attn.k_proj", h, kvh * hd, false), ks, 4);
    int v = zb_reshape(b, zb_linear(b, y, "self_attn.v_proj", h, kvh * hd, false), ks, 4);
    if (c->qk_norm) {
        q = zb_rmsnorm(b, q, "self_attn.q_norm", hd);
        k = zb_rmsnorm(b, k, "self_attn.k_norm", hd);
    }
    q = zb_rope(b, q, hd, cos, sin);
    k = zb_rope(b, k, hd, cos, sin);
    /* q: [B, S, heads, hd] -> [B, kvh, rep, S, hd]; k, v: [B, kvh, T, hd] */
    const int64_t qg[5] = {0, 0, kvh, rep, hd};
    static const int64_t pq[5] = {0, 2, 3, 1, 4}, pkv[4] = {0, 2, 1, 3};
    q = zb_transpose(b, zb_reshape(b, q, qg, 5), pq, 5);
    k = zb_transpose(b, k, pkv, 4);
    v = zb_transpose(b, v, pkv, 4);
    if (past_k >= 0) {
        int ck[2] = {past_k, k}, cv[2] = {past_v, v};
        k = zb_concat(b, ck, 2, 2);
        v = zb_concat(b, cv, 2, 2);
    }
    present[0] = k;
    present[1] = v;
    static const int64_t pkt[5] = {0, 1, 2, 4, 3};
    k = zb_transpose(b, zb_unsqueeze(b, k, ax2, 1), pkt, 5);
    v = zb_unsqueeze(b, v, ax2, 1);
    int s = zb_binary(b, OP_MatMul, q, k);
    s = zb_binary(b, OP_Div, s, zb_const_float(b, sqrt((double)hd)));
    if (causal >= 0) {
        int wi[3] = {causal, s, zb_const_float(b, -3.4028234663852886e38)};
        s = zb_node(b, OP_Where, "where", wi, 3);
    }
    int ctx = zb_binary(b, OP_MatMul, zb_softmax(b, s, -1), v);
    static const int64_t pc[5] = {0, 3, 1, 2, 4};
    const int64_t merged[3] = {0, 0, heads * hd};
    ctx = zb_reshape(b, zb_transpose(b, ctx, pc, 5), merged, 3);
    return zb_linear(b, ctx, "self_attn.o_proj", heads * hd, h, false);
}

/* SwiGLU MLP "<prefix>.gate_proj/up_proj/down_proj" on y. */
int zb_swiglu(struct zoo_build *b, int y, const char *prefix, int h, int inter)
{
    char n[96];
    snprintf(n, sizeof n, "%s.gate_proj", prefix);
    int gate = zb_act(b, zb_linear(b, y, n, h, inter, false), OP_Silu);
    snprintf(n, sizeof n, "%s.up_proj", prefix);
    int up = zb_linear(b, y, n, h, inter, false);
    snprintf(n, sizeof n, "%s.down_proj", prefix);
    return zb_linear(b, zb_binary(b, OP_Mul, gate, up), n, inter, h, false);
}

enum status zb_decoder_build(struct zoo_build *b, const struct zb_decoder *c)
{
    int h = c->hidden, hd = c->head_dim, ctx = c->context, layers = c->layers;
    bool decode = c->decode;
    int64_t seq = decode ? ctx - 1 : ctx;
    int ids = token_input(b, "input_ids", decode ? 1 : seq, !decode);
    int pos = token_input(b, "position_ids", decode ? 1 : seq, !decode);
    int past_k[128], past_v[128];
    if (decode)
        zb_past_kv(b, layers, c->kv_heads, seq, hd, past_k, past_v);
    zb_limit_context(b, ctx, decode);
    const int64_t ed[2] = {c->vocab, h};
    int embed = zb_weight(b, "model.embed_tokens.weight", 2, ed);
    int gi[2] = {embed, ids};
    int x = zb_node(b, OP_Gather, "model.embed_tokens", gi, 2);
    /* rotary tables (buffers, not parameters) gathered at the positions */
    static const int64_t ax2[1] = {2}, ax1[1] = {1}, ax12[2] = {1, 2};
    const int64_t td[2] = {ctx, hd};
    char key[48];
    snprintf(key, sizeof key, "rope_cos_%dx%d", ctx, hd);
    int ci[2] = {zb_const_nodata(b, key, 2, td), pos};
    snprintf(key, sizeof key, "rope_sin_%dx%d", ctx, hd);
    int si[2] = {zb_const_nodata(b, key, 2, td), pos};
    int cos = zb_unsqueeze(b, zb_node(b, OP_Gather, "rope.cos", ci, 2), ax2, 1);
    int sin = zb_unsqueeze(b, zb_node(b, OP_Gather, "rope.sin", si, 2), ax2, 1);
    int causal = -1;
    if (!decode) {
        int cin[2] = {zb_unsqueeze(b, pos, ax1, 1), zb_unsqueeze(b, pos, ax2, 1)};
        causal = zb_unsqueeze(b, zb_node(b, OP_LessOrEqual, "causal", cin, 2), ax12, 2);
    }
    int present[2 * 128];
    for (int l = 0; l < layers; l++) {
        zb_scope(b, "model.layers.%d", l);
        int y = zb_rmsnorm(b, x, "input_layernorm", h);
        y = attention(b, c, y, cos, sin, causal, decode ? past_k[l] : -1,
                      decode ? past_v[l] : -1, &present[2 * l]);
        x = zb_binary(b, OP_Add, x, y);
        y = zb_rmsnorm(b, x, "post_attention_layernorm", h);
        y = c->experts > 0 ? zb_moe_mlp(b, y, h, c->inter, c->experts, c->top_k)
                           : zb_swiglu(b, y, "mlp", h, c->inter);
        x = zb_binary(b, OP_Add, x, y);
    }
    zb_scope(b, "%s", "");
    x = zb_rmsnorm(b, x, "model.norm", h);
    if (c->last_logits && !decode) {
        const int64_t s0 = -1, s1 = ZB_SLICE_END, axis = 1;
        x = zb_slice(b, x, &s0, &s1, &axis, NULL, 1);
    }
    int logits;
    if (c->tied) {
        static const int64_t perm[2] = {1, 0};
        int mi[2] = {x, zb_transpose(b, embed, perm, 2)};
        logits = zb_node(b, OP_MatMul, "lm_head", mi, 2);
    } else {
        logits = zb_linear(b, x, "lm_head", h, c->vocab, false);
    }
    zb_output(b, logits);
    for (int l = 0; l < 2 * layers; l++)
        zb_output(b, present[l]);
    return ST_OK;
}

static enum status llama_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct zb_decoder c = {
        .layers = zoo_arg_int(a, "layers"), .hidden = zoo_arg_int(a, "hidden"),
        .heads = zoo_arg_int(a, "heads"), .kv_heads = zoo_arg_int(a, "kv_heads"),
        .inter = zoo_arg_int(a, "intermediate"), .vocab = zoo_arg_int(a, "vocab"),
        .context = zoo_arg_int(a, "context"), .tied = zoo_arg_int(a, "tied") != 0,
        .decode = strcmp(zoo_arg_enum(a, "phase"), "decode") == 0,
        .last_logits = strcmp(zoo_arg_enum(a, "logits"), "last") == 0};
    c.head_dim = zoo_arg_int(a, "head_dim") ? zoo_arg_int(a, "head_dim") : c.hidden / c.heads;
    c.qk_norm = zoo_arg_int(a, "qk_norm") != 0;
    return zb_decoder_build(b, &c);
}

const struct zoo_family zoo_fam_llama = {
    .name = "llama",
    .help = "LLaMA-style decoder: RMSNorm, rotary, grouped-query attention, SwiGLU; KV cache",
    .n_params = sizeof llama_params / sizeof llama_params[0],
    .params = llama_params,
    .check = llama_check,
    .build = llama_build,
};
