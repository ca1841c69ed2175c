/* config.c - names of precisions and runtimes, defaults. */
#include "core/config.h"

#include <string.h>
#include <strings.h>


static const struct {
    const char *name;
    int bytes;
} precs[] = {
#define X(id, name, bytes) {name, bytes},
    PRECISION_LIST(X)
#undef X
};
_Static_assert(sizeof precs / sizeof precs[0] == PREC__COUNT, "precision table");

static const char *const runtimes[] = {
#define X(id, name) name,
    RUNTIME_LIST(X)
#undef X
};
_Static_assert(sizeof runtimes / sizeof runtimes[0] == RT__COUNT, "runtime table");

/* In the order a user meets them: eager, eager with fused attention, the
 * engine, the engine as a CUDA graph, the serving engine. */
static const char runtime_list[] = "pytorch, pytorch-sdpa, tensorrt, tensorrt-graph or vllm";

const char *precision_name(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].name : "?";
}

int precision_bytes(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].bytes : 4;
}

bool precision_parse(const char *s, enum precision *out)
{
    for (int i = 0; i < PREC__COUNT; i++)
        if (strcasecmp(s, precs[i].name) == 0) {
            *out = (enum precision)i;
            return true;
        }
    if (!strcasecmp(s, "float32") || !strcasecmp(s, "float")) {
        *out = PREC_FP32;
        return true;
    }
    if (!strcasecmp(s, "float16") || !strcasecmp(s, "half")) {
        *out = PREC_FP16;
        return true;
    }
    if (!strcasecmp(s, "bfloat16")) {
        *out = PREC_BF16;
        return true;
    }
    return false;
}

const char *runtime_name(enum runtime r)
{
    return (unsigned)r < RT__COUNT ? runtimes[r] : "?";
}

bool runtime_parse(const char *s, enum runtime *out)
{
    for (int i = 0; i < RT__COUNT; i++)
        if (strcasecmp(s, runtimes[i]) == 0) {
            *out = (enum runtime)i;
            return true;
        }
    if (!strcasecmp(s, "eager") || !strcasecmp(s, "torch")) {
        *out = RT_PYTORCH;
        return true;
    }
    if (!strcasecmp(s, "sdpa") || !strcasecmp(s, "pytorch2")) {
        *out = RT_PYTORCH_SDPA;
        return true;
    }
    if (!strcasecmp(s, "trt")) {
        *out = RT_TENSORRT;
        return true;
    }
    if (!strcasecmp(s, "trt-graph") || !strcasecmp(s, "tensorrt-cudagraph")) {
        *out = RT_TENSORRT_GRAPH;
        return true;
    }
    return false;
}

const char *runtime_names(void)
{
    return runtime_list;
}

void config_default(struct config *c)
{
    *c = (struct config){.gpu = CONFIG_DEFAULT_GPU, .mig = -1, .prec = PREC_FP32,
                         .rt = RT_PYTORCH, .batch = 1};
}
