/* zoo_bert.c - a BERT-style encoder (Hugging Face BertModel with pooler) and
 * a GPT-2-style decoder with a prefill pass or a one-token decode step over
 * an explicit KV cache, or without its LM head a CLIP text encoder. */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

/* Unsqueeze x at the given axes. */
static int unsqueeze(struct zoo_build *b, int x, const int64_t *axes, int n)
{
    int in[2] = {x, zb_const_ints(b, axes, n, false)};
    return zb_node(b, OP_Unsqueeze, "unsqueeze", in, 2);
}

/* Gather rows of an embedding table [rows, dim] named local. */
static int embedding(struct zoo_build *b, int ids, const char *local, int rows, int dim)
{
    const int64_t d[2] = {rows, dim};
    int in[2] = {zb_weight(b, local, 2, d), ids};
    return zb_node(b, OP_Gather, local, in, 2);
}

static int token_input(struct zoo_build *b, const char *name, int64_t seq, const char *sym)
{
    const int64_t dims[2] = {1, seq};
    const char *const syms[2] = {"batch", sym};
    return zb_input(b, name, DT_INT64, 2, dims, syms);
}

/* ---- BERT ------------------------------------------------------------------- */

static const char *const bert_names[] = {"bert-base", "bert-large", "custom"};
static const char *const bert_presets[] = {
    "layers=12:hidden=768:heads=12:intermediate=3072",
    "layers=24:hidden=1024:heads=16:intermediate=4096", ""};

static const struct zoo_param bert_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 3, .choices = bert_names,
     .presets = bert_presets, .def = "bert-base",
     .help = "bert-base or bert-large (sets layers, hidden, heads, intermediate)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 96, .smin = 2, .smax = 24,
     .def = "12", .help = "encoder layers"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "768", .help = "hidden width (a multiple of heads)"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "12", .help = "attention heads (must divide hidden)"},
    {.name = "intermediate", .type = ZOO_PT_INT, .min = 64, .max = 65536, .step = 64,
     .smin = 256, .smax = 4096, .def = "3072", .help = "feed-forward width"},
    {.name = "seq", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 16, .smax = 512,
     .def = "128", .help = "default of the seq symbol (tokens per sequence)"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 50000, .def = "30522", .help = "vocabulary size (word embedding rows)"},
    {.name = "max_position", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 512,
     .smax = 1024, .def = "512", .help = "position embedding rows (longest sequence)"},
    {.name = "type_vocab", .type = ZOO_PT_INT, .min = 1, .max = 16, .smin = 1, .smax = 2,
     .def = "2", .help = "token type (segment) embedding rows"},
};

static enum status bert_check(const struct zoo_args *a, struct diag *d)
{
    enum status st = zoo_check_multiple(a, "bert", "hidden", "heads", d);
    if (st)
        return st;
    return zoo_check_positions(a, "bert", "seq", "max_position", d);
}

