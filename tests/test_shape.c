/* test_shape.c - shape inference and cost: one table row per op family with
 * hand-computed shapes, MACs, FLOPs and params (the arithmetic is in the
 * comments), error rows that must give ST_ESHAPE naming the node, and
 * focused tests for folding, symbol rebinding, unsupported ops, liveness
 * and the tiny_cnn sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/arena.h"
#include "graph/json/json_graph.h"
#include "graph/load.h"
#include "graph/ops/shape.h"

/* ---- JSON helpers -------------------------------------------------------- */

#define F32(name, shape) "{\"name\":\"" name "\",\"dtype\":\"float32\",\"shape\":" shape "}"
#define I64(name, shape, data)                                                      \
    "{\"name\":\"" name "\",\"dtype\":\"int64\",\"shape\":" shape ",\"data\":" data "}"
#define F32D(name, shape, data)                                                     \
    "{\"name\":\"" name "\",\"dtype\":\"float32\",\"shape\":" shape ",\"data\":" data "}"
#define NODE(name, op, ins, outs, attrs)                                            \
    "{\"name\":\"" name "\",\"op\":\"" op "\",\"inputs\":" ins ",\"outputs\":" outs \
    ",\"attrs\":" attrs "}"

static struct graph *parse(int opset, const char *inputs, const char *inits, const char *nodes,
                           const char *syms)
{
    char *buf = malloc(1 << 16);
    snprintf(buf, 1 << 16,
             "{\"format\":\"dippm-graph\",\"version\":1,\"name\":\"t\",\"opset\":%d,"
             "\"symbols\":{%s},\"inputs\":[%s],\"initializers\":[%s],\"nodes\":[%s]}",
             opset, syms ? syms : "", inputs, inits, nodes);
    struct diag d = {0};
    struct graph *g = json_graph_parse(buf, strlen(buf), "test", &d);
    if (!g)
        fprintf(stderr, "parse failed: %s\n%s\n", d.msg, buf);
    free(buf);
    return g;
}

static const char *vshape(const struct graph *g, const char *name, char *buf, int size)
{
    int vi = graph_value_find(g, name);
    if (vi < 0)
        return "(no such value)";
    return shape_str(&g->values[vi].shape, buf, size);
}

/* ---- the table ------------------------------------------------------------- */

struct shape_case {
    const char *what;
    int opset;
    const char *inputs, *inits, *nodes;
    const char *value, *expect; /* value name and expected shape */
    double macs, flops, params; /* graph totals; -1 = not checked */
    enum status st;             /* expected status */
    const char *err;            /* substring of the diag for error rows */
};

