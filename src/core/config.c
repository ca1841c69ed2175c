/* config.c - names of precisions and runtimes, defaults. */
#include "core/config.h"

#include <pthread.h>
#include <stdio.h>
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

/* A compute mode over another precision's storage, not a type tensors are
 * stored in (a KV cache's precision is one that is). */
static const bool prec_compute_only[PREC__COUNT] = {[PREC_TF32] = true};

/* The other names precision_parse takes, space-separated. */
static const char *const prec_aliases[PREC__COUNT] = {
    [PREC_FP32] = "float32 float", [PREC_FP16] = "float16 half", [PREC_BF16] = "bfloat16"};

static const char *const runtimes[] = {
#define X(id, name) name,
    RUNTIME_LIST(X)
#undef X
};
_Static_assert(sizeof runtimes / sizeof runtimes[0] == RT__COUNT, "runtime table");

/* The order lists show runtimes in, as a user meets them: eager, eager with
 * fused attention, torch.compile and its CUDA graphs, the engine, the
 * engine as a CUDA graph, the serving engine. Every runtime once
 * (tests/test_config.c). */
static const enum runtime rt_order[] = {RT_PYTORCH,  RT_PYTORCH_SDPA, RT_INDUCTOR,
                                        RT_INDUCTOR_GRAPH, RT_TENSORRT, RT_TENSORRT_GRAPH,
                                        RT_VLLM};
_Static_assert(sizeof rt_order / sizeof rt_order[0] == RT__COUNT, "runtime list order");

/* The other names runtime_parse takes, space-separated. */
static const char *const rt_aliases[RT__COUNT] = {
    [RT_PYTORCH] = "eager torch", [RT_PYTORCH_SDPA] = "sdpa pytorch2", [RT_TENSORRT] = "trt",
    [RT_TENSORRT_GRAPH] = "trt-graph tensorrt-cudagraph",
    [RT_INDUCTOR] = "torch-compile compile",
    [RT_INDUCTOR_GRAPH] = "reduce-overhead inductor-cudagraph torch-compile-graph"};

/* The lists for messages, made once from the tables. */
static char prec_list[128], prec_storage_list[128], rt_list[128];
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

/* Appends name as item i of n: "a", ", b", " or c". */
static void list_add(char *buf, size_t size, const char *name, int i, int n)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", name);
}

static void lists_make(void)
{
    int n_storage = 0;
    for (int p = 0; p < PREC__COUNT; p++)
        n_storage += !prec_compute_only[p];
    for (int p = 0, k = 0; p < PREC__COUNT; p++) {
        list_add(prec_list, sizeof prec_list, precs[p].name, p, PREC__COUNT);
        if (!prec_compute_only[p])
            list_add(prec_storage_list, sizeof prec_storage_list, precs[p].name, k++, n_storage);
    }
    for (int i = 0; i < RT__COUNT; i++)
        list_add(rt_list, sizeof rt_list, runtimes[rt_order[i]], i, RT__COUNT);
}

/* Whether s is one of the space-separated names in aliases (any case). */
static bool alias_of(const char *s, const char *aliases)
{
    size_t n = strlen(s);
    for (const char *a = aliases ? aliases : ""; *a;) {
        size_t len = strcspn(a, " ");
        if (len == n && strncasecmp(a, s, n) == 0)
            return true;
        a += len;
        a += *a == ' ';
    }
    return false;
}

const char *precision_name(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].name : "?";
}

int precision_bytes(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].bytes : 4;
}

bool precision_storage(enum precision p)
{
    return (unsigned)p < PREC__COUNT && !prec_compute_only[p];
}

bool precision_parse(const char *s, enum precision *out)
{
    for (int i = 0; i < PREC__COUNT; i++)
        if (strcasecmp(s, precs[i].name) == 0) {
            *out = (enum precision)i;
            return true;
        }
    for (int i = 0; i < PREC__COUNT; i++)
        if (alias_of(s, prec_aliases[i])) {
            *out = (enum precision)i;
            return true;
        }
    return false;
}

const char *precision_names(void)
{
    pthread_once(&lists_once, lists_make);
    return prec_list;
}

const char *precision_storage_names(void)
{
    pthread_once(&lists_once, lists_make);
    return prec_storage_list;
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
    for (int i = 0; i < RT__COUNT; i++)
        if (alias_of(s, rt_aliases[i])) {
            *out = (enum runtime)i;
            return true;
        }
    return false;
}

const char *runtime_names(void)
{
    pthread_once(&lists_once, lists_make);
    return rt_list;
}

void config_default(struct config *c)
{
    *c = (struct config){.gpu = CONFIG_DEFAULT_GPU, .mig = -1, .prec = PREC_FP32,
                         .rt = RT_PYTORCH, .batch = 1};
}