static enum status bert_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int h = zoo_arg_int(a, "hidden"), heads = zoo_arg_int(a, "heads");
    int inter = zoo_arg_int(a, "intermediate"), seq = zoo_arg_int(a, "seq");
    int ids = token_input(b, "input_ids", seq, "seq");
    int types = token_input(b, "token_type_ids", seq, "seq");
    int mask_in = token_input(b, "attention_mask", seq, "seq");
    int pos = token_input(b, "position_ids", seq, "seq");
    zb_scope(b, "embeddings");
    int x = embedding(b, ids, "word_embeddings", zoo_arg_int(a, "vocab"), h);
    x = zb_binary(b, OP_Add, x, embedding(b, types, "token_type_embeddings",
                                          zoo_arg_int(a, "type_vocab"), h));
    x = zb_binary(b, OP_Add, x, embedding(b, pos, "position_embeddings",
                                          zoo_arg_int(a, "max_position"), h));
    x = zb_layernorm(b, x, "LayerNorm", h, 1e-12);
    /* extended mask: (1 - mask[:, None, None, :]) * finfo(float32).min */
    static const int64_t ax12[2] = {1, 2};
    int m = unsqueeze(b, mask_in, ax12, 2);
    m = zb_node(b, OP_Cast, "mask.cast", &m, 1);
    graph_attr_int(b->g, zb_last(b), "to", DT_FLOAT);
    m = zb_binary(b, OP_Sub, zb_const_float(b, 1.0), m);
    m = zb_binary(b, OP_Mul, m, zb_const_float(b, -3.4028234663852886e38));
    for (int l = 0; l < zoo_arg_int(a, "layers"); l++) {
        zb_scope(b, "encoder.layer.%d", l);
        int y = zb_attention(b, x, h, heads, NULL, m, -1, -1, -1, NULL, NULL);
        y = zb_linear(b, y, "attention.output.dense", h, h, true);
        x = zb_layernorm(b, zb_binary(b, OP_Add, y, x), "attention.output.LayerNorm", h, 1e-12);
        y = zb_act(b, zb_linear(b, x, "intermediate.dense", h, inter, true), OP_Gelu);
        y = zb_linear(b, y, "output.dense", inter, h, true);
        x = zb_layernorm(b, zb_binary(b, OP_Add, y, x), "output.LayerNorm", h, 1e-12);
    }
    zb_output(b, x);
    zb_scope(b, "pooler");
    int p = zb_act(b, zb_gemm(b, zb_take(b, x, 1, 0), "dense", h, h, true), OP_Tanh);
    zb_output(b, p);
    zb_limit_positions(b, "seq", zoo_arg_int(a, "max_position"), "max_position");
    return ST_OK;
}

const struct zoo_family zoo_fam_bert = {
    .name = "bert",
    .help = "BERT-style encoder: token/segment/position embeddings, post-norm layers, pooler",
    .n_params = sizeof bert_params / sizeof bert_params[0],
    .params = bert_params,
    .check = bert_check,
    .build = bert_build,
};

/* ---- GPT -------------------------------------------------------------------- */

/* The CLIP text encoders of the diffusion pipelines are the same pre-norm
 * causal stack with 77 positions and no LM head: OpenAI's ViT-L/14 (SD 1.5,
 * SDXL's first), OpenCLIP ViT-H/14 as diffusers ships it for SD 2.x (the
 * last of its 24 layers dropped) and OpenCLIP ViT-bigG/14 with its text
 * projection (SDXL's second). Their MLP activation is CLIP's quick GELU
 * (x * sigmoid(1.702 x)); GPT-2's is Hugging Face's gelu_new, the tanh
 * approximation written out in Python, which eager PyTorch runs as eight
 * element-wise kernels (the `act` parameter; engines fuse either). */
static const char *const gpt_names[] = {"gpt2",   "gpt2-medium", "gpt2-large",    "gpt2-xl",
                                        "clip-l", "openclip-h",  "openclip-bigg", "custom"};
#define CLIP_TEXT ":mlp_ratio=4:context=77:vocab=49408:head="
static const char *const gpt_presets[] = {
    "layers=12:hidden=768:heads=12:head=lm:act=gelu-new",
    "layers=24:hidden=1024:heads=16:head=lm:act=gelu-new",
    "layers=36:hidden=1280:heads=20:head=lm:act=gelu-new",
    "layers=48:hidden=1600:heads=25:head=lm:act=gelu-new",
    "layers=12:hidden=768:heads=12" CLIP_TEXT "none:act=quick-gelu",
    "layers=23:hidden=1024:heads=16" CLIP_TEXT "none:act=gelu",
    "layers=32:hidden=1280:heads=20" CLIP_TEXT "projection:act=gelu", ""};
static const char *const gpt_phases[] = {"prefill", "decode"};
static const char *const gpt_heads[] = {"lm", "none", "projection"};
static const char *const gpt_acts[] = {"gelu-tanh", "gelu-new", "gelu", "quick-gelu", "relu"};