static const struct shape_case cases[] = {
    /* Conv 7x7/2 pad 3: out 112 = (224+6-7)/2+1. MACs = 64*112*112 * 3*7*7 =
     * 802816*147 = 118013952; FLOPs = 2*MACs + 802816 (bias) = 236830720;
     * params = 64*3*7*7 + 64 = 9472 */
    {"conv 7x7 s2", 17, F32("x", "[1,3,224,224]"), F32("w", "[64,3,7,7]") "," F32("b", "[64]"),
     NODE("c", "Conv", "[\"x\",\"w\",\"b\"]", "[\"y\"]",
          "{\"kernel_shape\":[7,7],\"strides\":[2,2],\"pads\":[3,3,3,3]}"),
     "y", "[1, 64, 112, 112]", 118013952, 236830720, 9472, ST_OK, NULL},
    /* SAME_UPPER stride 2: ceil(15/2) = 8; MACs = 16*8*8 * 8*3*3 = 73728 */
    {"conv same_upper", 17, F32("x", "[1,8,15,15]"), F32("w", "[16,8,3,3]"),
     NODE("c", "Conv", "[\"x\",\"w\"]", "[\"y\"]",
          "{\"strides\":[2,2],\"auto_pad\":\"SAME_UPPER\"}"),
     "y", "[1, 16, 8, 8]", 73728, 147456, 1152, ST_OK, NULL},
    /* depthwise: group 32, MACs = 2*32*10*10 * 1*3*3 = 57600 */
    {"conv depthwise", 17, F32("x", "[2,32,10,10]"), F32("w", "[32,1,3,3]"),
     NODE("c", "Conv", "[\"x\",\"w\"]", "[\"y\"]", "{\"group\":32,\"pads\":[1,1,1,1]}"),
     "y", "[2, 32, 10, 10]", 57600, 115200, 288, ST_OK, NULL},
    /* dilation 2 with VALID: effective kernel 5, (10-5)/1+1 = 6 */
    {"conv dilated valid", 17, F32("x", "[1,1,10,10]"), F32("w", "[1,1,3,3]"),
     NODE("c", "Conv", "[\"x\",\"w\"]", "[\"y\"]",
          "{\"dilations\":[2,2],\"auto_pad\":\"VALID\"}"),
     "y", "[1, 1, 6, 6]", 36 * 9, 2 * 36 * 9, 9, ST_OK, NULL},
    {"conv channel mismatch", 17, F32("x", "[1,4,8,8]"), F32("w", "[8,3,3,3]"),
     NODE("bad_conv", "Conv", "[\"x\",\"w\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'bad_conv' (Conv): input has 4 channels but weight 'w' expects 3"},
    /* ConvTranspose 4x4/2 pad 1: 2*(8-1) + 4 - 2 = 16; MACs = in 16*64 *
     * (8*4*4) = 131072; FLOPs = 2*MACs + 8*256 bias = 264192 */
    {"convtranspose", 17, F32("x", "[1,16,8,8]"), F32("w", "[16,8,4,4]") "," F32("b", "[8]"),
     NODE("ct", "ConvTranspose", "[\"x\",\"w\",\"b\"]", "[\"y\"]",
          "{\"strides\":[2,2],\"pads\":[1,1,1,1]}"),
     "y", "[1, 8, 16, 16]", 131072, 264192, 2048 + 8, ST_OK, NULL},
    {"convtranspose output_padding", 17, F32("x", "[1,16,8,8]"), F32("w", "[16,8,3,3]"),
     NODE("ct", "ConvTranspose", "[\"x\",\"w\"]", "[\"y\"]",
          "{\"strides\":[2,2],\"pads\":[1,1,1,1],\"output_padding\":[1,1]}"),
     "y", "[1, 8, 16, 16]", 1024 * 72, 2 * 1024 * 72, 1152, ST_OK, NULL},
    /* Gemm transB: [4,16] x [10,16]^T = [4,10]; MACs 4*10*16 = 640; FLOPs
     * 1280 + 40 bias; params 160 + 10 */
    {"gemm transB", 17, F32("a", "[4,16]"), F32("w", "[10,16]") "," F32("b", "[10]"),
     NODE("g", "Gemm", "[\"a\",\"w\",\"b\"]", "[\"y\"]", "{\"transB\":1}"), "y", "[4, 10]", 640,
     1320, 170, ST_OK, NULL},
    {"gemm transA", 17, F32("a", "[16,4]"), F32("w", "[16,10]"),
     NODE("g", "Gemm", "[\"a\",\"w\"]", "[\"y\"]", "{\"transA\":1}"), "y", "[4, 10]", 640, 1280,
     160, ST_OK, NULL},
    {"gemm inner mismatch", 17, F32("a", "[4,16]"), F32("w", "[10,15]"),
     NODE("fc", "Gemm", "[\"a\",\"w\"]", "[\"y\"]", "{\"transB\":1}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'fc' (Gemm): A is 4x16 and B is 10x15 (transB)"},
    /* MatMul batch broadcast [2,1,5,3] x [4,3,6] = [2,4,5,6]; MACs 240*3 */
    {"matmul broadcast", 17, F32("a", "[2,1,5,3]") "," F32("b", "[4,3,6]"), "",
     NODE("m", "MatMul", "[\"a\",\"b\"]", "[\"y\"]", "{}"), "y", "[2, 4, 5, 6]", 720, 1440, 0,
     ST_OK, NULL},
    {"matmul 1-D", 17, F32("a", "[2,5,3]") "," F32("b", "[3]"), "",
     NODE("m", "MatMul", "[\"a\",\"b\"]", "[\"y\"]", "{}"), "y", "[2, 5]", 30, 60, 0, ST_OK,
     NULL},
    /* BN: params are scale and B only (8); FLOPs 2 per element = 400 */
    {"batchnorm", 17, F32("x", "[2,4,5,5]"),
     F32("s", "[4]") "," F32("bb", "[4]") "," F32("m", "[4]") "," F32("v", "[4]"),
     NODE("bn", "BatchNormalization", "[\"x\",\"s\",\"bb\",\"m\",\"v\"]", "[\"y\"]", "{}"),
     "y", "[2, 4, 5, 5]", 0, 400, 8, ST_OK, NULL},
    {"batchnorm channel mismatch", 17, F32("x", "[2,4,5,5]"),
     F32("s", "[3]") "," F32("bb", "[4]") "," F32("m", "[4]") "," F32("v", "[4]"),
     NODE("bn1", "BatchNormalization", "[\"x\",\"s\",\"bb\",\"m\",\"v\"]", "[\"y\"]", "{}"),
     NULL, NULL, -1, -1, -1, ST_ESHAPE, "node 'bn1' (BatchNormalization): input 1 (scale)"},
    /* LayerNorm over the last dim: 48 elements * 7 + 6 rows * (sqrt 24 +
     * div 4) = 336 + 168 = 504 */
    {"layernorm", 17, F32("x", "[2,3,8]"), F32("s", "[8]") "," F32("bb", "[8]"),
     NODE("ln", "LayerNormalization", "[\"x\",\"s\",\"bb\"]", "[\"y\"]", "{\"axis\":-1}"),
     "y", "[2, 3, 8]", 0, 504, 16, ST_OK, NULL},
    /* Sigmoid: exp + add + div = 37 per element, 24 elements */
    {"sigmoid", 17, F32("x", "[2,3,4]"), "", NODE("s", "Sigmoid", "[\"x\"]", "[\"y\"]", "{}"),
     "y", "[2, 3, 4]", 0, 24 * 37, 0, ST_OK, NULL},
    {"add broadcast", 17, F32("a", "[2,3,4]") "," F32("b", "[3,1]"), "",
     NODE("add", "Add", "[\"a\",\"b\"]", "[\"y\"]", "{}"), "y", "[2, 3, 4]", 0, 24, 0, ST_OK,
     NULL},
    {"add mismatch", 17, F32("a", "[2,3]") "," F32("b", "[4]"), "",
     NODE("add_1", "Add", "[\"a\",\"b\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1, ST_ESHAPE,
     "node 'add_1' (Add): cannot broadcast [2, 3] with [4]"},
    /* Div costs 4 per element */
    {"div", 17, F32("a", "[5,6]"), F32("b", "[6]"),
     NODE("d", "Div", "[\"a\",\"b\"]", "[\"y\"]", "{}"), "y", "[5, 6]", 0, 120, 6, ST_OK, NULL},
    {"where", 17, "{\"name\":\"c\",\"dtype\":\"bool\",\"shape\":[4,1]}," F32("a", "[1,5]") ","
     F32("b", "[]"), "", NODE("w", "Where", "[\"c\",\"a\",\"b\"]", "[\"y\"]", "{}"), "y",
     "[4, 5]", 0, 20, 0, ST_OK, NULL},
    /* MaxPool 3/2 ceil_mode on 6: ceil((6-3)/2)+1 = 3 (floor would give 2);
     * FLOPs = 9 outputs * 9 compares */
    {"maxpool ceil", 17, F32("x", "[1,1,6,6]"), "",
     NODE("p", "MaxPool", "[\"x\"]", "[\"y\"]",
          "{\"kernel_shape\":[3,3],\"strides\":[2,2],\"ceil_mode\":1}"),
     "y", "[1, 1, 3, 3]", 0, 81, 0, ST_OK, NULL},
    {"maxpool resnet stem", 17, F32("x", "[1,64,112,112]"), "",
     NODE("p", "MaxPool", "[\"x\"]", "[\"y\"]",
          "{\"kernel_shape\":[3,3],\"strides\":[2,2],\"pads\":[1,1,1,1]}"),
     "y", "[1, 64, 56, 56]", 0, 64 * 56 * 56 * 9, 0, ST_OK, NULL},
    /* AveragePool 2x2/2: 4 adds + 1 div (4) per output */
    {"avgpool", 17, F32("x", "[1,2,4,4]"), "",
     NODE("p", "AveragePool", "[\"x\"]", "[\"y\"]", "{\"kernel_shape\":[2,2],\"strides\":[2,2]}"),
     "y", "[1, 2, 2, 2]", 0, 8 * 8, 0, ST_OK, NULL},
    /* GAP: 392 adds + 8 divides */
    {"global avg pool", 17, F32("x", "[1,8,7,7]"), "",
     NODE("p", "GlobalAveragePool", "[\"x\"]", "[\"y\"]", "{}"), "y", "[1, 8, 1, 1]", 0,
     392 + 32, 0, ST_OK, NULL},
    {"reshape 0 and -1", 17, F32("x", "[2,3,4]"), I64("s", "[2]", "[0,-1]"),
     NODE("r", "Reshape", "[\"x\",\"s\"]", "[\"y\"]", "{}"), "y", "[2, 12]", 0, 0, 0, ST_OK,
     NULL},
    {"reshape bad count", 17, F32("x", "[2,3,4]"), I64("s", "[2]", "[5,5]"),
     NODE("rs", "Reshape", "[\"x\",\"s\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1, ST_ESHAPE,
     "node 'rs' (Reshape): cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25 elements)"},
    {"reshape bad -1", 17, F32("x", "[2,3,4]"), I64("s", "[2]", "[5,-1]"),
     NODE("rs", "Reshape", "[\"x\",\"s\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1, ST_ESHAPE,
     "cannot reshape [2, 3, 4] (24 elements) with -1"},
    {"flatten axis 2", 17, F32("x", "[2,3,4,5]"), "",
     NODE("f", "Flatten", "[\"x\"]", "[\"y\"]", "{\"axis\":2}"), "y", "[6, 20]", 0, 0, 0, ST_OK,
     NULL},
    {"squeeze opset 11 attr", 11, F32("x", "[2,1,3]"), "",
     NODE("s", "Squeeze", "[\"x\"]", "[\"y\"]", "{\"axes\":[1]}"), "y", "[2, 3]", 0, 0, 0, ST_OK,
     NULL},
    {"squeeze opset 13 input", 13, F32("x", "[1,2,1,3]"), I64("ax", "[1]", "[-2]"),
     NODE("s", "Squeeze", "[\"x\",\"ax\"]", "[\"y\"]", "{}"), "y", "[1, 2, 3]", 0, 0, 0, ST_OK,
     NULL},
    {"squeeze non-1", 13, F32("x", "[2,3]"), I64("ax", "[1]", "[0]"),
     NODE("sq", "Squeeze", "[\"x\",\"ax\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'sq' (Squeeze): cannot squeeze axis 0 of size 2"},
    {"unsqueeze opset 13", 13, F32("x", "[2,3]"), I64("ax", "[2]", "[0,3]"),
     NODE("u", "Unsqueeze", "[\"x\",\"ax\"]", "[\"y\"]", "{}"), "y", "[1, 2, 3, 1]", 0, 0, 0,
     ST_OK, NULL},
    {"unsqueeze opset 11 attr", 11, F32("x", "[2,3]"), "",
     NODE("u", "Unsqueeze", "[\"x\"]", "[\"y\"]", "{\"axes\":[-1]}"), "y", "[2, 3, 1]", 0, 0,
     0, ST_OK, NULL},
    {"split opset 11 attr", 11, F32("x", "[3,6]"), "",
     NODE("s", "Split", "[\"x\"]", "[\"y1\",\"y2\"]", "{\"axis\":1,\"split\":[1,5]}"), "y2",
     "[3, 5]", 0, 0, 0, ST_OK, NULL},
    {"split bad sizes", 13, F32("x", "[3,6]"), I64("sp", "[2]", "[2,3]"),
     NODE("spl", "Split", "[\"x\",\"sp\"]", "[\"y1\",\"y2\"]", "{\"axis\":1}"), NULL, NULL, -1,
     -1, -1, ST_ESHAPE, "node 'spl' (Split): split sizes add up to 5, expected 6"},
    {"reshape opset 1 attr", 1, F32("x", "[2,3,4]"), "",
     NODE("r", "Reshape", "[\"x\"]", "[\"y\"]", "{\"shape\":[4,-1]}"), "y", "[4, 6]", 0, 0, 0,
     ST_OK, NULL},
    {"resize opset 10", 10, F32("x", "[1,2,4,4]"), F32D("sc", "[4]", "[1,1,0.5,1.5]"),
     NODE("r", "Resize", "[\"x\",\"sc\"]", "[\"y\"]", "{}"), "y", "[1, 2, 2, 6]", 0, 0, 0,
     ST_OK, NULL},
    {"topk opset 9 attr", 9, F32("x", "[4,10]"), "",
     NODE("t", "TopK", "[\"x\"]", "[\"v\",\"i\"]", "{\"k\":2,\"axis\":1}"), "v", "[4, 2]", 0,
     -1, 0, ST_OK, NULL},
    {"clip opset 6 attrs", 6, F32("x", "[4,10]"), "",
     NODE("c", "Clip", "[\"x\"]", "[\"y\"]", "{\"min\":0.0,\"max\":6.0}"), "y", "[4, 10]", 0,
     80, 0, ST_OK, NULL},
    {"transpose perm", 17, F32("x", "[2,3,4]"), "",
     NODE("t", "Transpose", "[\"x\"]", "[\"y\"]", "{\"perm\":[0,2,1]}"), "y", "[2, 4, 3]", 0, 0,
     0, ST_OK, NULL},
    {"transpose default", 17, F32("x", "[2,3,4]"), "",
     NODE("t", "Transpose", "[\"x\"]", "[\"y\"]", "{}"), "y", "[4, 3, 2]", 0, 0, 0, ST_OK, NULL},
    {"concat", 17, F32("a", "[2,3]") "," F32("b", "[2,5]"), "",
     NODE("c", "Concat", "[\"a\",\"b\"]", "[\"y\"]", "{\"axis\":-1}"), "y", "[2, 8]", 0, 0, 0,
     ST_OK, NULL},
    {"concat mismatch", 17, F32("a", "[2,3]") "," F32("b", "[4,5]"), "",
     NODE("cat", "Concat", "[\"a\",\"b\"]", "[\"y\"]", "{\"axis\":1}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'cat' (Concat): input 1 'b' has dim 0 = 4, expected 2"},
    {"split opset 13", 13, F32("x", "[3,6]"), I64("sp", "[2]", "[2,4]"),
     NODE("s", "Split", "[\"x\",\"sp\"]", "[\"y1\",\"y2\"]", "{\"axis\":1}"), "y2", "[3, 4]", 0,
     0, 0, ST_OK, NULL},
    {"split opset 18 num_outputs", 18, F32("x", "[7,2]"), "",
     NODE("s", "Split", "[\"x\"]", "[\"y1\",\"y2\",\"y3\"]", "{\"num_outputs\":3}"), "y3",
     "[1, 2]", 0, 0, 0, ST_OK, NULL},
    /* Slice: axis 0 from 1 to end step 2 -> 1,3,5,7,9 (5); axis 1 from -5 */
    {"slice steps", 13, F32("x", "[10,20]"),
     I64("st", "[2]", "[1,-5]") "," I64("en", "[2]", "[1000,20]") "," I64("ax", "[2]", "[0,1]")
     "," I64("sp", "[2]", "[2,1]"),
     NODE("s", "Slice", "[\"x\",\"st\",\"en\",\"ax\",\"sp\"]", "[\"y\"]", "{}"), "y", "[5, 5]",
     0, 0, 0, ST_OK, NULL},
    {"slice reverse", 13, F32("x", "[10,20]"),
     I64("st", "[1]", "[-1]") "," I64("en", "[1]", "[-1000]") "," I64("ax", "[1]", "[0]") ","
     I64("sp", "[1]", "[-1]"),
     NODE("s", "Slice", "[\"x\",\"st\",\"en\",\"ax\",\"sp\"]", "[\"y\"]", "{}"), "y",
     "[10, 20]", 0, 0, 0, ST_OK, NULL},
    {"slice opset 9 attrs", 9, F32("x", "[10,20]"), "",
     NODE("s", "Slice", "[\"x\"]", "[\"y\"]", "{\"starts\":[2],\"ends\":[5],\"axes\":[1]}"), "y",
     "[10, 3]", 0, 0, 0, ST_OK, NULL},
    {"gather", 17, F32("x", "[5,4]") "," "{\"name\":\"i\",\"dtype\":\"int64\",\"shape\":[2,3]}",
     "", NODE("g", "Gather", "[\"x\",\"i\"]", "[\"y\"]", "{}"), "y", "[2, 3, 4]", 0, 0, 0,
     ST_OK, NULL},
    {"softmax", 17, F32("x", "[2,3,4]"), "", NODE("s", "Softmax", "[\"x\"]", "[\"y\"]", "{}"),
     "y", "[2, 3, 4]", 0, 24 * 39, 0, ST_OK, NULL},
    /* ReduceMean over H,W: 128 adds + 8 divides */
    {"reducemean keepdims", 17, F32("x", "[1,8,4,4]"), "",
     NODE("r", "ReduceMean", "[\"x\"]", "[\"y\"]", "{\"axes\":[2,3]}"), "y", "[1, 8, 1, 1]", 0,
     128 + 32, 0, ST_OK, NULL},
    {"reducesum opset 13 input", 13, F32("x", "[1,8,4,4]"), I64("ax", "[1]", "[1]"),
     NODE("r", "ReduceSum", "[\"x\",\"ax\"]", "[\"y\"]", "{\"keepdims\":0}"), "y", "[1, 4, 4]",
     0, 128, 0, ST_OK, NULL},
    {"pad opset 11", 11, F32("x", "[1,3,4,4]"), I64("p", "[8]", "[0,0,1,2,0,0,1,2]"),
     NODE("p", "Pad", "[\"x\",\"p\"]", "[\"y\"]", "{}"), "y", "[1, 3, 6, 8]", 0, 0, 0, ST_OK,
     NULL},
    {"pad opset 2 attr", 2, F32("x", "[3,4]"), "",
     NODE("p", "Pad", "[\"x\"]", "[\"y\"]", "{\"pads\":[1,0,1,0]}"), "y", "[5, 4]", 0, 0, 0,
     ST_OK, NULL},
    {"resize scales", 13, F32("x", "[1,3,8,8]"), F32D("sc", "[4]", "[1,1,2,2]"),
     NODE("r", "Resize", "[\"x\",\"\",\"sc\"]", "[\"y\"]", "{}"), "y", "[1, 3, 16, 16]", 0, 0, 0,
     ST_OK, NULL},
    {"resize sizes", 13, F32("x", "[1,3,8,8]"), I64("sz", "[4]", "[1,3,5,7]"),
     NODE("r", "Resize", "[\"x\",\"\",\"\",\"sz\"]", "[\"y\"]", "{}"), "y", "[1, 3, 5, 7]", 0, 0,
     0, ST_OK, NULL},
    {"upsample opset 7", 7, F32("x", "[1,3,8,8]"), "",
     NODE("u", "Upsample", "[\"x\"]", "[\"y\"]", "{\"scales\":[1.0,1.0,2.0,3.0]}"), "y",
     "[1, 3, 16, 24]", 0, 0, 0, ST_OK, NULL},
    /* Einsum batched matmul: iteration space b*i*j*k = 2*3*4*5 = 120 */
    {"einsum bmm", 17, F32("a", "[2,3,4]") "," F32("b", "[2,4,5]"), "",
     NODE("e", "Einsum", "[\"a\",\"b\"]", "[\"y\"]", "{\"equation\":\"bij,bjk->bik\"}"), "y",
     "[2, 3, 5]", 120, 240, 0, ST_OK, NULL},
    {"einsum implicit ellipsis", 17, F32("a", "[7,3,4]") "," F32("b", "[4,5]"), "",
     NODE("e", "Einsum", "[\"a\",\"b\"]", "[\"y\"]", "{\"equation\":\"...ij,jk\"}"), "y",
     "[7, 3, 5]", 420, 840, 0, ST_OK, NULL},
    /* LSTM: 5 steps x batch 2 x 1 dir x (4*20) x (10 + 20) = 24000 MACs */
    {"lstm", 17, F32("x", "[5,2,10]"), F32("W", "[1,80,10]") "," F32("R", "[1,80,20]"),
     NODE("l", "LSTM", "[\"x\",\"W\",\"R\"]", "[\"y\",\"yh\",\"yc\"]", "{\"hidden_size\":20}"),
     "y", "[5, 1, 2, 20]", 24000, -1, 2400, ST_OK, NULL},
    /* SDPA: scores 2*4*8*10 = 640; MACs 640*(16+32) = 30720 */
    {"sdpa", 17, F32("q", "[2,4,8,16]") "," F32("k", "[2,4,10,16]") "," F32("v", "[2,4,10,32]"),
     "", NODE("a", "SDPA", "[\"q\",\"k\",\"v\"]", "[\"y\"]", "{}"), "y", "[2, 4, 8, 32]", 30720,
     -1, 0, ST_OK, NULL},
    {"topk", 17, F32("x", "[4,10]"), I64("k", "[1]", "[3]"),
     NODE("t", "TopK", "[\"x\",\"k\"]", "[\"v\",\"i\"]", "{}"), "i", "[4, 3]", 0, -1, 0, ST_OK,
     NULL},
    {"depthtospace", 17, F32("x", "[1,8,2,3]"), "",
     NODE("d", "DepthToSpace", "[\"x\"]", "[\"y\"]", "{\"blocksize\":2}"), "y", "[1, 2, 4, 6]",
     0, 0, 0, ST_OK, NULL},
    {"tile", 17, F32("x", "[2,3]"), I64("r", "[2]", "[2,2]"),
     NODE("t", "Tile", "[\"x\",\"r\"]", "[\"y\"]", "{}"), "y", "[4, 6]", 0, 0, 0, ST_OK, NULL},
    {"expand", 17, F32("x", "[3,1]"), I64("s", "[3]", "[2,1,6]"),
     NODE("e", "Expand", "[\"x\",\"s\"]", "[\"y\"]", "{}"), "y", "[2, 3, 6]", 0, 0, 0, ST_OK,
     NULL},
    {"gathernd", 17, F32("x", "[2,3,4]") "," "{\"name\":\"i\",\"dtype\":\"int64\",\"shape\":[5,2]}",
     "", NODE("g", "GatherND", "[\"x\",\"i\"]", "[\"y\"]", "{}"), "y", "[5, 4]", 0, 0, 0, ST_OK,
     NULL},
    {"onehot", 17, "{\"name\":\"i\",\"dtype\":\"int64\",\"shape\":[3]}",
     I64("d", "[]", "[10]") "," F32D("vals", "[2]", "[0,1]"),
     NODE("o", "OneHot", "[\"i\",\"d\",\"vals\"]", "[\"y\"]", "{}"), "y", "[3, 10]", 0, 0, -1,
     ST_OK, NULL},
    /* GQA: 8 query heads share 2 K/V heads; scores 1*8*4*6 = 192, MACs
     * 192 * (16 + 16) = 6144 */
    {"gqa grouped heads", 17,
     F32("q", "[1,8,4,16]") "," F32("k", "[1,2,6,16]") "," F32("v", "[1,2,6,16]"), "",
     NODE("a", "GQA", "[\"q\",\"k\",\"v\"]", "[\"y\"]", "{}"), "y", "[1, 8, 4, 16]", 6144,
     -1, 0, ST_OK, NULL},
    {"sdpa head mismatch", 17,
     F32("q", "[1,8,4,16]") "," F32("k", "[1,3,6,16]") "," F32("v", "[1,3,6,16]"), "",
     NODE("att", "SDPA", "[\"q\",\"k\",\"v\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'att' (SDPA): cannot broadcast"},
    /* contrib Attention: projections 2*5*32*96 = 30720 MACs; scores
     * 2*4*5*5 = 200, each 8 + 8 -> 3200 */
    {"attention contrib", 17, F32("x", "[2,5,32]"), F32("w", "[32,96]") "," F32("b", "[96]"),
     NODE("a", "Attention", "[\"x\",\"w\",\"b\"]", "[\"y\"]", "{\"num_heads\":4}"), "y",
     "[2, 5, 32]", 30720 + 3200, -1, 96 * 33, ST_OK, NULL},
    {"geglu", 17, F32("x", "[2,3,8]"), "", NODE("g", "GeGelu", "[\"x\"]", "[\"y\"]", "{}"), "y",
     "[2, 3, 4]", 0, -1, 0, ST_OK, NULL},
    {"omitted required input", 17, F32("x", "[1,3,8,8]"), F32("b", "[4]"),
     NODE("c_gap", "Conv", "[\"x\",\"\",\"b\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'c_gap' (Conv): input 1 is omitted"},
    {"absurd expand", 17, F32("x", "[1]"),
     I64("s", "[3]", "[4294967296,4294967296,4294967296]"),
     NODE("big", "Expand", "[\"x\",\"s\"]", "[\"y\"]", "{}"), NULL, NULL, -1, -1, -1,
     ST_ESHAPE, "node 'big' (Expand): output 0 'y' would hold 7.92e+28 elements"},
    {"gelu fused", 17, F32("x", "[4,8]"), "", NODE("g", "Gelu", "[\"x\"]", "[\"y\"]", "{}"), "y",
     "[4, 8]", 0, 32 * 42, 0, ST_OK, NULL},
};

static void run_case(const struct shape_case *k)
{
    struct graph *g = parse(k->opset, k->inputs, k->inits, k->nodes, NULL);
    if (!g)
        fail_msg("%s: graph did not parse", k->what);
    struct diag d = {0};
    enum status st = graph_infer(g, &d);
    if (st != k->st)
        fail_msg("%s: status %s, expected %s (%s)", k->what, status_str(st), status_str(k->st),
                 d.msg);
    if (k->err && !strstr(d.msg, k->err))
        fail_msg("%s: diag '%s' lacks '%s'", k->what, d.msg, k->err);
    if (k->value) {
        char buf[128];
        const char *s = vshape(g, k->value, buf, sizeof buf);
        if (strcmp(s, k->expect))
            fail_msg("%s: %s is %s, expected %s", k->what, k->value, s, k->expect);
        if (g->totals.n_unsupported || g->totals.n_unknown)
            fail_msg("%s: %d unsupported, %d unknown nodes (note: %s)", k->what,
                     g->totals.n_unsupported, g->totals.n_unknown,
                     g->nodes[0].note ? g->nodes[0].note : "-");
    }
    if (k->macs >= 0 && g->totals.macs != k->macs)
        fail_msg("%s: MACs %.0f, expected %.0f", k->what, g->totals.macs, k->macs);
    if (k->flops >= 0 && g->totals.flops != k->flops)
        fail_msg("%s: FLOPs %.0f, expected %.0f", k->what, g->totals.flops, k->flops);
    if (k->params >= 0 && g->totals.params != k->params)
        fail_msg("%s: params %.0f, expected %.0f", k->what, g->totals.params, k->params);
    graph_free(g);
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

/* ---- folding ------------------------------------------------------------- */

/* The transformer export pattern: the Reshape target is built at run time
 * from Shape -> Gather -> Unsqueeze -> Concat. */
static const char *fold_nodes =
    NODE("shp", "Shape", "[\"x\"]", "[\"s\"]", "{}") ","
    NODE("g0", "Gather", "[\"s\",\"i0\"]", "[\"b\"]", "{\"axis\":0}") ","
    NODE("g1", "Gather", "[\"s\",\"i1\"]", "[\"l\"]", "{\"axis\":0}") ","
    NODE("u0", "Unsqueeze", "[\"b\",\"ax\"]", "[\"bu\"]", "{}") ","
    NODE("u1", "Unsqueeze", "[\"l\",\"ax\"]", "[\"lu\"]", "{}") ","
    NODE("cat", "Concat", "[\"bu\",\"lu\",\"heads\"]", "[\"tgt\"]", "{\"axis\":0}") ","
    NODE("rs", "Reshape", "[\"x\",\"tgt\"]", "[\"y\"]", "{}") ","
    NODE("tr", "Transpose", "[\"y\"]", "[\"z\"]", "{\"perm\":[0,2,1,3]}");

static void test_fold_shape_chain(void **state)
{
    (void)state;
    struct graph *g = parse(13, F32("x", "[\"batch\",\"seq\",64]"),
                            I64("i0", "[]", "[0]") "," I64("i1", "[]", "[1]") ","
                            I64("ax", "[1]", "[0]") "," I64("heads", "[2]", "[8,8]"),
                            fold_nodes, "\"batch\":3,\"seq\":5");
    assert_non_null(g);
    struct diag d = {0};
    assert_int_equal(graph_infer(g, &d), ST_OK);
    char buf[128];
    assert_string_equal(vshape(g, "z", buf, sizeof buf), "[3, 8, 5, 8]");
    const struct value *t = &g->values[graph_value_find(g, "tgt")];
    assert_non_null(t->folded);
    assert_int_equal(t->folded->n, 4);
    assert_int_equal(t->folded->i64[0], 3);
    assert_int_equal(t->folded->i64[1], 5);
    assert_int_equal(t->folded->i64[3], 8);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    /* repeated inference reuses a fresh scratch arena: no growth */
    size_t used = arena_used(g->scratch);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(arena_used(g->scratch), used);
    /* rebinding re-infers through the folded chain */
    assert_int_equal(graph_sym_set(g, "batch", 7, &d), ST_OK);
    assert_int_equal(graph_sym_set(g, "seq", 128, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_string_equal(vshape(g, "z", buf, sizeof buf), "[7, 8, 128, 8]");
    /* the transpose moves 7*128*64 floats each way; folded nodes cost nothing */
    const struct node *tr = &g->nodes[7];
    assert_true(tr->cost.bytes_read == 7 * 128 * 64 * 4.0);
    assert_true(g->nodes[5].cost.bytes_read == 0);
    graph_free(g);
}

static void test_fold_constants(void **state)
{
    (void)state;
    /* Constant(value_ints) -> ConstantOfShape -> Shape; Range; Cast;
     * Equal/Where on ints; Expand of a constant */
    const char *nodes =
        NODE("k", "Constant", "[]", "[\"kv\"]", "{\"value_ints\":[2,3]}") ","
        NODE("cos", "ConstantOfShape", "[\"kv\"]", "[\"ones\"]",
             "{\"value\":{\"tensor\":{\"dtype\":\"int64\",\"shape\":[1],\"data\":[1]}}}") ","
        NODE("rng", "Range", "[\"r0\",\"r1\",\"r2\"]", "[\"rg\"]", "{}") ","
        NODE("cast", "Cast", "[\"rg\"]", "[\"rgf\"]", "{\"to\":1}") ","
        NODE("eq", "Equal", "[\"rg\",\"r2\"]", "[\"mask\"]", "{}") ","
        NODE("wh", "Where", "[\"mask\",\"rg\",\"neg\"]", "[\"sel\"]", "{}") ","
        NODE("ex", "Expand", "[\"kv\",\"eshape\"]", "[\"kx\"]", "{}") ","
        NODE("mul", "Mul", "[\"kv\",\"kv\"]", "[\"sq\"]", "{}") ","
        NODE("div", "Div", "[\"sq\",\"r2\"]", "[\"half\"]", "{}") ","
        NODE("rs", "Reshape", "[\"x\",\"half\"]", "[\"y\"]", "{}");
    struct graph *g = parse(17, F32("x", "[8]"),
                            I64("r0", "[]", "[1]") "," I64("r1", "[]", "[10]") ","
                            I64("r2", "[]", "[2]") "," I64("neg", "[]", "[-1]") ","
                            I64("eshape", "[2]", "[3,2]"),
                            nodes, NULL);
    assert_non_null(g);
    struct diag d = {0};
    enum status st = graph_infer(g, &d);
    if (st)
        fail_msg("infer: %s", d.msg);
    char buf[128];
    assert_string_equal(vshape(g, "ones", buf, sizeof buf), "[2, 3]");
    const struct value *v = &g->values[graph_value_find(g, "ones")];
    assert_int_equal(v->folded->i64[5], 1);
    /* Range(1, 10, 2) = 1 3 5 7 9 */
    v = &g->values[graph_value_find(g, "rg")];
    assert_int_equal(v->folded->n, 5);
    assert_int_equal(v->folded->i64[4], 9);
    v = &g->values[graph_value_find(g, "rgf")];
    assert_int_equal(v->idtype, DT_FLOAT);
    assert_true(v->folded->f64[2] == 5.0);
    /* Equal(rg, 2) is all false -> Where picks -1 everywhere */
    v = &g->values[graph_value_find(g, "sel")];
    assert_int_equal(v->folded->i64[0], -1);
    assert_string_equal(vshape(g, "kx", buf, sizeof buf), "[3, 2]");
    v = &g->values[graph_value_find(g, "kx")];
    assert_int_equal(v->folded->i64[4], 2);
    assert_int_equal(v->folded->i64[5], 3);
    /* [2,3]*[2,3]/2 = [2, 4] (integer division) is the Reshape target */
    assert_int_equal(g->values[graph_value_find(g, "half")].folded->i64[0], 2);
    assert_int_equal(g->values[graph_value_find(g, "half")].folded->i64[1], 4);
    assert_string_equal(vshape(g, "y", buf, sizeof buf), "[2, 4]");
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    graph_free(g);
}

/* ---- unsupported and unknown ----------------------------------------------- */

static void test_unsupported_marks_downstream(void **state)
{
    (void)state;
    const char *nodes =
        NODE("r", "Relu", "[\"x\"]", "[\"a\"]", "{}") ","
        "{\"name\":\"odd\",\"op\":\"Frobnicate\",\"domain\":\"org.example\","
        "\"inputs\":[\"a\"],\"outputs\":[\"b\"]},"
        NODE("r2", "Relu", "[\"b\"]", "[\"c\"]", "{}") ","
        NODE("add", "Add", "[\"c\",\"a\"]", "[\"d\"]", "{}") ","
        NODE("r3", "Relu", "[\"a\"]", "[\"e\"]", "{}");
    struct graph *g = parse(17, F32("x", "[2,3]"), "", nodes, NULL);
    assert_non_null(g);
    struct diag d = {0};
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->nodes[1].state, NODE_UNSUPPORTED);
    assert_non_null(g->nodes[1].note);
    assert_int_equal(g->nodes[2].state, NODE_UNKNOWN_INPUT);
    assert_int_equal(g->nodes[3].state, NODE_UNKNOWN_INPUT);
    assert_int_equal(g->nodes[4].state, NODE_OK);
    assert_int_equal(g->totals.n_unsupported, 1);
    assert_int_equal(g->totals.n_unknown, 2);
    assert_int_equal(g->totals.n_counted, 2);
    assert_false(g->values[graph_value_find(g, "d")].shape.known);
    /* only the two counted Relus contribute: 6 + 6 compares */
    assert_true(g->totals.flops == 12);
    graph_free(g);
}

/* An op outside the catalogue whose output type is declared (ONNX
 * value_info) is still not counted, but its consumers infer from the
 * declaration instead of becoming unknown. */
static void test_unsupported_with_declared_output(void **state)
{
    (void)state;
    const char *text =
        "{\"format\":\"dippm-graph\",\"version\":1,\"name\":\"t\",\"symbols\":{\"n\":2},"
        "\"inputs\":[" F32("x", "[\"n\",3]") "],"
        "\"values\":[" F32("b", "[\"n\",6]") "],"
        "\"nodes\":[{\"name\":\"odd\",\"op\":\"Frob\",\"domain\":\"org.example\","
        "\"inputs\":[\"x\"],\"outputs\":[\"b\"]},"
        NODE("r", "Relu", "[\"b\"]", "[\"c\"]", "{}") "]}";
    struct diag d = {0};
    struct graph *g = json_graph_parse(text, strlen(text), "declared", &d);
    assert_non_null(g);
    assert_int_equal(graph_sym_set(g, "n", 5, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->nodes[0].state, NODE_UNSUPPORTED);
    assert_int_equal(g->nodes[1].state, NODE_OK);
    char buf[64];
    assert_string_equal(vshape(g, "c", buf, sizeof buf), "[5, 6]");
    assert_true(g->totals.flops == 30);
    assert_int_equal(g->totals.n_unsupported, 1);
    assert_int_equal(g->totals.n_unknown, 0);
    graph_free(g);
}

static void test_runtime_reshape_is_not_covered(void **state)
{
    (void)state;
    /* the target comes from a graph input: not foldable, reported */
    struct graph *g = parse(17, F32("x", "[2,3]") ",{\"name\":\"s\",\"dtype\":\"int64\","
                                "\"shape\":[2]}", "",
                            NODE("r", "Reshape", "[\"x\",\"s\"]", "[\"y\"]", "{}"), NULL);
    assert_non_null(g);
    struct diag d = {0};
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->nodes[0].state, NODE_UNSUPPORTED);
    assert_non_null(strstr(g->nodes[0].note, "could not be folded"));
    graph_free(g);
}

/* ---- tiny_cnn sample --------------------------------------------------------- */

static const char *sample_path(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("SAMPLES_DIR");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "samples", name);
    return buf;
}

static void test_tiny_cnn(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = json_graph_load(sample_path("tiny_cnn.json"), &d);
    assert_non_null(g);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    const struct graph_totals *t = &g->totals;
    /* conv1: 16*32*32 outputs * 3*3*3 = 442368; conv2: 16*32*32 * 16*3*3 =
     * 2359296; fc: 10*16 = 160 */
    assert_true(t->macs == 442368 + 2359296 + 160);
    /* 432+16 + 2304+16 + 160+10 */
    assert_true(t->params == 2938);
    assert_true(t->param_bytes == 2938 * 4);
    /* conv1 2*442368+16384, relu 16384, conv2 2*2359296+16384, add 16384,
     * relu 16384, GAP 16384 + 16*4, fc 2*160+10 */
    assert_true(t->flops == 901120 + 16384 + 4734976 + 16384 + 16384 + 16448 + 330);
    /* peak while 'add' runs: c2, r1 and s live, 3 * 16*32*32*4 bytes */
    assert_true(t->peak_act_bytes == 3 * 65536);
    assert_int_equal(t->n_counted, 8);
    char buf[64];
    assert_string_equal(vshape(g, "logits", buf, sizeof buf), "[1, 10]");
    /* rebinding: 64x64 images quadruple the conv MACs, batch 2 doubles all */
    assert_int_equal(graph_sym_set(g, "height", 64, &d), ST_OK);
    assert_int_equal(graph_sym_set(g, "width", 64, &d), ST_OK);
    assert_int_equal(graph_sym_set(g, "batch", 2, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(t->macs == 2 * (4 * (442368.0 + 2359296) + 160));
    assert_true(t->params == 2938);
    assert_string_equal(vshape(g, "logits", buf, sizeof buf), "[2, 10]");
    graph_free(g);
}

/* graph_infer_stale: an inference is redone only when a symbol changed
 * since the last one that succeeded, also a symbol written directly. */
static void test_infer_stale(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = json_graph_load(sample_path("tiny_cnn.json"), &d);
    assert_non_null(g);
    assert_true(graph_infer_stale(g));
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_false(graph_infer_stale(g));
    assert_int_equal(graph_sym_set(g, "batch", 2, &d), ST_OK);
    assert_true(graph_infer_stale(g));
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_false(graph_infer_stale(g));
    g->syms[graph_sym_find(g, "batch")].val = 4; /* as a sweep binds a symbol */
    assert_true(graph_infer_stale(g));
    g->syms[graph_sym_find(g, "batch")].val = 2;
    assert_false(graph_infer_stale(g));
    graph_free(g);
}

/* Liveness with a view: Reshape shares its input's storage. */
static void test_liveness_views(void **state)
{
    (void)state;
    const char *nodes =
        NODE("r", "Relu", "[\"x\"]", "[\"a\"]", "{}") ","
        NODE("v", "Reshape", "[\"a\",\"s\"]", "[\"b\"]", "{}") ","
        NODE("r2", "Relu", "[\"b\"]", "[\"c\"]", "{}") ","
        NODE("r3", "Relu", "[\"c\"]", "[\"e\"]", "{}");
    struct graph *g = parse(17, F32("x", "[4,4]"), I64("s", "[1]", "[16]"), nodes, NULL);
    assert_non_null(g);
    struct diag d = {0};
    assert_int_equal(graph_infer(g, &d), ST_OK);
    /* x 64 B; relu: x + a = 128; reshape: no new storage; r2: a(b) + c =
     * 128; r3: c + e = 128. */
    assert_true(g->totals.peak_act_bytes == 128);
    assert_true(g->nodes[1].cost.bytes_read == 0);
    /* the int64 shape initializer is not a parameter */
    assert_true(g->totals.params == 0);
    graph_free(g);
}

/* A weight prepared by a constant node (Transpose of an initializer) is
 * folded at load: no cost, not an activation, and a parameter of the
 * MatMul that consumes it; the totals count the initializer once. */
static void test_constant_weight_prep(void **state)
{
    (void)state;
    const char *nodes =
        NODE("wt", "Transpose", "[\"w\"]", "[\"wT\"]", "{}") ","
        NODE("mm", "MatMul", "[\"x\",\"wT\"]", "[\"y\"]", "{}") ","
        NODE("mm2", "MatMul", "[\"y\",\"w\"]", "[\"z\"]", "{}");
    struct graph *g = parse(17, F32("x", "[4,16]"), F32("w", "[16,16]"), nodes, NULL);
    assert_non_null(g);
    struct diag d = {0};
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->nodes[0].cost.bytes_read == 0 && g->nodes[0].cost.params == 0);
    assert_true(g->nodes[1].cost.params == 256);
    assert_true(g->nodes[2].cost.params == 256);
    assert_true(g->totals.params == 256); /* one initializer */
    /* MACs: 4*16*16 twice */
    assert_true(g->totals.macs == 2 * 1024);
    /* peak: x (256 B) + y (256 B) while mm runs, y + z while mm2 runs; the
     * 1 KiB transposed weight is not an activation */
    assert_true(g->totals.peak_act_bytes == 512);
    graph_free(g);
}

/* The exported torchvision samples against torchvision's documented
 * parameter counts (exact) and GFLOPS (= G multiply-accumulates, within 3%
 * at 224x224). Skipped for samples that are absent. */
static void test_torchvision_samples(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double params, gmacs;
    } ref[] = {
        {"resnet50.onnx", 25557032, 4.09},      {"mobilenet_v2.onnx", 3504872, 0.30},
        {"efficientnet_b0.onnx", 5288548, 0.39}, {"vit_b_16.onnx", 86567656, 17.56},
        {"densenet121.onnx", 7978856, 2.83},    {"convnext_tiny.onnx", 28589128, 4.46},
        {"swin_t.onnx", 28288354, 4.49},        {"vgg16.onnx", 138357544, 15.47},
        {"mobilenet_v3_large.onnx", 5483032, 0.22},
    };
    int checked = 0;
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        const char *path = sample_path(ref[i].file);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fclose(f);
        struct diag d = {0};
        struct graph *g = model_load(path, &d);
        if (!g)
            fail_msg("%s: %s", ref[i].file, d.msg);
        if (graph_infer(g, &d))
            fail_msg("%s: %s", ref[i].file, d.msg);
        if (g->totals.n_unsupported || g->totals.n_unknown)
            fail_msg("%s: %d nodes not counted", ref[i].file,
                     g->totals.n_unsupported + g->totals.n_unknown);
        if (g->totals.params != ref[i].params)
            fail_msg("%s: params %.0f, torchvision %.0f", ref[i].file, g->totals.params,
                     ref[i].params);
        double rel = g->totals.macs / 1e9 / ref[i].gmacs - 1;
        if (rel > 0.03 || rel < -0.03)
            fail_msg("%s: %.3f GMACs, torchvision %.2f", ref[i].file, g->totals.macs / 1e9,
                     ref[i].gmacs);
        graph_free(g);
        checked++;
    }
    if (!checked)
        fail_msg("no torchvision sample found in SAMPLES_DIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_infer_stale),
        cmocka_unit_test(test_fold_shape_chain),
        cmocka_unit_test(test_fold_constants),
        cmocka_unit_test(test_unsupported_marks_downstream),
        cmocka_unit_test(test_runtime_reshape_is_not_covered),
        cmocka_unit_test(test_unsupported_with_declared_output),
        cmocka_unit_test(test_tiny_cnn),
        cmocka_unit_test(test_liveness_views),
        cmocka_unit_test(test_constant_weight_prep),
        cmocka_unit_test(test_torchvision_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
