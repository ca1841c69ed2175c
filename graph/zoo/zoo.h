/*
 * zoo.h - architecture templates with named hyperparameters that emit the
 * IR directly ("zoo:resnet:depth=101:width_per_group=128").
 *
 * A family (resnet, vgg, mobilenet_v2, ..., gpt, mlp) has a fixed list of
 * parameter descriptors (name, type, range or allowed values, default, help).
 * A configuration is a struct zoo_args holding one value per parameter; it is
 * built into a finalized graph whose nodes are standard ONNX ops, so shape
 * inference and the cost model treat it like any loaded model.
 *
 * Spec syntax: "[zoo:]FAMILY[:KEY=VALUE[:KEY=VALUE...]]". INTS values are
 * comma separated ("depths=3,3,9,3"). A parameter flagged as a preset
 * (e.g. resnet's preset=resnext50_32x4d) sets several others; it is applied
 * before the explicit keys whatever the order, so explicit keys override it.
 * The canonical spec (g->path) lists every parameter, preset first (an
 * `unsampled` parameter only when it is off its default); the preset reads
 * the most specific preset the values match (the one setting the most
 * parameters), or "custom" when they match none.
 *
 * Built graphs: g->format = "zoo", g->path = canonical spec, g->name = the
 * preset's name (e.g. "resnet50") or the family name. Symbols: "batch"
 * (default 1) on every model; image models and the diffusion denoisers
 * (unet, dit: the latent) have "height" and "width" (default: the family's
 * resolution parameter); BERT has "seq"; GPT and
 * LLaMA have "seq" (prefill: tokens processed; decode: tokens already in the
 * KV cache, which is a graph input per layer). Nodes
 * of repeated blocks carry block labels ("layer1.0", "features.3.1",
 * "encoder.layer.5"). Initializers have dtype and dims, never data.
 *
 * Sizes a model cannot take: ViT's position embedding is made for its
 * `image` parameter and VGG's classifier for its `resolution` (a multiple of
 * 224, where torchvision's adaptive 7x7 pool is a plain average pool), so
 * other height/width bindings fail shape
 * inference with ST_ESHAPE, as the real model would; Swin needs every
 * stage's map to be a multiple of its window; the DiT's position table
 * (PixArt's sin-cos table, SD3's stored table cropped) is a constant for
 * its `latent` (as an export traced at that size; set latent for another
 * size). BERT and GPT read position
 * ids from an input, so a seq beyond max_position/context is not caught.
 */
#ifndef DIPPM_ZOO_H
#define DIPPM_ZOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph/ir/ir.h"

#define ZOO_MAX_PARAMS 16 /* parameters per family */
#define ZOO_MAX_ITEMS 8   /* entries of an INTS parameter */

enum zoo_ptype {
    ZOO_PT_INT,   /* integer in [min, max] with step, or one of choices */
    ZOO_PT_FLOAT, /* real in [min, max] */
    ZOO_PT_ENUM,  /* one of choices (names) */
    ZOO_PT_INTS,  /* n_items integers, each in [min, max] */
    ZOO_PT__COUNT
};

/* Name of a parameter type ("int", "float", "enum", "ints"). */
const char *zoo_ptype_name(enum zoo_ptype t);

/* One hyperparameter descriptor (static data, never freed). */
struct zoo_param {
    const char *name;
    enum zoo_ptype type;
    double min, max;             /* INT/FLOAT/INTS: inclusive range (unused with choices) */
    int step;                    /* INT/INTS: valid values are min + k*step (0 = 1) */
    int n_items;                 /* INTS: number of entries */
    int n_choices;               /* ENUM, or INT restricted to a list */
    const char *const *choices;  /* ENUM names; INT allowed values as text */
    const char *const *presets;  /* ENUM presets: per choice "k=v:k=v" ("" = custom) */
    double smin, smax;           /* sampling range when narrower (0, 0 = min, max) */
    const char *def;             /* default value as text (spec syntax) */
    const char *help;            /* one line */
    /* Added after the shipped weights were trained: never drawn by the
     * sampler (it keeps its default) and written in the canonical spec only
     * when it differs from the default, so sampled datasets and the specs
     * of existing configurations stay as they were. */
    bool unsampled;
};

