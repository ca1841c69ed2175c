/* zoo_mmdit.c - Stable Diffusion 3's MMDiT denoiser (zoo:dit:arch=mmdit) as
 * diffusers' SD3Transformer2DModel computes it: one denoising step on a
 * latent of `latent` x `latent` (symbols height and width). The image
 * tokens and the text tokens keep separate weights (two streams) and meet
 * in one attention over both. The sinusoidal timestep features (Timesteps,
 * 256 channels), the text encoders' token states (caption_dim wide, the
 * CLIP states padded to the T5 width and followed by the T5 tokens:
 * `tokens` in all) and their pooled embedding (`pooled` wide) are inputs, as
 * the pipeline computes them outside the transformer.
 *
 *   pos_embed          PatchEmbed: Conv2d in_channels -> hidden, kernel =
 *                      stride = patch, flattened to tokens, plus the centre
 *                      crop of a stored pos_max x pos_max position table (a
 *                      persistent buffer: a Constant, not a parameter)
 *   time_text_embed    CombinedTimestepTextProjEmbeddings: TimestepEmbedding
 *                      (Linear 256 -> hidden, SiLU, Linear) plus the pooled
 *                      text projection (Linear pooled -> hidden, SiLU,
 *                      Linear): the conditioning temb [B, hidden]
 *   context_embedder   Linear caption_dim -> hidden on the text tokens
 *   transformer_blocks JointTransformerBlock: per stream an adaLN-Zero
 *                      (SiLU(temb), Linear hidden -> 6 x hidden: shift,
 *                      scale, gate for attention and MLP) and a LayerNorm
 *                      without affine; biased q/k/v per stream (to_q/k/v
 *                      for the image, add_q/k/v_proj for the text),
 *                      attention over the concatenated tokens, split back:
 *                      to_out.0 and to_add_out, gated residuals; per stream
 *                      LayerNorm, modulation, FeedForward gelu-approximate
 *                      4 x hidden, gated residual. The last block
 *                      (context_pre_only) modulates the text by an
 *                      AdaLayerNormContinuous (2 x hidden: scale, shift),
 *                      still projects its q/k/v, and drops the text stream
 *                      after the attention: no to_add_out, no ff_context.
 *   norm_out           AdaLayerNormContinuous (scale, shift from temb)
 *   proj_out           hidden -> patch^2 x out_channels, unpatchify
 *
 * No QK normalisation (SD3-medium; SD3.5 adds RMSNorm on q and k) and no
 * dual-attention layers (SD3.5). As for the PixArt DiT, the position crop is
 * made for `latent`: other height/width bindings fail shape inference. */
#include <stdio.h>

#include "graph/zoo/zoo_dit.h"

/* The crop of pos_embed [1, pos_max^2, D] to the latent's grid, centred
 * (PatchEmbed.cropped_pos_embed): [1, grid^2, D]. */
static int cropped_pos_embed(struct zoo_build *b, const struct dit *m)
{
    int D = m->hidden, P = m->pos_max, grid = m->latent / m->patch;
    char key[64];
    snprintf(key, sizeof key, "pos_embed_%dx%dx%d", P, P, D);
    const int64_t td[3] = {1, (int64_t)P * P, D}, sq[4] = {1, P, P, D};
    int t = zb_reshape(b, zb_const_float_nodata(b, key, 3, td), sq, 4);
    const int64_t top = (P - grid) / 2, starts[2] = {top, top};
    const int64_t ends[2] = {top + grid, top + grid}, axes[2] = {1, 2};
    t = zb_slice(b, t, starts, ends, axes, NULL, 2);
    const int64_t flat[3] = {1, -1, D};
    return zb_reshape(b, t, flat, 3);
}

/* temb = timestep_embedder(time features) + text_embedder(pooled). */
static int conditioning(struct zoo_build *b, const struct dit *m)
{
    const char *const bs[2] = {"batch", NULL};
    const int64_t td[2] = {1, DIT_TIME_CH}, pd[2] = {1, m->pooled};
    int tf = zb_input(b, "time_features", DT_FLOAT, 2, td, bs);
    int pooled = zb_input(b, "pooled_projections", DT_FLOAT, 2, pd, bs);
    int t = dit_time_embedding(b, tf, "time_text_embed.timestep_embedder", DIT_TIME_CH, m->hidden);
    zb_scope(b, "time_text_embed.text_embedder");
    int p = zb_act(b, zb_linear(b, pooled, "linear_1", m->pooled, m->hidden, true), OP_Silu);
    p = zb_linear(b, p, "linear_2", m->hidden, m->hidden, true);
    zb_scope(b, "time_text_embed");
    return zb_binary(b, OP_Add, t, p);
}

/* "<local>.linear" on SiLU(temb) [B, D] to n x D, as n chunks [B, 1, D]. */
static void ada_chunks(struct zoo_build *b, int temb, const char *local, int D, int n, int *out)
{
    char name[48];
    snprintf(name, sizeof name, "%s.linear", local);
    int e = zb_linear(b, zb_act(b, temb, OP_Silu), name, D, n * D, true);
    const int64_t shape[3] = {0, n, D};
    dit_chunks(b, zb_reshape(b, e, shape, 3), n, out);
}

/* Biased projection "<local>" of x [B, S, D] split into heads
 * [B, heads, S, hd] (keys: [B, heads, hd, S]). */
