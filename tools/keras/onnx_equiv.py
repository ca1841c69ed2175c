#!/usr/bin/python3
"""onnx_equiv.py - exports PyTorch equivalents of the generated Keras samples
(same layers, shapes and padding arithmetic) to ONNX, so that
`dippm layers` on the Keras file and on the ONNX file can be compared: MACs
must agree (parameters differ only where the frameworks do: PyTorch's
LSTM/GRU carry two bias vectors, Keras's one).

Usage: /usr/bin/python3 tools/keras/onnx_equiv.py OUTDIR
then:  for m in resnet_ish mobilenet_v2_like lstm_text; do
         dippm layers samples/keras/$m.json | grep MACs; dippm layers OUTDIR/$m.onnx | grep MACs; done
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetIsh(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.blocks = nn.ModuleList()
        cin = 32
        for c, s in [(32, 1), (32, 1), (64, 2), (64, 1), (128, 2)]:
            b = nn.Module()
            b.a = nn.Conv2d(cin, c, 3, s, 1, bias=False)
            b.bna = nn.BatchNorm2d(c)
            b.b = nn.Conv2d(c, c, 3, 1, 1, bias=False)
            b.bnb = nn.BatchNorm2d(c)
            b.proj = nn.Sequential(nn.Conv2d(cin, c, 1, s, bias=False), nn.BatchNorm2d(c)) \
                if (s != 1 or cin != c) else None
            self.blocks.append(b)
            cin = c
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        for b in self.blocks:
            y = b.bnb(b.b(F.relu(b.bna(b.a(x)))))
            x = F.relu(y + (b.proj(x) if b.proj is not None else x))
        return F.softmax(self.fc(x.mean((2, 3))), -1)


class MobilenetV2Like(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(3, 16, 3, 2, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.ModuleList()
        cin = 16
        for t, c, s in [(1, 16, 1), (6, 24, 2), (6, 24, 1), (6, 32, 2), (6, 32, 1), (6, 64, 2)]:
            layers = []
            if t != 1:
                layers += [nn.Conv2d(cin, cin * t, 1, bias=False), nn.BatchNorm2d(cin * t), nn.ReLU6()]
            e = cin * t
            layers += [nn.Conv2d(e, e, 3, s, 1, groups=e, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
                       nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c)]
            blk = nn.Sequential(*layers)
            blk.skip = s == 1 and cin == c
            self.blocks.append(blk)
            cin = c
        self.head = nn.Sequential(nn.Conv2d(64, 256, 1, bias=False), nn.BatchNorm2d(256), nn.ReLU6())
        self.fc = nn.Linear(256, 100)

    def forward(self, x):
        x = self.stem(x)
        for b in self.blocks:
            x = x + b(x) if b.skip else b(x)
        return F.softmax(self.fc(self.head(x).mean((2, 3))), -1)


class LstmText(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(5000, 64)
        self.lstm = nn.LSTM(64, 96, batch_first=True)
        self.gru = nn.GRU(96, 48, batch_first=True)
        self.hidden = nn.Linear(48, 32)
        self.score = nn.Linear(32, 1)

    def forward(self, ids):
        y, _ = self.lstm(self.embed(ids))
        _, h = self.gru(y)
        return torch.sigmoid(self.score(F.relu(self.hidden(h[0]))))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else '.'
    cases = [('resnet_ish', ResnetIsh(), torch.randn(1, 3, 64, 64)),
             ('mobilenet_v2_like', MobilenetV2Like(), torch.randn(1, 3, 96, 96)),
             ('lstm_text', LstmText(), torch.randint(0, 5000, (1, 128)))]
    for name, m, x in cases:
        m.eval()
        torch.onnx.export(m, (x,), f'{out}/{name}.onnx', opset_version=17)
        print(name, sum(p.numel() for p in m.parameters()))


if __name__ == '__main__':
    main()
