/* ops.c - catalogue tables generated from ops.def. */
#include "graph/ir/ops.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>


struct op_info {
    const char *name;
    unsigned char len; /* strlen(name): compared before the bytes in op_lookup */
    int min_in, max_in;
    enum op_class cls;
    unsigned flags; /* enum op_flag bits */
};

static const struct op_info op_table[] = {
#define X(name, min_in, max_in, cls, shape_fn, cost_fn, fl, flags)                           \
    {#name, sizeof #name - 1, min_in, max_in, cls, flags},
#include "graph/ir/ops.def"
#undef X
};
_Static_assert(sizeof op_table / sizeof op_table[0] == OP__COUNT, "ops.def table size");


static const char *const class_names[] = {
#define X(id, str) str,
    OP_CLASS_LIST(X)
#undef X
};
_Static_assert(sizeof class_names / sizeof class_names[0] == OPC__COUNT, "op class table");

/* op_lookup's index: an open-addressing table of op numbers + 1 (0 = empty)
 * keyed by the FNV-1a hash of the name, built once. */
#define OP_SLOTS 512
_Static_assert(OP__COUNT * 2 < OP_SLOTS, "op index load factor");
static short op_slots[OP_SLOTS];
static pthread_once_t op_once = PTHREAD_ONCE_INIT;

static uint32_t op_hash(const char *s, size_t *len)
{
    uint32_t h = 2166136261u;
    const char *p = s;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    *len = (size_t)(p - s);
    return h;
}

static void op_index_build(void)
{
    for (int i = 0; i < OP__COUNT; i++) {
        size_t len;
        uint32_t j = op_hash(op_table[i].name, &len) & (OP_SLOTS - 1);
        while (op_slots[j])
            j = (j + 1) & (OP_SLOTS - 1);
        op_slots[j] = (short)(i + 1);
    }
}

enum op op_lookup(const char *op_type)
{
    pthread_once(&op_once, op_index_build);
    size_t len;
    for (uint32_t j = op_hash(op_type, &len) & (OP_SLOTS - 1); op_slots[j];
         j = (j + 1) & (OP_SLOTS - 1)) {
        const struct op_info *o = &op_table[op_slots[j] - 1];
        if (o->len == len && memcmp(o->name, op_type, len) == 0)
            return (enum op)(op_slots[j] - 1);
    }
    return OP__UNKNOWN;
}

const char *op_name(enum op op)
{
    return (unsigned)op < OP__COUNT ? op_table[op].name : "?";
}

int op_min_inputs(enum op op)
{
    return (unsigned)op < OP__COUNT ? op_table[op].min_in : 0;
}

int op_max_inputs(enum op op)
{
    return (unsigned)op < OP__COUNT ? op_table[op].max_in : -1;
}

enum op_class op_class_of(enum op op)
{
    return (unsigned)op < OP__COUNT ? op_table[op].cls : OPC_OTHER;
}

bool op_is_view(enum op op)
{
    return (unsigned)op < OP__COUNT && (op_table[op].flags & OPF_VIEW);
}

bool op_is_config_only(enum op op)
{
    return (unsigned)op < OP__COUNT && (op_table[op].flags & OPF_ARGS);
}

const char *op_class_name(enum op_class c)
{
    return (unsigned)c < OPC__COUNT ? class_names[c] : "?";
}
