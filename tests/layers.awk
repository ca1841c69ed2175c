# layers.awk - the layers of dippm's sources, bottom up, shared by
# tests/check-layering.sh (includes) and tests/check-calls.sh (calls):
# util (src/util), graph, core (src/core), ui, the program (src/cli); inside
# graph, by folder: ir (the IR and the op catalogue), ops (shape inference
# and cost), then the readers and the templates (onnx, keras, json, zoo),
# then graph/load.c, which picks one of them.
function layer(p) {
    if (p ~ /^src\/util\//) return 0
    if (p ~ /^graph\/ir\//) return 1
    if (p ~ /^graph\/ops\//) return 2
    if (p ~ /^graph\/[^\/]+\//) return 3
    if (p ~ /^graph\//) return 4
    if (p ~ /^src\/core\//) return 5
    if (p ~ /^ui\//) return 6
    return 7
}
function folder(p) { sub(/\/[^\/]*$/, "", p); return p }
# may_use(a, b): whether the file at path a may include or call into the one
# at path b: b is in a's folder or in a lower layer. Two folders of one layer
# (two readers, a reader and the zoo) must not use each other.
function may_use(a, b) { return folder(a) == folder(b) || layer(b) < layer(a) }
