#!/usr/bin/env node
// real_params.js - the independent parameter truth for the real TF.js files
// in samples/tfjs/ (see samples/tfjs/README.md for their packages):
//  * layers models: tf.models.modelFromJSON(modelTopology).countParams(),
//    i.e. TF.js itself rebuilds the Keras topology and counts its weights;
//  * graph models: the float elements declared in weightsManifest (the
//    constants of a frozen graph are exactly its weights; integer constants
//    such as reshape targets are not parameters); and, when the weight
//    shards lie beside the file (zeroed by zero_shard.py: the integer
//    constants are all that shapes need), TF.js runs the model on a zero
//    input (unknown dims: 1) and the MACs of every convolution and MatMul
//    follow from the shapes it computed: output elements x filter taps x
//    input channels (depthwise: x taps), M x N x K for MatMul.
// Usage: node tools/keras/real_params.js FILE... > samples/tfjs/real_params.json
// (tf.setBackend('cpu'): no GPU, no native binding needed)
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

// Runs graph model j (shards in dir) and counts MACs from TF.js's shapes.
async function graphMacs(j, dir) {
    const specs = [], bufs = [];
    for (const g of j.weightsManifest) {
        specs.push(...g.weights);
        for (const p of g.paths)
            bufs.push(fs.readFileSync(path.join(dir, p)));
    }
    const all = Buffer.concat(bufs);
    const data = all.buffer.slice(all.byteOffset, all.byteOffset + all.length);
    const model = await tf.loadGraphModel(tf.io.fromMemory(
        {modelTopology: j.modelTopology, weightSpecs: specs, weightData: data}));
    const nodes = j.modelTopology.node;
    const feeds = {};
    for (const n of nodes.filter(n => n.op === 'Placeholder')) {
        const dims = n.attr.shape.shape.dim.map(d => Math.max(1, Number(d.size)));
        const dt = n.attr.dtype.type === 'DT_INT32' ? 'int32' : 'float32';
        feeds[n.name] = tf.zeros(dims, dt);
    }
    const conv = nodes.filter(n => /^(_Fused)?Conv2D$|DepthwiseConv2dNative$|^(_Fused)?MatMul$/
        .test(n.op));
    const names = conv.map(n => n.name);
    const src = conv.map(n => n.input[0]);
    const res = await model.executeAsync(feeds, names.concat(src));
    const shapes = res.map(t => t.shape);
    const constShape = nm => specs.find(w => w.name === nm.split(':')[0]).shape;
    let macs = 0;
    conv.forEach((n, i) => {
        const out = shapes[i], x = shapes[names.length + i];
        const elems = out.reduce((a, b) => a * b, 1);
        if (/MatMul$/.test(n.op)) {
            const ta = n.attr.transpose_a && n.attr.transpose_a.b;
            macs += elems * x[ta ? 0 : 1];
        } else {
            const f = constShape(n.input[1]);
            macs += elems * f[0] * f[1] * (/Depthwise/.test(n.op) ? 1 : f[2]);
        }
    });
    const outs = nodes.filter(n => !nodes.some(m => (m.input || []).some(
        s => s.split(':')[0] === n.name)) && n.op !== 'Const' && n.op !== 'NoOp');
    const o = await model.executeAsync(feeds, outs.map(n => n.name));
    const outShapes = (Array.isArray(o) ? o : [o]).map(t => t.shape);
    return {macs, macs_method: 'TF.js ' + tf.version.tfjs + ' ran the model on a zero input; ' +
            'MACs from the shapes of its ' + conv.length + ' convolution/MatMul outputs',
            output_shape: outShapes};
}

async function main() {
    await tf.setBackend('cpu');
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
            const shards = j.weightsManifest.every(g => g.paths.every(
                p => fs.existsSync(path.join(path.dirname(f), p))));
            if (shards)
                Object.assign(out.models[name], await graphMacs(j, path.dirname(f)));
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
