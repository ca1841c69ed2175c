/* zoo_mlp.c - a multilayer perceptron: Gemm + activation layers. */
#include <stdio.h>

#include "graph/zoo/zoo_impl.h"

static const char *const mlp_acts[] = {"relu", "gelu", "tanh", "sigmoid", "silu"};
static const enum op mlp_ops[] = {OP_Relu, OP_Gelu, OP_Tanh, OP_Sigmoid, OP_Silu};

static const struct zoo_param mlp_params[] = {
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 1, .smax = 8, .def = "3",
     .help = "hidden layers (each Gemm + activation), then the output Gemm"},
    {.name = "width", .type = ZOO_PT_INT, .min = 1, .max = 65536, .smin = 16, .smax = 4096,
     .def = "512", .help = "units per hidden layer"},
    {.name = "features", .type = ZOO_PT_INT, .min = 1, .max = 1048576, .smin = 16,
     .smax = 4096, .def = "784", .help = "input features"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "10", .help = "outputs"},
    {.name = "activation", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = mlp_acts,
     .def = "relu", .help = "hidden-layer activation"},
};

static enum status mlp_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int width = zoo_arg_int(a, "width"), cin = zoo_arg_int(a, "features");
    const char *act = zoo_arg_enum(a, "activation");
    enum op op = OP_Relu;
    for (int i = 0; i < 5; i++)
        if (mlp_acts[i] == act)
            op = mlp_ops[i];
    const int64_t dims[2] = {1, cin};
    const char *const syms[2] = {"batch", NULL};
    int x = zb_input(b, "input", DT_FLOAT, 2, dims, syms);
    for (int l = 0; l < zoo_arg_int(a, "layers"); l++) {
        zb_scope(b, "layers.%d", l);
        x = zb_act(b, zb_gemm(b, x, "fc", cin, width, true), op);
        cin = width;
    }
    zb_scope(b, "%s", "");
    zb_output(b, zb_gemm(b, x, "head", cin, zoo_arg_int(a, "classes"), true));
    return ST_OK;
}

const struct zoo_family zoo_fam_mlp = {
    .name = "mlp",
    .help = "multilayer perceptron: features -> layers x (Gemm + activation) -> classes",
    .n_params = sizeof mlp_params / sizeof mlp_params[0],
    .params = mlp_params,
    .check = NULL,
    .build = mlp_build,
};
