#!/usr/bin/env python3
"""Writes the random held-out SCALE-Sim USER-mode cases of issue 35 into OUTDIR.

30 runs drawn with a fixed seed (35): dataflow, a possibly non-square array (4..32 rows and
cols), SRAM sizes of 1..32 KiB each, 1..64 words/cycle, and three random GEMMs (even runs) or
convs with 1x1..7x7 filters and strides 1..3 (odd runs). Writes OUTDIR/configs/<run>.cfg and
OUTDIR/topologies/{gemm,conv}_<run>.csv, and prints "<run> <gemm|conv>" per run.
Drawn once, before kneepoint was compared with SCALE-Sim on them; not tuned to.
"""
import os
import random
import sys

CFG = """[general]
run_name = {name}

[architecture_presets]
ArrayHeight:    {R}
ArrayWidth:     {C}
IfmapSramSzkB:   {ikb}
FilterSramSzkB:  {fkb}
OfmapSramSzkB:   {okb}
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : {bw}
Dataflow : {df}
MemoryBanks:   1

[run_presets]
InterfaceBandwidth: USER
"""


def main(out):
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    os.makedirs(os.path.join(out, "topologies"), exist_ok=True)
    random.seed(35)
    for i in range(30):
        df = random.choice(['os', 'ws', 'is'])
        R = random.choice([4, 8, 12, 16, 32])
        C = random.choice([4, 8, 16, 24, 32])
        ikb, fkb, okb = (random.choice([1, 2, 4, 8, 32]) for _ in range(3))
        bw = random.choice([1, 2, 3, 5, 8, 16, 64])
        name = f"h{i:02d}_{df}_{R}x{C}_{ikb}_{fkb}_{okb}_bw{bw}"
        with open(os.path.join(out, "configs", name + ".cfg"), "w") as f:
            f.write(CFG.format(name=name, R=R, C=C, ikb=ikb, fkb=fkb, okb=okb, bw=bw, df=df))
        rows = []
        if i % 2 == 0:
            typ, header = "gemm", "Layer, M, N, K,"
            for j in range(3):
                M, N, K = random.randint(1, 300), random.randint(1, 200), random.randint(1, 400)
                while M * N * K > 1.5e6:  # keeps each SCALE-Sim run to seconds
                    K, M = max(1, K // 2), max(1, M - 20)
                rows.append(f"r{j}, {M}, {N}, {K},")
        else:
            typ = "conv"
            header = ("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                      "Num Filter, Strides,")
            for j in range(3):
                F, S = random.choice([1, 2, 3, 5, 7]), random.choice([1, 1, 2, 3])
                H, W = random.randint(F, 20), random.randint(F, 20)
                ch, nf = random.choice([1, 3, 8, 16, 32]), random.randint(1, 64)
                rows.append(f"c{j}, {H}, {W}, {F}, {F}, {ch}, {nf}, {S},")
        with open(os.path.join(out, "topologies", f"{typ}_{name}.csv"), "w") as f:
            f.write(header + "\n" + "\n".join(rows) + "\n")
        print(name, typ)


if __name__ == "__main__":
    main(sys.argv[1])
