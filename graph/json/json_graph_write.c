/*
 * json_graph_write.c - dippm JSON graph writer (jsonw). The layout is in
 * json_graph.c and man/dippm-json.5; the writer always emits the typed form
 * for floats and lists so that a read gives back exactly the same graph.
 */
#include "graph/json/json_graph.h"

#include <math.h>
#include <stdio.h>

#include "util/jsonw.h"

#define EXACT_INT_LIMIT 9007199254740992.0 /* 2^53: beyond it, decimal strings */

static void put_i64(struct jsonw *w, int64_t v)
{
    if (fabs((double)v) < EXACT_INT_LIMIT) {
        jsonw_int(w, v);
    } else {
        char b[32];
        snprintf(b, sizeof b, "%lld", (long long)v);
        jsonw_str(w, b);
    }
}

static void put_f64(struct jsonw *w, double v, bool force_point)
{
    if (isfinite(v))
        jsonw_num(w, v, force_point);
    else
        jsonw_str(w, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* ---- writing -------------------------------------------------------------- */

static void write_shape(struct jsonw *w, const struct graph *g, const struct value *v)
{
    if (v->rank < 0)
        return;
    jsonw_key(w, "shape");
    jsonw_arr_begin(w, true);
    for (int i = 0; i < v->rank; i++) {
        if (v->dims[i].sym >= 0)
            jsonw_str(w, g->syms[v->dims[i].sym].name);
        else if (v->dims[i].v < 0)
            jsonw_null(w);
        else
            jsonw_int(w, v->dims[i].v);
    }
    jsonw_arr_end(w);
}

static void write_data(struct jsonw *w, const struct tconst *t)
{
    if (!t || (!t->i64 && !t->f64))
        return;
    jsonw_key(w, "data");
    jsonw_arr_begin(w, true);
    for (int64_t i = 0; i < t->n; i++) {
        if (t->i64)
            put_i64(w, t->i64[i]);
        else
            put_f64(w, t->f64[i], false);
    }
    jsonw_arr_end(w);
}

static void write_value(struct jsonw *w, const struct graph *g, const struct value *v,
                        bool with_data)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "name", v->name);
    if (v->dtype != DT_UNDEFINED) {
        jsonw_key_str(w, "dtype", dtype_name(v->dtype));
    }
    write_shape(w, g, v);
    if (with_data)
        write_data(w, v->data);
    jsonw_obj_end(w);
}

static void write_tensor(struct jsonw *w, const struct tconst *t)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "dtype", dtype_name(t->dt));
    jsonw_key(w, "shape");
    jsonw_arr_begin(w, true);
    for (int i = 0; i < t->rank; i++)
        jsonw_int(w, t->dims[i]);
    jsonw_arr_end(w);
    write_data(w, t);
    jsonw_obj_end(w);
}

static void write_attr(struct jsonw *w, const struct attr *a)
{
    jsonw_key(w, a->name);
    switch (a->type) {
    case ATTR_INT:
        if (fabs((double)a->i) < EXACT_INT_LIMIT) {
            jsonw_int(w, a->i);
        } else {
            jsonw_obj_begin(w);
            jsonw_key(w, "int");
            put_i64(w, a->i);
            jsonw_obj_end(w);
        }
        break;
    case ATTR_FLOAT:
        jsonw_obj_begin(w);
        jsonw_key(w, "float");
        put_f64(w, a->f, true);
        jsonw_obj_end(w);
        break;
    case ATTR_STRING:
        jsonw_str(w, a->s);
        break;
    case ATTR_INTS:
    case ATTR_FLOATS:
    case ATTR_STRINGS:
        jsonw_obj_begin(w);
        jsonw_key(w, a->type == ATTR_INTS ? "ints" : a->type == ATTR_FLOATS ? "floats" : "strings");
        jsonw_arr_begin(w, true);
        for (int i = 0; i < a->n; i++) {
            if (a->type == ATTR_INTS)
                put_i64(w, a->ints[i]);
            else if (a->type == ATTR_FLOATS)
                put_f64(w, a->floats[i], true);
            else
                jsonw_str(w, a->strings[i]);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
        break;
    case ATTR_TENSOR:
        jsonw_obj_begin(w);
        jsonw_key(w, "tensor");
        write_tensor(w, a->t);
        jsonw_obj_end(w);
        break;
    case ATTR_GRAPH:
    default:
        jsonw_obj_begin(w);
        jsonw_key(w, "graph");
        jsonw_null(w);
        jsonw_obj_end(w);
        break;
    }
}

char *json_graph_write(const struct graph *g, size_t *len)
{
    struct jsonw w;
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    jsonw_key_str(&w, "format", JSON_GRAPH_FORMAT);
    jsonw_key_int(&w, "version", JSON_GRAPH_VERSION);
    jsonw_key_str(&w, "name", g->name);
    jsonw_key_int(&w, "opset", g->opset);
    jsonw_key(&w, "symbols");
    jsonw_obj_begin(&w);
    for (int i = 0; i < g->n_syms; i++) {
        jsonw_key_int(&w, g->syms[i].name, g->syms[i].def);
    }
    jsonw_obj_end(&w);

    jsonw_key(&w, "inputs");
    jsonw_arr_begin(&w, false);
    for (int i = 0; i < g->n_inputs; i++)
        write_value(&w, g, &g->values[g->inputs[i]], false);
    jsonw_arr_end(&w);

    jsonw_key(&w, "initializers");
    jsonw_arr_begin(&w, false);
    for (int vi = 0; vi < g->n_values; vi++)
        if (g->values[vi].flags & VAL_INIT)
            write_value(&w, g, &g->values[vi], true);
    jsonw_arr_end(&w);

    /* declared types of intermediate values (e.g. ONNX value_info), and
     * constants known without being initializers */
    jsonw_key(&w, "values");
    jsonw_arr_begin(&w, false);
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (v->flags & (VAL_INIT | VAL_INPUT | VAL_OUTPUT))
            continue;
        if (v->dtype == DT_UNDEFINED && v->rank < 0 && !v->data)
            continue;
        write_value(&w, g, v, true);
    }
    jsonw_arr_end(&w);

    jsonw_key(&w, "nodes");
    jsonw_arr_begin(&w, false);
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const struct node *n = &g->nodes[ni];
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "name", n->name);
        jsonw_key_str(&w, "op", n->op_type);
        if (n->domain && *n->domain) {
            jsonw_key_str(&w, "domain", n->domain);
        }
        jsonw_key(&w, "inputs");
        jsonw_arr_begin(&w, true);
        for (int j = 0; j < n->n_in; j++)
            jsonw_str(&w, n->in[j] >= 0 ? g->values[n->in[j]].name : "");
        jsonw_arr_end(&w);
        jsonw_key(&w, "outputs");
        jsonw_arr_begin(&w, true);
        for (int j = 0; j < n->n_out; j++)
            jsonw_str(&w, g->values[n->out[j]].name);
        jsonw_arr_end(&w);
        if (n->block) {
            jsonw_key_str(&w, "block", n->block);
        }
        if (n->n_attr) {
            jsonw_key(&w, "attrs");
            jsonw_obj_begin(&w);
            for (int k = 0; k < n->n_attr; k++)
                write_attr(&w, &n->attrs[k]);
            jsonw_obj_end(&w);
        }
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);

    jsonw_key(&w, "outputs");
    jsonw_arr_begin(&w, false);
    for (int i = 0; i < g->n_outputs; i++)
        write_value(&w, g, &g->values[g->outputs[i]], false);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}
