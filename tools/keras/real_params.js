#!/usr/bin/env node
// real_params.js - the independent parameter truth for the real TF.js files
// in samples/tfjs/ (see samples/tfjs/README.md for their packages):
//  * layers models: tf.models.modelFromJSON(modelTopology).countParams(),
//    i.e. TF.js itself rebuilds the Keras topology and counts its weights;
//  * graph models: the float elements declared in weightsManifest (the
//    constants of a frozen graph are exactly its weights; integer constants
//    such as reshape targets are not parameters).
// Usage: node tools/keras/real_params.js FILE... > samples/tfjs/real_params.json
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

async function main() {
    const out = {generator: 'tools/keras/real_params.js', tfjs_version: tf.version.tfjs,
                 models: {}};
    for (const f of process.argv.slice(2)) {
        const j = JSON.parse(fs.readFileSync(f, 'utf8'));
        const name = path.basename(f);
        const topo = j.modelTopology;
        if (topo.node) {
            let n = 0;
            for (const g of j.weightsManifest)
                for (const w of g.weights)
                    if (w.dtype === 'float32' || w.dtype === undefined)
                        n += w.shape.reduce((a, b) => a * b, 1);
            out.models[name] = {kind: 'graph-model', params: n,
                                method: 'float elements in weightsManifest'};
        } else {
            const m = await tf.models.modelFromJSON({modelTopology: topo});
            out.models[name] = {kind: 'layers-model', params: m.countParams(),
                                method: 'tf.models.modelFromJSON(modelTopology).countParams()',
                                output_shape: m.outputs.map(o => o.shape)};
        }
    }
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}
main().catch(e => { console.error(e); process.exit(1); });
