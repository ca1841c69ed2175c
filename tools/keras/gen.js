#!/usr/bin/env node
// gen.js - builds known architectures with the TensorFlow.js layers API and
// writes each as a TF.js layers-model model.json (modelTopology +
// weightsManifest, no weight shard) and as a bare Keras config
// (model.toJSON()), plus samples/keras/params.json holding countParams() of
// every model: the independent truth tests/test_keras.c compares against.
//
// Usage (from the repository root):
//   (cd tools/keras && npm ci)      # installs @tensorflow/tfjs into tools/keras/node_modules
//   node tools/keras/gen.js [OUTDIR]  # OUTDIR defaults to samples
'use strict';
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const out = process.argv[2] || path.join(__dirname, '..', '..', 'samples');
const L = tf.layers;

// ---- architectures --------------------------------------------------------

// MobileNetV2-like: stem, inverted residual blocks (expand 1x1, depthwise 3x3,
// project 1x1, skip Add when shapes match), head.
function mobilenetV2Like() {
    const inp = tf.input({shape: [96, 96, 3], name: 'image'});
    let x = L.zeroPadding2d({padding: [[0, 1], [0, 1]], name: 'stem_pad'}).apply(inp);
    x = L.conv2d({filters: 16, kernelSize: 3, strides: 2, padding: 'valid', useBias: false,
                  name: 'stem_conv'}).apply(x);
    x = L.batchNormalization({name: 'stem_bn'}).apply(x);
    x = L.reLU({maxValue: 6, name: 'stem_relu6'}).apply(x);
    const blocks = [[1, 16, 1], [6, 24, 2], [6, 24, 1], [6, 32, 2], [6, 32, 1], [6, 64, 2]];
    let cin = 16;
    blocks.forEach(([t, c, s], i) => {
        const p = `block${i}_`;
        let y = x;
        if (t !== 1) {
            y = L.conv2d({filters: cin * t, kernelSize: 1, useBias: false, name: p + 'expand'})
                    .apply(y);
            y = L.batchNormalization({name: p + 'expand_bn'}).apply(y);
            y = L.reLU({maxValue: 6, name: p + 'expand_relu'}).apply(y);
        }
        y = L.depthwiseConv2d({kernelSize: 3, strides: s, padding: 'same', useBias: false,
                               name: p + 'dw'}).apply(y);
        y = L.batchNormalization({name: p + 'dw_bn'}).apply(y);
        y = L.reLU({maxValue: 6, name: p + 'dw_relu'}).apply(y);
        y = L.conv2d({filters: c, kernelSize: 1, useBias: false, name: p + 'project'}).apply(y);
        y = L.batchNormalization({name: p + 'project_bn'}).apply(y);
        if (s === 1 && cin === c)
            y = L.add({name: p + 'add'}).apply([x, y]);
        x = y;
        cin = c;
    });
    x = L.conv2d({filters: 256, kernelSize: 1, useBias: false, name: 'head_conv'}).apply(x);
    x = L.batchNormalization({name: 'head_bn'}).apply(x);
    x = L.reLU({maxValue: 6, name: 'head_relu'}).apply(x);
    x = L.globalAveragePooling2d({name: 'pool'}).apply(x);
    x = L.dropout({rate: 0.2, name: 'dropout'}).apply(x);
    x = L.dense({units: 100, activation: 'softmax', name: 'logits'}).apply(x);
    return tf.model({inputs: inp, outputs: x, name: 'mobilenet_v2_like'});
}

// ResNet-ish: stem conv + max pool, basic residual blocks with identity and
// 1x1 projection shortcuts, global pooling, classifier.
function resnetIsh() {
    const inp = tf.input({shape: [64, 64, 3], name: 'image'});
    let x = L.conv2d({filters: 32, kernelSize: 7, strides: 2, padding: 'same', useBias: false,
                      name: 'conv1'}).apply(inp);
    x = L.batchNormalization({name: 'bn1'}).apply(x);
    x = L.activation({activation: 'relu', name: 'relu1'}).apply(x);
    x = L.maxPooling2d({poolSize: 3, strides: 2, padding: 'same', name: 'pool1'}).apply(x);
    let cin = 32;
    [[32, 1], [32, 1], [64, 2], [64, 1], [128, 2]].forEach(([c, s], i) => {
        const p = `res${i}_`;
        let y = L.conv2d({filters: c, kernelSize: 3, strides: s, padding: 'same',
                          useBias: false, name: p + 'conv_a'}).apply(x);
        y = L.batchNormalization({name: p + 'bn_a'}).apply(y);
        y = L.activation({activation: 'relu', name: p + 'relu_a'}).apply(y);
        y = L.conv2d({filters: c, kernelSize: 3, padding: 'same', useBias: false,
                      name: p + 'conv_b'}).apply(y);
        y = L.batchNormalization({name: p + 'bn_b'}).apply(y);
        let sc = x;
        if (s !== 1 || cin !== c) {
            sc = L.conv2d({filters: c, kernelSize: 1, strides: s, useBias: false,
                           name: p + 'proj'}).apply(x);
            sc = L.batchNormalization({name: p + 'proj_bn'}).apply(sc);
        }
        x = L.add({name: p + 'add'}).apply([y, sc]);
        x = L.activation({activation: 'relu', name: p + 'out'}).apply(x);
        cin = c;
    });
    x = L.globalAveragePooling2d({name: 'avgpool'}).apply(x);
    x = L.dense({units: 10, name: 'fc'}).apply(x);
    x = L.softmax({name: 'probs'}).apply(x);
    return tf.model({inputs: inp, outputs: x, name: 'resnet_ish'});
}