static int head_proj(struct zoo_build *b, int x, const char *local, int D, int heads, bool key)
{
    const int64_t shape[4] = {0, 0, heads, D / heads};
    static const int64_t pq[4] = {0, 2, 1, 3}, pk[4] = {0, 2, 3, 1};
    return zb_transpose(b, zb_reshape(b, zb_linear(b, x, local, D, D, true), shape, 4),
                        key ? pk : pq, 4);
}

/* The joint attention "attn" of image tokens x [B, N, D] and text tokens
 * c [B, T, D] (JointAttnProcessor2_0): the image's output through to_out.0
 * into *ox, the text's through to_add_out into *oc unless last. */
static void joint_attention(struct zoo_build *b, const struct dit *m, int x, int c, bool last,
                            int *ox, int *oc)
{
    static const char *const img[3] = {"attn.to_q", "attn.to_k", "attn.to_v"};
    static const char *const txt[3] = {"attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj"};
    int D = m->hidden, h = m->heads, qkv[3];
    for (int i = 0; i < 3; i++) {
        int both[2];
        both[0] = head_proj(b, x, img[i], D, h, i == 1);
        both[1] = head_proj(b, c, txt[i], D, h, i == 1);
        qkv[i] = zb_concat(b, both, 2, i == 1 ? 3 : 2); /* image tokens first */
    }
    int o = zb_sdpa(b, qkv[0], qkv[1], qkv[2], h, D / h);
    const int64_t zero = 0, split = -m->tokens, end = ZB_SLICE_END, axis = 1;
    *ox = zb_linear(b, zb_slice(b, o, &zero, &split, &axis, NULL, 1), "attn.to_out.0", D, D, true);
    if (!last)
        *oc = zb_linear(b, zb_slice(b, o, &split, &end, &axis, NULL, 1), "attn.to_add_out", D, D,
                        true);
}

/* x + gate * y (gate [B, 1, D]). */
static int gated(struct zoo_build *b, int x, int gate, int y)
{
    return zb_binary(b, OP_Add, x, zb_binary(b, OP_Mul, gate, y));
}

/* JointTransformerBlock on x [B, N, D] and *c [B, T, D] (updated unless
 * last, the context_pre_only block); returns the new x. */
static int joint_block(struct zoo_build *b, const struct dit *m, int x, int *c, int temb, bool last)
{
    int D = m->hidden;
    int mx[6], mc[6]; /* shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp */
    ada_chunks(b, temb, "norm1", D, 6, mx);
    int nx = dit_modulate(b, dit_layernorm_plain(b, x, "norm1.norm", D), mx[0], mx[1]);
    int nc;
    if (last) { /* AdaLayerNormContinuous: scale, then shift */
        ada_chunks(b, temb, "norm1_context", D, 2, mc);
        nc = dit_modulate(b, dit_layernorm_plain(b, *c, "norm1_context.norm", D), mc[1], mc[0]);
    } else {
        ada_chunks(b, temb, "norm1_context", D, 6, mc);
        nc = dit_modulate(b, dit_layernorm_plain(b, *c, "norm1_context.norm", D), mc[0], mc[1]);
    }
    int ox, oc = -1;
    joint_attention(b, m, nx, nc, last, &ox, &oc);
    x = gated(b, x, mx[2], ox);
    int h = dit_modulate(b, dit_layernorm_plain(b, x, "norm2", D), mx[3], mx[4]);
    x = gated(b, x, mx[5], dit_feed_forward(b, h, "ff", D));
    if (last)
        return x;
    *c = gated(b, *c, mc[2], oc);
    h = dit_modulate(b, dit_layernorm_plain(b, *c, "norm2_context", D), mc[3], mc[4]);
    *c = gated(b, *c, mc[5], dit_feed_forward(b, h, "ff_context", D));
    return x;
}

enum status mmdit_build(struct zoo_build *b, const struct dit *m)
{
    int D = m->hidden;
    const int64_t sd[4] = {1, m->cin, m->latent, m->latent};
    const char *const ss[4] = {"batch", NULL, "height", "width"};
    int x = zb_input(b, "hidden_states", DT_FLOAT, 4, sd, ss);
    const int64_t cd[3] = {1, m->tokens, m->caption};
    const char *const bs[3] = {"batch", NULL, NULL};
    int c = zb_input(b, "encoder_hidden_states", DT_FLOAT, 3, cd, bs);

    zb_scope(b, "pos_embed");
    x = zb_binary(b, OP_Add, dit_patchify(b, m, x), cropped_pos_embed(b, m));
    int temb = conditioning(b, m);
    zb_scope(b, "%s", "");
    c = zb_linear(b, c, "context_embedder", m->caption, D, true);

    for (int l = 0; l < m->layers; l++) {
        zb_scope(b, "transformer_blocks.%d", l);
        x = joint_block(b, m, x, &c, temb, l == m->layers - 1);
    }
    zb_scope(b, "%s", "");
    int mod[2]; /* scale, shift */
    ada_chunks(b, temb, "norm_out", D, 2, mod);
    x = dit_modulate(b, dit_layernorm_plain(b, x, "norm_out.norm", D), mod[1], mod[0]);
    zb_output(b, dit_unpatchify(b, m, x));
    return ST_OK;
}
