"""widest_table.py — the widest table whose model fits one GPU's memory, from the library's
memory model (genesis.gpu.estimate_memory, the FIT workload, details=True): the most
categorical columns of L levels for which parameters + optimizer + activations + the CUDA
context and cuBLAS workspace the estimate counts stay within the GPU's bytes. docs/python.md
("Not implemented") quotes its output.

    GENESIS_LIBRARY=build/libgenesis.so PYTHONPATH=python python3 bench/widest_table.py \
        [--gpu-bytes 80e9] [--methods ctgan,tvae] [--levels 500,100,10]
"""
import argparse

from genesis.gpu import estimate_memory

CONTEXT = (640 + 32) * 2**20  # estimate.c: CUDA context + cuBLAS workspace on a GPU


def device_bytes(method, columns, levels):
    t = estimate_memory(method, n_rows=100_000, n_columns=columns, n_categorical=columns,
                        n_levels=levels, device="cpu", config={"batch_size": 500}, details=True)
    return t["parameters"] + t["optimizer"] + t["activations"] + CONTEXT, t


def widest(method, levels, budget, cap=100_000):
    lo, hi = 1, 1
    while hi < cap and device_bytes(method, hi, levels)[0] <= budget:
        lo, hi = hi, min(cap, hi * 2)  # doubling, then bisection
    if device_bytes(method, hi, levels)[0] <= budget:
        return hi
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if device_bytes(method, mid, levels)[0] <= budget:
            lo = mid
        else:
            hi = mid
    return lo


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu-bytes", type=float, default=80e9)
    ap.add_argument("--methods", default="ctgan,tvae")
    ap.add_argument("--levels", default="500,100,10")
    a = ap.parse_args()
    for method in a.methods.split(","):
        for levels in [int(x) for x in a.levels.split(",")]:
            c = widest(method, levels, a.gpu_bytes)
            b, t = device_bytes(method, c, levels)
            print(f"{method} levels {levels}: widest {c} columns, encoded width {t['data_dim']}, "
                  f"conditional {t['cond_dim']}, parameters {t['parameters'] // 4}, "
                  f"device {b / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