/* A configuration: one value per parameter of family fam. ENUM values are
 * choice indices; INT and FLOAT values are in num; INTS in ints. */
struct zoo_args {
    int fam;
    double num[ZOO_MAX_PARAMS];
    int ints[ZOO_MAX_PARAMS][ZOO_MAX_ITEMS];
};

/* ---- families and descriptors ---------------------------------------- */

int zoo_family_count(void);
/* Index of family name (exact, case-sensitive), or -1. */
int zoo_family_find(const char *name);
const char *zoo_family_name(int fam);
/* One-line description. */
const char *zoo_family_help(int fam);
/* "resnet, vgg, ..." into buf (for error messages); returns buf. */
const char *zoo_family_list(char *buf, size_t size);
int zoo_param_count(int fam);
/* Borrowed static descriptor; i in [0, zoo_param_count(fam)). */
const struct zoo_param *zoo_param_get(int fam, int i);
/* Index of parameter name in family fam, or -1. */
int zoo_param_find(int fam, const char *name);
/* Describes the valid values of p: "one of 18, 34, 50", "1 to 64",
 * "0.25 to 4", "4 integers from 1 to 64" ... into buf; returns buf. */
const char *zoo_param_range(const struct zoo_param *p, char *buf, size_t size);

/* ---- configurations --------------------------------------------------- */

/* Sets a to family fam's defaults. */
void zoo_args_init(struct zoo_args *a, int fam);
/* Parses value text for parameter key and stores it. Setting a preset
 * parameter also sets the parameters it names. ST_ENOTFOUND for an unknown
 * key (diag lists the family's parameters), ST_ERANGE for a bad value (diag
 * names the parameter and the valid range). Diag messages start with
 * "zoo:FAMILY: ". */
enum status zoo_args_set(struct zoo_args *a, const char *key, const char *value,
                         struct diag *d);
/* Checks constraints between parameters (e.g. hidden divisible by heads);
 * ST_ERANGE with a message naming both parameters. */
enum status zoo_args_check(const struct zoo_args *a, struct diag *d);
/* Writes the value of parameter i as spec text. */
const char *zoo_args_value(const struct zoo_args *a, int i, char *buf, size_t size);
/* Canonical spec "zoo:FAMILY:k=v:..." (every parameter). Returns the length
 * it needed (like snprintf). */
int zoo_args_spec(const struct zoo_args *a, char *buf, size_t size);
/* Parses spec ("zoo:" prefix optional) into a. Unknown family lists the
 * known ones. */
enum status zoo_args_parse(const char *spec, struct zoo_args *a, struct diag *d);

/* ---- building ---------------------------------------------------------- */

/* Builds and finalizes the graph for a (checked first). Caller frees with
 * graph_free. NULL with diag on an invalid configuration. */
struct graph *zoo_build(const struct zoo_args *a, struct diag *d);
/* zoo_args_parse + zoo_build. */
struct graph *zoo_build_spec(const char *spec, struct diag *d);

/* Family name of a graph built by the zoo (parsed from g->path), or NULL
 * for graphs that did not come from the zoo. Copies into buf. */
const char *zoo_graph_family(const struct graph *g, char *buf, size_t size);

/* ---- sampling ---------------------------------------------------------- */

/* Draws a valid configuration of family fam: each parameter but the
 * unsampled ones uniformly over its declared values (its sampling range, which for a few size parameters
 * such as vocabulary or context is narrower than the accepted range so that
 * sampled graphs stay moderate), redrawn until the cross-parameter
 * constraints hold. Presets are not drawn (they are shortcuts). *rng_state
 * is advanced (xorshift64*; a zero state is replaced by a fixed seed), so
 * the same seed gives the same sequence. Writes the canonical spec. */
enum status zoo_sample_spec(int fam, uint64_t *rng_state, char *spec, size_t size,
                            struct diag *d);

#endif