static const struct zoo_param gpt_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 8, .choices = gpt_names,
     .presets = gpt_presets, .def = "gpt2",
     .help = "GPT-2 small/medium/large/xl (sets layers, hidden, heads, head), or a CLIP text "
             "encoder: clip-l, openclip-h, openclip-bigg (sets every size and the head)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 24,
     .def = "12", .help = "decoder layers"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "768", .help = "hidden width (a multiple of heads)"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "12", .help = "attention heads (must divide hidden)"},
    {.name = "mlp_ratio", .type = ZOO_PT_FLOAT, .min = 1, .max = 8, .smin = 2, .smax = 4,
     .def = "4", .help = "feed-forward width as a multiple of hidden"},
    {.name = "context", .type = ZOO_PT_INT, .min = 2, .max = 131072, .smin = 128, .smax = 2048,
     .def = "1024", .help = "context length: position embedding rows and seq default"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 50257, .def = "50257", .help = "vocabulary size (embedding tied to the LM head)"},
    {.name = "phase", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = gpt_phases,
     .def = "prefill",
     .help = "prefill: seq tokens at once; decode: 1 token over a KV cache of seq tokens"},
    {.name = "head", .type = ZOO_PT_ENUM, .n_choices = 3, .choices = gpt_heads, .def = "lm",
     .unsampled = true,
     .help = "lm: LM head tied to the embedding, KV cache outputs; none: the final hidden "
             "states (a text encoder); projection: also the last token projected hidden x "
             "hidden without bias (CLIP's text projection)"},
    {.name = "act", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = gpt_acts,
     .def = "gelu-tanh", .unsampled = true,
     .help = "MLP activation: gelu-tanh or gelu (one fused kernel), gelu-new (Hugging Face "
             "GPT-2's: eight element-wise ops in eager PyTorch), quick-gelu (CLIP's x * "
             "sigmoid(1.702 x): three), relu (OPT's)"},
};

/* The MLP activation `act` of gpt_params on y. */
static int gpt_act(struct zoo_build *b, int y, const char *act)
{
    if (!strcmp(act, "relu"))
        return zb_act(b, y, OP_Relu);
    if (!strcmp(act, "quick-gelu")) {
        int s = zb_act(b, zb_binary(b, OP_Mul, y, zb_const_float(b, 1.702)), OP_Sigmoid);
        return zb_binary(b, OP_Mul, y, s);
    }
    if (!strcmp(act, "gelu-new")) {
        /* 0.5 * y * (1 + tanh(sqrt(2 / pi) * (y + 0.044715 * y^3))) */
        int c = zb_binary(b, OP_Pow, y, zb_const_float(b, 3.0));
        c = zb_binary(b, OP_Add, y, zb_binary(b, OP_Mul, c, zb_const_float(b, 0.044715)));
        c = zb_binary(b, OP_Mul, c, zb_const_float(b, 0.7978845608028654));
        c = zb_binary(b, OP_Add, zb_act(b, c, OP_Tanh), zb_const_float(b, 1.0));
        return zb_binary(b, OP_Mul, zb_binary(b, OP_Mul, y, zb_const_float(b, 0.5)), c);
    }
    y = zb_act(b, y, OP_Gelu);
    if (!strcmp(act, "gelu-tanh"))
        graph_attr_string(b->g, zb_last(b), "approximate", "tanh");
    return y;
}

static enum status gpt_check(const struct zoo_args *a, struct diag *d)
{
    return zoo_check_multiple(a, "gpt", "hidden", "heads", d);
}