// LSTM text classifier: Embedding over a variable-length sequence, stacked
// LSTM and GRU, dense head (Sequential).
function lstmText() {
    const m = tf.sequential({name: 'lstm_text'});
    m.add(L.embedding({inputDim: 5000, outputDim: 64, inputShape: [null], name: 'embed'}));
    m.add(L.lstm({units: 96, returnSequences: true, name: 'lstm'}));
    m.add(L.gru({units: 48, name: 'gru'}));
    m.add(L.dense({units: 32, activation: 'relu', name: 'hidden'}));
    m.add(L.dropout({rate: 0.5, name: 'drop'}));
    m.add(L.dense({units: 1, activation: 'sigmoid', name: 'score'}));
    return m;
}

// A layer sampler: one functional model touching the remaining layer kinds
// (Conv1D/3D, separable and transposed conv, upsampling, the activation
// layers, merge layers, Permute/Reshape, LayerNormalization, Rescaling) and a
// nested Sequential used as a layer.
function layerZoo() {
    const img = tf.input({shape: [32, 32, 3], name: 'img'});
    let x = L.rescaling({scale: 1 / 255, offset: -0.5, name: 'rescale'}).apply(img);
    x = L.separableConv2d({filters: 24, kernelSize: 3, padding: 'same', depthMultiplier: 1,
                           name: 'sep'}).apply(x);
    x = L.leakyReLU({alpha: 0.1, name: 'leaky'}).apply(x);
    const a = L.conv2d({filters: 24, kernelSize: 3, padding: 'same', activation: 'swish',
                        name: 'branch_a'}).apply(x);
    const b = L.conv2d({filters: 24, kernelSize: 1, activation: 'elu', name: 'branch_b'}).apply(x);
    const m = L.multiply({name: 'mul'}).apply([a, b]);
    const s = L.maximum({name: 'max'}).apply([a, b]);
    const av = L.average({name: 'avg'}).apply([a, b]);
    x = L.concatenate({axis: -1, name: 'cat'}).apply([m, s, av]);
    x = L.averagePooling2d({poolSize: 2, name: 'apool'}).apply(x);
    x = L.prelu({sharedAxes: [1, 2], name: 'prelu'}).apply(x);
    x = L.conv2dTranspose({filters: 16, kernelSize: 3, strides: 2, padding: 'same',
                           name: 'deconv'}).apply(x);
    x = L.upSampling2d({size: [2, 2], name: 'up'}).apply(x);
    x = L.maxPooling2d({poolSize: 4, name: 'mpool'}).apply(x);
    x = L.elu({name: 'elu'}).apply(x);
    // nested Sequential block applied as one layer
    const inner = tf.sequential({name: 'inner_block'});
    inner.add(L.conv2d({inputShape: [16, 16, 16], filters: 8, kernelSize: 3, padding: 'same',
                        activation: 'relu', name: 'inner_conv'}));
    inner.add(L.batchNormalization({name: 'inner_bn'}));
    x = inner.apply(x);
    x = L.globalMaxPooling2d({name: 'gmax'}).apply(x);
    x = L.reshape({targetShape: [2, 4], name: 'to_seq'}).apply(x);
    x = L.permute({dims: [2, 1], name: 'perm'}).apply(x);
    x = L.layerNormalization({name: 'ln'}).apply(x);
    x = L.conv1d({filters: 6, kernelSize: 2, activation: 'tanh', name: 'conv1d'}).apply(x);
    x = L.flatten({name: 'flat'}).apply(x);
    x = L.dense({units: 5, activation: 'gelu', name: 'dense_gelu'}).apply(x);
    const vol = tf.input({shape: [8, 8, 8, 2], name: 'volume'});
    let v = L.conv3d({filters: 4, kernelSize: 3, activation: 'relu', name: 'conv3d'}).apply(vol);
    v = L.flatten({name: 'vflat'}).apply(v);
    v = L.dense({units: 5, name: 'vdense'}).apply(v);
    let y = L.add({name: 'merge'}).apply([x, v]);
    y = L.activation({activation: 'softmax', name: 'out'}).apply(y);
    return tf.model({inputs: [img, vol], outputs: y, name: 'layer_zoo'});
}

