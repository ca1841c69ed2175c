# layers.awk - the layers of dippm's sources, bottom up, shared by
# tests/check-layering.sh (includes) and tests/check-calls.sh (calls):
# util (src/util), graph, core (src/core), then the lab (src/lab) and ui
# side by side, the program (src/cli); inside graph, by folder: ir (the IR
# and the op catalogue), ops (shape inference and cost), then the readers
# and the templates (onnx, keras, json, zoo), then graph/load.c, which
# picks one of them.
function layer(p) {
    if (p ~ /^src\/util\//) return 0
    if (p ~ /^graph\/ir\//) return 1
    if (p ~ /^graph\/ops\//) return 2
    if (p ~ /^graph\/[^\/]+\//) return 3
    if (p ~ /^graph\//) return 4
    if (p ~ /^src\/core\//) return 5
    if (p ~ /^(src\/lab|ui)\//) return 6
    return 7
}
function folder(p) { sub(/\/[^\/]*$/, "", p); return p }
# lab_client(p): whether the file at path p may use the lab (calibration,
# datasets, training, evaluation): the subcommands train, eval, dataset and
# calibrate, and the tests. The product path (the other subcommands, main.c,
# the explorer) predicts with core alone.
function lab_client(p) {
    return p ~ /^src\/cli\/cli_(calibrate|dataset|eval|eval_kernels|train|training)\.[ch]$/ ||
        p ~ /^tests\//
}
# may_use(a, b): whether the file at path a may include or call into the one
# at path b: b is in a's folder or in a lower layer, and b is in the lab only
# for a lab client. Two folders of one layer (two readers, a reader and the
# zoo, the lab and ui) must not use each other.
function may_use(a, b) {
    if (b ~ /^src\/lab\// && folder(a) != "src/lab" && !lab_client(a)) return 0
    return folder(a) == folder(b) || layer(b) < layer(a)
}
