/* zoo_t5.c - encoder-decoder transformers: T5 (Hugging Face
 * T5ForConditionalGeneration, v1.0: RMS layer norm before each block, ReLU
 * feed-forward, relative position bias, unscaled attention, LM head tied to
 * the shared embedding; v1.1: gated-GELU feed-forward, untied LM head; or
 * the encoder alone, T5EncoderModel, as diffusion pipelines run it) and BART (BartForConditionalGeneration: learned
 * positions with an offset of 2, layer norm after each block, GELU, LM head
 * tied to the shared embedding).
 *
 * One pass runs the encoder over `seq` source tokens and the decoder over
 * `tgt` target tokens (teacher forcing). T5's relative position buckets are
 * computed from the positions alone, so they are inputs
 * ("encoder_position_buckets" [seq, seq], "decoder_position_buckets"
 * [tgt, tgt]) gathered from each stack's bias table; the causal mask of the
 * decoder is an input too ("decoder_causal_mask" [tgt, tgt], additive). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

/* Encoder-decoder sizes shared by both families. */
struct encdec {
    int layers, dim, heads, dkv, ff;
    bool t5;    /* else BART */
    bool v1_1;  /* T5 v1.1: gated-GELU feed-forward, untied LM head */
    bool enc;   /* the encoder alone: no decoder, no LM head */
};

static int token_input(struct zoo_build *b, const char *name, int64_t n, const char *sym)
{
    const int64_t dims[2] = {1, n};
    const char *const syms[2] = {"batch", sym};
    return zb_input(b, name, DT_INT64, 2, dims, syms);
}

/* [B, S, heads*dkv] -> [B, heads, S, dkv] */
static int heads_first(struct zoo_build *b, int x, int heads, int dkv)
{
    const int64_t shape[4] = {0, 0, heads, dkv};
    static const int64_t perm[4] = {0, 2, 1, 3};
    return zb_transpose(b, zb_reshape(b, x, shape, 4), perm, 4);
}

/* Attention of q_in over kv_in under prefix "<name>": projections q, k, v, o
 * (T5: "q", "k", "v", "o" without bias; BART: "q_proj" ... with bias and
 * queries scaled by 1/sqrt(dkv)); bias (or -1) is added to the scores. */