// Recurrent wrappers: Bidirectional LSTM (concat) and GRU (ave), TimeDistributed
// Dense, RepeatVector, SimpleRNN over a variable-length sequence; Cropping2D.
function seqWrappers() {
    const inp = tf.input({shape: [null, 32], name: 'frames'});
    let x = L.bidirectional({layer: L.lstm({units: 16, returnSequences: true, name: 'enc'}),
                             name: 'bi_enc'}).apply(inp);
    x = L.timeDistributed({layer: L.dense({units: 8, activation: 'relu', name: 'proj'}),
                           name: 'td_proj'}).apply(x);
    x = L.globalAveragePooling1d({name: 'pool'}).apply(x);
    x = L.repeatVector({n: 4, name: 'repeat'}).apply(x);
    x = L.bidirectional({layer: L.gru({units: 8, returnSequences: true, name: 'dec'}),
                         mergeMode: 'ave', name: 'bi_dec'}).apply(x);
    x = L.simpleRNN({units: 6, name: 'rnn'}).apply(x);
    x = L.dense({units: 3, activation: 'softmax', name: 'cls'}).apply(x);
    return tf.model({inputs: inp, outputs: x, name: 'seq_wrappers'});
}

function cropNet() {
    const m = tf.sequential({name: 'crop_net'});
    m.add(L.cropping2D({inputShape: [20, 20, 3], cropping: [[1, 2], [3, 0]], name: 'crop'}));
    m.add(L.conv2d({filters: 4, kernelSize: 3, name: 'conv'}));
    m.add(L.globalAveragePooling2d({name: 'gap'}));
    return m;
}

// The small model whose MACs tests/test_keras.c computes by hand.
function tinyCnn() {
    const m = tf.sequential({name: 'tiny_cnn'});
    m.add(L.conv2d({inputShape: [8, 8, 3], filters: 4, kernelSize: 3, activation: 'relu',
                    name: 'conv'}));
    m.add(L.flatten({name: 'flat'}));
    m.add(L.dense({units: 10, name: 'fc'}));
    return m;
}

// ---- serialisation --------------------------------------------------------

async function layersModelJson(model) {
    let art;
    await model.save(tf.io.withSaveHandler(async (a) => {
        art = a;
        return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
    }));
    // The layout tf.io writes for file:// and browser downloads.
    return {
        format: 'layers-model',
        generatedBy: art.generatedBy,
        convertedBy: art.convertedBy,
        modelTopology: art.modelTopology,
        weightsManifest: [{paths: ['group1-shard1of1.bin'], weights: art.weightSpecs}],
    };
}

async function main() {
    const models = [mobilenetV2Like(), resnetIsh(), lstmText(), layerZoo(), tinyCnn(),
                    seqWrappers(), cropNet()];
    fs.mkdirSync(path.join(out, 'keras'), {recursive: true});
    fs.mkdirSync(path.join(out, 'tfjs'), {recursive: true});
    const truth = {
        generator: 'tools/keras/gen.js',
        tfjs_version: tf.version.tfjs,
        note: 'countParams() as reported by @tensorflow/tfjs (trainable + non-trainable)',
        models: {},
    };
    for (const m of models) {
        const name = m.name;
        const cfg = m.toJSON(null, false);
        fs.writeFileSync(path.join(out, 'keras', name + '.json'), JSON.stringify(cfg, null, 1));
        const lm = await layersModelJson(m);
        fs.writeFileSync(path.join(out, 'tfjs', name + '.model.json'), JSON.stringify(lm));
        truth.models[name] = {
            params: m.countParams(),
            trainable: m.trainableWeights.reduce((s, w) => s + w.shape.reduce((a, b) => a * b, 1), 0),
            output_shape: m.outputs.map(o => o.shape),
            files: [`keras/${name}.json`, `tfjs/${name}.model.json`],
        };
        console.log(name, m.countParams());
    }
    fs.writeFileSync(path.join(out, 'keras', 'params.json'), JSON.stringify(truth, null, 1) + '\n');
}

main().catch(e => {
    console.error(e);
    process.exit(1);
});
