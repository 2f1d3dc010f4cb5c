#!/usr/bin/python3
"""The PyTorch anchors of the trainer's benchmark (issue 5), measured on this host.

bench_trainer compares the trainer with fixed PyTorch 1.13 figures taken on the first host (a
Zen 5). This script measures the same cases here, so that a ratio on another CPU can be read
against PyTorch on that CPU: the 784-256-256-10 MLP at batches 1, 16, 128 and 1024 and the
Simple CNN (conv 5x5x32 same, ReLU, max-pool 2, conv 5x5x64 same, ReLU, max-pool 2, fc 1024,
ReLU, fc 10) at batch 128, each with SGD + momentum 0.9 (lr 0.01) on a softmax cross-entropy,
float32, data already in memory (random: PyTorch's step time does not depend on the values).
Samples/s by this process's CPU time for one thread (by wall for two), the median of `--reps`
timed windows after a warm-up.

Not part of the build or the tests: PyTorch is not a kneepoint dependency. Set-up (Debian 12):
    apt-get install --no-install-recommends python3-torch libopenblas0-pthread libjemalloc2
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/bin/python3 tools/pytorch_anchors.py
(the issue's "best set-up": OpenBLAS with AVX-512 kernels, a tuned malloc).
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256),
                         nn.ReLU(), nn.Linear(256, 10))


def simple_cnn():
    return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Linear(1024, 10))


def samples_per_s(make, batch, seconds, reps, wall):
    torch.manual_seed(1)
    model = make()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, 1, 28, 28)
    y = torch.randint(0, 10, (batch,))
    clock = time.perf_counter if wall else time.process_time

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < min(1.0, seconds):  # warm-up
        step()
    rates = []
    for _ in range(reps):
        n, c0 = 0, clock()
        w0 = time.perf_counter()
        while time.perf_counter() - w0 < seconds:
            step()
            n += 1
        rates.append(n * batch / (clock() - c0))
    return statistics.median(rates), min(rates), max(rates)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed window")
    ap.add_argument("--reps", type=int, default=5, help="timed windows per case")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()
    cases = [("mlp", mlp, 1), ("mlp", mlp, 16), ("mlp", mlp, 128), ("mlp", mlp, 1024),
             ("cnn", simple_cnn, 128)]
    print(f"torch {torch.__version__}; {torch.backends.mkldnn.is_available()=}")
    print("threads case batch samples_per_s(median) min max")
    for threads in a.threads:
        torch.set_num_threads(threads)
        for name, make, batch in cases:
            med, lo, hi = samples_per_s(make, batch, a.seconds, a.reps, wall=threads > 1)
            print(f"{threads} {name} {batch} {med:.0f} {lo:.0f} {hi:.0f}", flush=True)


if __name__ == "__main__":
    main()