static int attention(struct zoo_build *b, const struct encdec *c, const char *name, int q_in,
                     int kv_in, int bias)
{
    int inner = c->heads * c->dkv;
    char n[4][64];
    static const char *const t5n[4] = {"q", "k", "v", "o"};
    static const char *const bartn[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
    for (int i = 0; i < 4; i++)
        snprintf(n[i], sizeof n[i], "%s.%s", name, c->t5 ? t5n[i] : bartn[i]);
    bool wb = !c->t5;
    int q = zb_linear(b, q_in, n[0], c->dim, inner, wb);
    if (!c->t5)
        q = zb_binary(b, OP_Mul, q, zb_const_float(b, 1.0 / sqrt((double)c->dkv)));
    int k = zb_linear(b, kv_in, n[1], c->dim, inner, wb);
    int v = zb_linear(b, kv_in, n[2], c->dim, inner, wb);
    q = heads_first(b, q, c->heads, c->dkv);
    v = heads_first(b, v, c->heads, c->dkv);
    const int64_t shape[4] = {0, 0, c->heads, c->dkv};
    static const int64_t perm_k[4] = {0, 2, 3, 1};
    k = zb_transpose(b, zb_reshape(b, k, shape, 4), perm_k, 4);
    int s = zb_binary(b, OP_MatMul, q, k);
    if (bias >= 0)
        s = zb_binary(b, OP_Add, s, bias);
    int ctx = zb_binary(b, OP_MatMul, zb_softmax(b, s, -1), v);
    static const int64_t perm_back[4] = {0, 2, 1, 3};
    const int64_t merged[3] = {0, 0, inner};
    ctx = zb_reshape(b, zb_transpose(b, ctx, perm_back, 4), merged, 3);
    return zb_linear(b, ctx, n[3], inner, c->dim, wb);
}

static int norm(struct zoo_build *b, const struct encdec *c, int x, const char *local)
{
    return c->t5 ? zb_rmsnorm(b, x, local, c->dim) : zb_layernorm(b, x, local, c->dim, 1e-5);
}

/* T5 v1.1's DenseReluDense: gelu_new(wi_0 x) * wi_1 x, then wo. */
static int gated_gelu(struct zoo_build *b, const struct encdec *c, int x, const char *prefix)
{
    char n[3][64];
    static const char *const local[3] = {"wi_0", "wi_1", "wo"};
    for (int i = 0; i < 3; i++)
        snprintf(n[i], sizeof n[i], "%sDenseReluDense.%s", prefix, local[i]);
    int g = zb_act(b, zb_linear(b, x, n[0], c->dim, c->ff, false), OP_Gelu);
    graph_attr_string(b->g, zb_last(b), "approximate", "tanh");
    int y = zb_binary(b, OP_Mul, g, zb_linear(b, x, n[1], c->dim, c->ff, false));
    return zb_linear(b, y, n[2], c->ff, c->dim, false);
}

static int feed_forward(struct zoo_build *b, const struct encdec *c, int x, const char *prefix)
{
    if (c->v1_1)
        return gated_gelu(b, c, x, prefix);
    char n1[64], n2[64];
    snprintf(n1, sizeof n1, "%s%s", prefix, c->t5 ? "DenseReluDense.wi" : "fc1");
    snprintf(n2, sizeof n2, "%s%s", prefix, c->t5 ? "DenseReluDense.wo" : "fc2");
    int y = zb_act(b, zb_linear(b, x, n1, c->dim, c->ff, !c->t5), c->t5 ? OP_Relu : OP_Gelu);
    return zb_linear(b, y, n2, c->ff, c->dim, !c->t5);
}

/* A residual sub-block: T5 normalises its input (pre-norm), BART the sum. */
static int sub_block(struct zoo_build *b, const struct encdec *c, int x, int y_of_normed,
                     const char *ln)
{
    if (c->t5)
        return zb_binary(b, OP_Add, x, y_of_normed);
    return norm(b, c, zb_binary(b, OP_Add, x, y_of_normed), ln);
}

/* T5 position bias [1, heads, S, S] from the bucket input and the stack's
 * table [32, heads] (built in block 0, shared by the others). */
static int t5_bias(struct zoo_build *b, const struct encdec *c, int buckets, const char *table)
{
    const int64_t td[2] = {32, c->heads};
    int gi[2] = {zb_weight(b, table, 2, td), buckets};
    int bias = zb_node(b, OP_Gather, "relative_attention_bias", gi, 2);
    static const int64_t perm[3] = {2, 0, 1}, ax0[1] = {0};
    return zb_unsqueeze(b, zb_transpose(b, bias, perm, 3), ax0, 1);
}

static int encoder(struct zoo_build *b, const struct encdec *c, int x, int buckets)
{
    int bias = -1;
    for (int l = 0; l < c->layers; l++) {
        if (c->t5) {
            zb_scope(b, "encoder.block.%d", l);
            if (l == 0)
                bias = t5_bias(b, c, buckets, "layer.0.SelfAttention.relative_attention_bias.weight");
            int xn = norm(b, c, x, "layer.0.layer_norm");
            x = sub_block(b, c, x, attention(b, c, "layer.0.SelfAttention", xn, xn, bias), NULL);
            xn = norm(b, c, x, "layer.1.layer_norm");
            x = sub_block(b, c, x, feed_forward(b, c, xn, "layer.1."), NULL);
        } else {
            zb_scope(b, "model.encoder.layers.%d", l);
            x = sub_block(b, c, x, attention(b, c, "self_attn", x, x, -1), "self_attn_layer_norm");
            x = sub_block(b, c, x, feed_forward(b, c, x, ""), "final_layer_norm");
        }
    }
    if (!c->t5)
        return x;
    zb_scope(b, "encoder");
    return norm(b, c, x, "final_layer_norm");
}

/* Decoder over y with causal mask [tgt, tgt] (additive) and the encoder
 * output enc; T5 adds its position bias (from buckets) to the mask. */
static int decoder(struct zoo_build *b, const struct encdec *c, int y, int enc, int mask,
                   int buckets)
{
    int bias = mask;
    for (int l = 0; l < c->layers; l++) {
        if (c->t5) {
            zb_scope(b, "decoder.block.%d", l);
            if (l == 0)
                bias = zb_binary(b, OP_Add, t5_bias(b, c, buckets,
                                 "layer.0.SelfAttention.relative_attention_bias.weight"), mask);
            int yn = norm(b, c, y, "layer.0.layer_norm");
            y = sub_block(b, c, y, attention(b, c, "layer.0.SelfAttention", yn, yn, bias), NULL);
            yn = norm(b, c, y, "layer.1.layer_norm");
            y = sub_block(b, c, y, attention(b, c, "layer.1.EncDecAttention", yn, enc, -1), NULL);
            yn = norm(b, c, y, "layer.2.layer_norm");
            y = sub_block(b, c, y, feed_forward(b, c, yn, "layer.2."), NULL);
        } else {
            zb_scope(b, "model.decoder.layers.%d", l);
            y = sub_block(b, c, y, attention(b, c, "self_attn", y, y, mask), "self_attn_layer_norm");
            y = sub_block(b, c, y, attention(b, c, "encoder_attn", y, enc, -1),
                          "encoder_attn_layer_norm");
            y = sub_block(b, c, y, feed_forward(b, c, y, ""), "final_layer_norm");
        }
    }
    if (!c->t5)
        return y;
    zb_scope(b, "decoder");
    return norm(b, c, y, "final_layer_norm");
}

/* Embedding of ids from the shared table; BART adds learned positions
 * (offset 2) and normalises. */
static int embed(struct zoo_build *b, const struct encdec *c, int table, int ids, int pos,
                 int max_pos, const char *stack)
{
    int gi[2] = {table, ids};
    int x = zb_node(b, OP_Gather, "shared", gi, 2);
    if (c->t5)
        return x;
    zb_scope(b, "model.%s", stack);
    const int64_t pd[2] = {max_pos + 2, c->dim};
    int pi[2] = {zb_weight(b, "embed_positions.weight", 2, pd),
                 zb_binary(b, OP_Add, pos, zb_const_ints(b, (const int64_t[]){2}, 1, true))};
    x = zb_binary(b, OP_Add, x, zb_node(b, OP_Gather, "embed_positions", pi, 2));
    x = zb_layernorm(b, x, "layernorm_embedding", c->dim, 1e-5);
    zb_scope(b, "%s", "");
    return x;
}

/* T5's encoder alone (T5EncoderModel): the final hidden states. */
static enum status encoder_build(struct zoo_build *b, const struct encdec *c, int vocab, int seq)
{
    int ids = token_input(b, "input_ids", seq, "seq");
    const int64_t ed[2] = {seq, seq};
    const char *const es[2] = {"seq", "seq"};
    int eb = zb_input(b, "encoder_position_buckets", DT_INT64, 2, ed, es);
    const int64_t sd[2] = {vocab, c->dim};
    int shared = zb_weight(b, "shared.weight", 2, sd);
    zb_output(b, encoder(b, c, embed(b, c, shared, ids, -1, 0, "encoder"), eb));
    return ST_OK;
}

static enum status encdec_build(struct zoo_build *b, const struct encdec *c, int vocab, int seq,
                                int tgt, int max_pos)
{
    if (c->enc)
        return encoder_build(b, c, vocab, seq);
    int ids = token_input(b, "input_ids", seq, "seq");
    int dids = token_input(b, "decoder_input_ids", tgt, "tgt");
    int pos = -1, dpos = -1, eb = -1, db = -1;
    if (c->t5) {
        const int64_t ed[2] = {seq, seq}, dd[2] = {tgt, tgt};
        const char *const es[2] = {"seq", "seq"}, *const ds[2] = {"tgt", "tgt"};
        eb = zb_input(b, "encoder_position_buckets", DT_INT64, 2, ed, es);
        db = zb_input(b, "decoder_position_buckets", DT_INT64, 2, dd, ds);
    } else {
        pos = token_input(b, "position_ids", seq, "seq");
        dpos = token_input(b, "decoder_position_ids", tgt, "tgt");
    }
    const int64_t md[2] = {tgt, tgt};
    const char *const ms[2] = {"tgt", "tgt"};
    int mask = zb_input(b, "decoder_causal_mask", DT_FLOAT, 2, md, ms);
    const int64_t sd[2] = {vocab, c->dim};
    int shared = zb_weight(b, c->t5 ? "shared.weight" : "model.shared.weight", 2, sd);
    int x = encoder(b, c, embed(b, c, shared, ids, pos, max_pos, "encoder"), eb);
    int y = decoder(b, c, embed(b, c, shared, dids, dpos, max_pos, "decoder"), x, mask, db);
    if (max_pos) {
        zb_limit_positions(b, "seq", max_pos, "max_position");
        zb_limit_positions(b, "tgt", max_pos, "max_position");
    }
    if (c->v1_1) { /* untied head */
        zb_scope(b, "%s", "");
        zb_output(b, zb_linear(b, y, "lm_head", c->dim, vocab, false));
        return ST_OK;
    }
    if (c->t5) /* tied head: rescaled by d_model^-0.5 */
        y = zb_binary(b, OP_Mul, y, zb_const_float(b, 1.0 / sqrt((double)c->dim)));
    zb_scope(b, "%s", "");
    static const int64_t perm[2] = {1, 0};
    int mi[2] = {y, zb_transpose(b, shared, perm, 2)};
    zb_output(b, zb_node(b, OP_MatMul, "lm_head", mi, 2));
    return ST_OK;
}

/* ---- T5 --------------------------------------------------------------------- */

/* t5-v1_1-xxl-encoder: the text encoder of PixArt-alpha/Sigma and SD3. */
static const char *const t5_names[] = {"t5-small", "t5-base", "t5-large", "t5-v1_1-xxl-encoder",
                                       "custom"};
static const char *const t5_presets[] = {
    "layers=6:hidden=512:heads=8:d_kv=64:ff=2048:vocab=32128:version=1.0",
    "layers=12:hidden=768:heads=12:d_kv=64:ff=3072:vocab=32128:version=1.0",
    "layers=24:hidden=1024:heads=16:d_kv=64:ff=4096:vocab=32128:version=1.0",
    "layers=24:hidden=4096:heads=64:d_kv=64:ff=10240:vocab=32128:version=1.1:stack=encoder", ""};
static const char *const t5_versions[] = {"1.0", "1.1"};
static const char *const t5_stacks[] = {"encdec", "encoder"};

static const struct zoo_param t5_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = t5_names,
     .presets = t5_presets, .def = "t5-small",
     .help = "t5-small, t5-base or t5-large (sets every size parameter), or the T5 v1.1 XXL "
             "encoder t5-v1_1-xxl-encoder (also sets version and stack)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 1, .smax = 12,
     .def = "6", .help = "encoder blocks (and as many decoder blocks)"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "512", .help = "model width d_model"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "8", .help = "attention heads"},
    {.name = "d_kv", .type = ZOO_PT_INT, .min = 8, .max = 256, .step = 8, .smin = 32,
     .smax = 64, .def = "64", .help = "width of one head"},
    {.name = "ff", .type = ZOO_PT_INT, .min = 64, .max = 65536, .step = 64, .smin = 256,
     .smax = 4096, .def = "2048", .help = "feed-forward width"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 32128, .def = "32128", .help = "vocabulary size (shared embedding, tied head)"},
    {.name = "seq", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 16, .smax = 512,
     .def = "512", .help = "default of the seq symbol (source tokens)"},
    {.name = "tgt", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 1, .smax = 128,
     .def = "128", .help = "default of the tgt symbol (target tokens)"},
    {.name = "version", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = t5_versions,
     .def = "1.0", .unsampled = true,
     .help = "1.0: ReLU feed-forward, tied LM head; 1.1: gated GELU, untied LM head"},
    {.name = "stack", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = t5_stacks,
     .def = "encdec", .unsampled = true,
     .help = "encdec: encoder, decoder and LM head; encoder: the encoder alone (tgt unused)"},
};