static enum status gpt_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int h = zoo_arg_int(a, "hidden"), heads = zoo_arg_int(a, "heads");
    int ctx = zoo_arg_int(a, "context"), vocab = zoo_arg_int(a, "vocab");
    int layers = zoo_arg_int(a, "layers"), hd = h / heads;
    int inter = (int)(h * zoo_arg_float(a, "mlp_ratio"));
    bool decode = strcmp(zoo_arg_enum(a, "phase"), "decode") == 0;
    const char *head = zoo_arg_enum(a, "head");
    bool lm = strcmp(head, "lm") == 0;
    /* decode: the cache holds seq = context - 1 tokens, so the step fills the context */
    int64_t seq = decode ? ctx - 1 : ctx;
    int ids = decode ? token_input(b, "input_ids", 1, NULL)
                     : token_input(b, "input_ids", seq, "seq");
    int pos = decode ? token_input(b, "position_ids", 1, NULL)
                     : token_input(b, "position_ids", seq, "seq");
    int past_k[128], past_v[128];
    if (decode)
        zb_past_kv(b, layers, heads, seq, hd, past_k, past_v);
    const int64_t wd[2] = {vocab, h};
    int wte = zb_weight(b, "wte", 2, wd);
    int gi[2] = {wte, ids};
    int x = zb_node(b, OP_Gather, "wte", gi, 2);
    const int64_t pd[2] = {ctx, h};
    int pi[2] = {zb_weight(b, "wpe", 2, pd), pos};
    x = zb_binary(b, OP_Add, x, zb_node(b, OP_Gather, "wpe", pi, 2));
    int causal = -1;
    if (!decode) {
        /* key position <= query position, from position_ids: [B, 1, S, S] */
        static const int64_t ax1[1] = {1}, ax2[1] = {2};
        int qp = unsqueeze(b, pos, ax2, 1), kp = unsqueeze(b, pos, ax1, 1);
        int cin[2] = {kp, qp};
        causal = unsqueeze(b, zb_node(b, OP_LessOrEqual, "causal", cin, 2), ax1, 1);
    }
    zb_limit_context(b, ctx, decode);
    int present[2 * 128];
    for (int l = 0; l < layers; l++) {
        zb_scope(b, "h.%d", l);
        int y = zb_layernorm(b, x, "ln_1", h, 1e-5);
        /* a text encoder (no LM head) keeps no KV cache in prefill */
        bool kv = lm || decode;
        y = zb_attention(b, y, h, heads, "attn.c_attn", -1, causal, decode ? past_k[l] : -1,
                         decode ? past_v[l] : -1, kv ? &present[2 * l] : NULL,
                         kv ? &present[2 * l + 1] : NULL);
        y = zb_linear(b, y, "attn.c_proj", h, h, true);
        x = zb_binary(b, OP_Add, x, y);
        y = zb_layernorm(b, x, "ln_2", h, 1e-5);
        y = zb_linear(b, y, "mlp.c_fc", h, inter, true);
        y = gpt_act(b, y, zoo_arg_enum(a, "act"));
        y = zb_linear(b, y, "mlp.c_proj", inter, h, true);
        x = zb_binary(b, OP_Add, x, y);
    }
    zb_scope(b, "%s", "");
    x = zb_layernorm(b, x, "ln_f", h, 1e-5);
    if (!lm) {
        zb_output(b, x);
        if (strcmp(head, "projection") == 0) /* pooled at the last (EOS) token */
            zb_output(b, zb_gemm(b, zb_take(b, x, 1, -1), "text_projection", h, h, false));
        for (int l = 0; l < 2 * layers && decode; l++)
            zb_output(b, present[l]);
        return ST_OK;
    }
    /* LM head tied to the token embedding */
    static const int64_t perm[2] = {1, 0};
    int mi[2] = {x, zb_transpose(b, wte, perm, 2)};
    zb_output(b, zb_node(b, OP_MatMul, "lm_head", mi, 2));
    for (int l = 0; l < 2 * layers; l++)
        zb_output(b, present[l]);
    return ST_OK;
}

const struct zoo_family zoo_fam_gpt = {
    .name = "gpt",
    .help = "GPT-2-style decoder: prefill over seq tokens or one decode step with a KV cache",
    .n_params = sizeof gpt_params / sizeof gpt_params[0],
    .params = gpt_params,
    .check = gpt_check,
    .build = gpt_build,
};
