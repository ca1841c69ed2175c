/* zoo_dit.h - shared by the two denoiser transformers of the zoo:dit
 * template: PixArt's DiT (zoo_dit.c, arch=pixart) and Stable Diffusion 3's
 * MMDiT (zoo_mmdit.c, arch=mmdit). */
#ifndef DIPPM_ZOO_DIT_H
#define DIPPM_ZOO_DIT_H

#include <stdbool.h>

#include "graph/zoo/zoo_impl.h"

#define DIT_TIME_CH 256 /* Timesteps(num_channels=256) */

/* One zoo:dit configuration. */
struct dit {
    int layers, hidden, heads, patch, latent, tokens, caption, cin, cout;
    bool size_cond;   /* pixart: resolution and aspect-ratio conditioning */
    int pooled;       /* mmdit: width of the pooled text embedding */
    int pos_max;      /* mmdit: side of the stored position table */
};

/* LayerNorm(elementwise_affine=False, eps=1e-6) "<local>" over the last
 * axis of width c. */
int dit_layernorm_plain(struct zoo_build *b, int x, const char *local, int c);
/* x * (1 + scale) + shift (scale, shift [B, 1, D]). */
int dit_modulate(struct zoo_build *b, int x, int shift, int scale);
/* x [B, n, D] split into n chunks [B, 1, D] along axis 1 into out[]. */
void dit_chunks(struct zoo_build *b, int x, int n, int *out);
/* GELU(approximate="tanh"). */
int dit_gelu_tanh(struct zoo_build *b, int x);
/* FeedForward gelu-approximate "<prefix>.net.0.proj", "<prefix>.net.2":
 * d -> 4d -> d. */
int dit_feed_forward(struct zoo_build *b, int x, const char *prefix, int d);
/* TimestepEmbedding "<scope>.linear_1/2" (SiLU between) on x [.., in]. */
int dit_time_embedding(struct zoo_build *b, int x, const char *scope, int in, int out);
/* PatchEmbed's projection of x [B, cin, H, W]: the patch x patch stride
 * conv "proj", flattened to tokens [B, N, D] (the caller's scope). */
int dit_patchify(struct zoo_build *b, const struct dit *m, int x);
/* proj_out hidden -> patch^2 x out_channels on x [B, N, D] and unpatchify
 * (einsum nhwpqc->nchpwq) to [B, out_channels, latent, latent]. */
int dit_unpatchify(struct zoo_build *b, const struct dit *m, int x);

/* SD3's MMDiT (zoo_mmdit.c). */
enum status mmdit_build(struct zoo_build *b, const struct dit *m);

#endif
