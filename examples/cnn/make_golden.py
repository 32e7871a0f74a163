"""Writes the PyTorch reference of examples/cnn: a small ResNet's weights (convolutions, batch
norms in inference form, the classifier), its input and its output, computed in float64 by
PyTorch (Debian's python3-torch, 1.13) with torch.nn.functional's conv2d, batch_norm, relu,
max_pool2d and avg_pool2d.

Usage: /usr/bin/python3 examples/cnn/make_golden.py [OUT_DIR]  (default: golden/ beside this file).
Files: config.txt (key value lines) and one raw little-endian float32 file per tensor, row-major,
named <tensor>.f32."""

import os
import sys

import torch
import torch.nn.functional as F

BATCH, IN_CHANNELS, SIZE, C1, C2, CLASSES, EPS = 2, 3, 16, 16, 32, 10, 1e-5

# name: (out channels, in channels, kernel, stride, padding)
CONVS = {
    "stem": (C1, IN_CHANNELS, 3, 1, 1),
    "b1a": (C1, C1, 3, 1, 1),
    "b1b": (C1, C1, 3, 1, 1),
    "b2a": (C2, C1, 3, 2, 1),
    "b2b": (C2, C2, 3, 1, 1),
    "b2s": (C2, C1, 1, 2, 0),
}


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    g = torch.Generator().manual_seed(2025)

    def rand(*shape, lo=-1.0, hi=1.0):
        return (torch.rand(*shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).float()

    w = {}
    for name, (o, i, k, _, _) in CONVS.items():
        w[name + "_conv"] = rand(o, i, k, k) * (1.5 / (i * k * k) ** 0.5)
        w[name + "_bn_weight"] = rand(o, lo=0.5, hi=1.5)
        w[name + "_bn_bias"] = rand(o, lo=-0.2, hi=0.2)
        w[name + "_bn_mean"] = rand(o, lo=-0.3, hi=0.3)
        w[name + "_bn_var"] = rand(o, lo=0.5, hi=2.0)
    w["fc_weight"] = rand(CLASSES, C2) * (1 / C2 ** 0.5)
    w["fc_bias"] = rand(CLASSES, lo=-0.1, hi=0.1)
    x = rand(BATCH, IN_CHANNELS, SIZE, SIZE)
    d = {k: v.double() for k, v in w.items()}

    def conv_bn(name, t):
        _, _, _, stride, padding = CONVS[name]
        y = F.conv2d(t, d[name + "_conv"], None, stride, padding)
        return F.batch_norm(y, d[name + "_bn_mean"], d[name + "_bn_var"], d[name + "_bn_weight"],
                            d[name + "_bn_bias"], training=False, eps=EPS)

    s = F.max_pool2d(F.relu(conv_bn("stem", x.double())), 3, 2, 1)
    h1 = F.relu(conv_bn("b1b", F.relu(conv_bn("b1a", s))) + s)
    h2 = F.relu(conv_bn("b2b", F.relu(conv_bn("b2a", h1))) + conv_bn("b2s", h1))
    pooled = F.avg_pool2d(h2, h2.shape[-2:]).flatten(1)
    expected = F.linear(pooled, d["fc_weight"], d["fc_bias"])

    for name, t in list(w.items()) + [("x", x), ("expected", expected)]:
        t.float().contiguous().numpy().astype("<f4").tofile(os.path.join(out_dir, name + ".f32"))
    with open(os.path.join(out_dir, "config.txt"), "w") as f:
        f.write(f"# written by examples/cnn/make_golden.py with torch {torch.__version__}\n")
        for key, value in (("batch", BATCH), ("in_channels", IN_CHANNELS), ("size", SIZE), ("c1", C1), ("c2", C2),
                           ("classes", CLASSES), ("eps", EPS)):
            f.write(f"{key} {value}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden"))
