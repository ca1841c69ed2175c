/* ops.c - catalogue tables generated from ops.def. */
#include "ops.h"

#include <string.h>

#include "ops_impl.h"

struct op_info {
    const char *name;
    unsigned char len; /* strlen(name): a cheap first filter in op_lookup */
    int min_in, max_in;
    enum op_class cls;
    unsigned flags; /* enum op_flag bits */
};

static const struct op_info op_table[] = {
#define X(name, min_in, max_in, cls, shape_fn, cost_fn, fl, flags)                           \
    {#name, sizeof #name - 1, min_in, max_in, cls, flags},
#include "ops.def"
#undef X
};
_Static_assert(sizeof op_table / sizeof op_table[0] == OP__COUNT, "ops.def table size");

/* Shape and cost functions and per-element FLOPs (ops_impl.h). */
static const struct op_impl impl_table[] = {
#define X(name, min_in, max_in, cls, shape_fn, cost_fn, fl, flags) {shape_fn, cost_fn, fl},
#include "ops.def"
#undef X
};
_Static_assert(sizeof impl_table / sizeof impl_table[0] == OP__COUNT, "ops.def impl table");

static const char *const class_names[] = {
#define X(id, str) str,
    OP_CLASS_LIST(X)
#undef X
};
_Static_assert(sizeof class_names / sizeof class_names[0] == OPC__COUNT, "op class table");

enum op op_lookup(const char *op_type)
{
    /* ~180 entries scanned once per node at load time; comparing length and
     * first letter before strcmp keeps that to a few hundred nanoseconds. */
    size_t len = strlen(op_type);
    for (int i = 0; i < OP__COUNT; i++)
        if (op_table[i].len == len && op_table[i].name[0] == op_type[0] &&
            memcmp(op_table[i].name, op_type, len) == 0)
            return (enum op)i;
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

const struct op_impl *op_impl_get(enum op op)
{
    return (unsigned)op < OP__COUNT ? &impl_table[op] : NULL;
}
