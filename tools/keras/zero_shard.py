#!/usr/bin/env python3
"""zero_shard.py - copies the weight shards of a TF.js graph model with every
float weight zeroed and every integer constant kept.

dippm reads a graph model's integer constants (paddings, axes, target shapes,
slice bounds) from its shards and never its weights, so the test corpus keeps
shards in this form: the same byte layout as the package's files, the same
integer values, and no weights (git and the release tarball compress the
zeros to almost nothing). TF.js still runs such a model, on zero weights,
which is how tools/keras/real_params.js takes its reference shapes and MACs.

Usage: zero_shard.py MODEL.json SRC_DIR DST_DIR
  reads the shards named by MODEL.json's weightsManifest from SRC_DIR and
  writes them, zeroed, to DST_DIR (refusing to overwrite a file).
"""
import json
import os
import sys

STORED = {'uint8': 1, 'uint16': 2, 'float16': 2}


def entry_bytes(w):
    n = 1
    for d in w['shape']:
        n *= d
    q = w.get('quantization')
    if q:
        return n * STORED[q['dtype']]
    return n * {'float32': 4, 'int32': 4, 'bool': 1}[w.get('dtype', 'float32')]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    model, src, dst = sys.argv[1:]
    with open(model) as f:
        manifest = json.load(f)['weightsManifest']
    for group in manifest:
        data = b''.join(open(os.path.join(src, p), 'rb').read() for p in group['paths'])
        out = bytearray(len(data))
        off = 0
        for w in group['weights']:
            n = entry_bytes(w)
            if w.get('dtype') == 'int32' and not w.get('quantization'):
                out[off:off + n] = data[off:off + n]
            off += n
        if off != len(data):
            sys.exit(f'{model}: the manifest describes {off} bytes, the shards hold {len(data)}')
        pos = 0
        for p in group['paths']:
            size = os.path.getsize(os.path.join(src, p))
            target = os.path.join(dst, p)
            if os.path.exists(target):
                sys.exit(f'{target}: exists, not overwritten')
            with open(target + '.tmp', 'wb') as f:
                f.write(out[pos:pos + size])
            os.rename(target + '.tmp', target)
            pos += size


if __name__ == '__main__':
    main()