static enum status t5_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct encdec c = {zoo_arg_int(a, "layers"), zoo_arg_int(a, "hidden"),
                       zoo_arg_int(a, "heads"), zoo_arg_int(a, "d_kv"), zoo_arg_int(a, "ff"),
                       true, strcmp(zoo_arg_enum(a, "version"), "1.1") == 0,
                       strcmp(zoo_arg_enum(a, "stack"), "encoder") == 0};
    return encdec_build(b, &c, zoo_arg_int(a, "vocab"), zoo_arg_int(a, "seq"),
                        zoo_arg_int(a, "tgt"), 0);
}

const struct zoo_family zoo_fam_t5 = {
    .name = "t5",
    .help = "T5 encoder-decoder: relative position bias, pre-norm, ReLU feed-forward",
    .n_params = sizeof t5_params / sizeof t5_params[0],
    .params = t5_params,
    .build = t5_build,
};

/* ---- BART ------------------------------------------------------------------- */

static const char *const bart_names[] = {"bart-base", "bart-large", "custom"};
static const char *const bart_presets[] = {"layers=6:hidden=768:heads=12:ff=3072:vocab=50265",
                                           "layers=12:hidden=1024:heads=16:ff=4096:vocab=50265",
                                           ""};

static const struct zoo_param bart_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 3, .choices = bart_names,
     .presets = bart_presets, .def = "bart-base",
     .help = "bart-base or bart-large (sets every size parameter)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 1, .smax = 12,
     .def = "6", .help = "encoder layers (and as many decoder layers)"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 16384, .step = 64, .smin = 128,
     .smax = 1024, .def = "768", .help = "model width (a multiple of heads)"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 2, .smax = 16,
     .def = "12", .help = "attention heads (must divide hidden)"},
    {.name = "ff", .type = ZOO_PT_INT, .min = 64, .max = 65536, .step = 64, .smin = 256,
     .smax = 4096, .def = "3072", .help = "feed-forward width"},
    {.name = "vocab", .type = ZOO_PT_INT, .min = 2, .max = 1048576, .smin = 1000,
     .smax = 50265, .def = "50265", .help = "vocabulary size (shared embedding, tied head)"},
    {.name = "max_position", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 128,
     .smax = 1024, .def = "1024", .help = "learned positions per stack (table of +2 rows)"},
    {.name = "seq", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 16, .smax = 512,
     .def = "512", .help = "default of the seq symbol (source tokens)"},
    {.name = "tgt", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 1, .smax = 128,
     .def = "128", .help = "default of the tgt symbol (target tokens)"},
};

static enum status bart_check(const struct zoo_args *a, struct diag *d)
{
    enum status st = zoo_check_multiple(a, "bart", "hidden", "heads", d);
    if (!st)
        st = zoo_check_positions(a, "bart", "seq", "max_position", d);
    return st ? st : zoo_check_positions(a, "bart", "tgt", "max_position", d);
}

static enum status bart_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int h = zoo_arg_int(a, "hidden"), heads = zoo_arg_int(a, "heads");
    struct encdec c = {zoo_arg_int(a, "layers"), h, heads, h / heads, zoo_arg_int(a, "ff"),
                       false, false, false};
    return encdec_build(b, &c, zoo_arg_int(a, "vocab"), zoo_arg_int(a, "seq"),
                        zoo_arg_int(a, "tgt"), zoo_arg_int(a, "max_position"));
}

const struct zoo_family zoo_fam_bart = {
    .name = "bart",
    .help = "BART encoder-decoder: learned positions, post-norm, GELU feed-forward",
    .n_params = sizeof bart_params / sizeof bart_params[0],
    .params = bart_params,
    .check = bart_check,
    .build = bart_build,
};
