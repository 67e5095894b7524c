#!/usr/bin/env python3
"""Run the reference CTGAN (PyPI package `ctgan`, sdv-dev) on a CSV table.

Used to get reference timings and reference synthetic tables against which
Genesis (the C reimplementation) is compared.  It is a benchmark harness only:
nothing here is part of the Genesis product.

Single-threaded on purpose: OPENBLAS/OMP/MKL thread counts are forced to 1 in
os.environ before numpy/torch are imported, and torch.set_num_threads(1).

Prints one JSON line on stdout, e.g.
  {"epochs": 300, "fit_s": ..., "transform_s": ..., "train_s": ...,
   "s_per_epoch": ..., "s_per_epoch_after_first": ..., "sample_s": ..., ...}
  fit_s       = whole CTGAN.fit() (data transformer + training loop)
  transform_s = DataTransformer fit + transform (the Bayesian GMM mode fitting)
  train_s     = the epoch loop only; s_per_epoch = train_s / epochs
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
           "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass

import ctgan  # noqa: E402
import ctgan.synthesizers.ctgan as ctgan_mod  # noqa: E402
import ctgan.synthesizers.tvae as tvae_mod  # noqa: E402

ADULT_DISCRETE = ["workclass", "education", "marital-status", "occupation",
                  "relationship", "race", "sex", "native-country", "income"]

# ---- instrumentation: time the data transformer and each epoch separately ----
_TIMES = {"transform_s": 0.0, "epoch_ends": [], "loop_start": None}

_OrigTransformer = ctgan_mod.DataTransformer


class _TimedTransformer(_OrigTransformer):
    def fit(self, *a, **k):
        t = time.perf_counter()
        r = super().fit(*a, **k)
        _TIMES["transform_s"] += time.perf_counter() - t
        return r

    def transform(self, *a, **k):
        t = time.perf_counter()
        r = super().transform(*a, **k)
        _TIMES["transform_s"] += time.perf_counter() - t
        return r


class _EpochTimer:
    """Stands in for tqdm(range(epochs)) inside CTGAN.fit; records epoch ends."""

    def __init__(self, iterable, disable=True, **_):
        self._it = iterable

    def __iter__(self):
        # GENESIS_REF_WAIT=FILE: the data transformer (CPU only) has run; hold the epoch loop
        # until FILE exists, so that a GPU session can time the loop while the GPU is quiet.
        go = os.environ.get("GENESIS_REF_WAIT")
        if go:
            print("ref: transformer done, waiting for " + go, file=sys.stderr, flush=True)
            while not os.path.exists(go):
                time.sleep(0.05)
        _TIMES["loop_start"] = time.perf_counter()
        for x in self._it:
            yield x
            _TIMES["epoch_ends"].append(time.perf_counter())
            # one line per epoch on stderr: a run stopped at a time limit still has its figures
            print(f"ref: epoch {len(_TIMES['epoch_ends'])} ends at "
                  f"{_TIMES['epoch_ends'][-1] - _TIMES['loop_start']:.4f} s", file=sys.stderr, flush=True)

    def set_description(self, *_a, **_k):
        pass


ctgan_mod.DataTransformer = _TimedTransformer
ctgan_mod.tqdm = _EpochTimer
tvae_mod.DataTransformer = _TimedTransformer
tvae_mod.tqdm = _EpochTimer


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() + f" x{os.cpu_count()}"
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", required=True, help="training CSV")
    ap.add_argument("--output", help="synthetic CSV to write (not with --timing-only)")
    ap.add_argument("--rows", type=int, default=None,
                    help="rows to sample (default: as many as the input)")
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--model", choices=["ctgan", "tvae"], default="ctgan",
                    help="which reference synthesizer to run (default ctgan)")
    ap.add_argument("--discrete", default=",".join(ADULT_DISCRETE),
                    help="comma list of discrete columns (default: Adult's categoricals)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--timing-only", action="store_true",
                    help="fit --epochs epochs and report timings; no sampling")
    ap.add_argument("--json-out", help="also write the JSON line to this file")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                    help="cuda: enable_gpu=True (torch must see a GPU); default cpu")
    ap.add_argument("--drop-missing", action="store_true",
                    help="drop the rows with a missing value in a continuous column before "
                         "fitting (the ctgan package refuses them; Genesis models them)")
    args = ap.parse_args()

    if not args.timing_only and not args.output:
        ap.error("--output is required unless --timing-only")

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    t0 = time.perf_counter()
    data = pd.read_csv(args.input)  # pandas default: Adult's leading spaces are kept
    read_s = time.perf_counter() - t0
    discrete = [c for c in args.discrete.split(",") if c]
    missing = [c for c in discrete if c not in data.columns]
    if missing:
        sys.exit(f"discrete columns not in input: {missing}")
    rows = args.rows if args.rows is not None else len(data)
    dropped = 0
    if args.drop_missing:
        cont = [c for c in data.columns if c not in discrete]
        keep = data[cont].notna().all(axis=1)
        dropped = int((~keep).sum())
        data = data[keep].reset_index(drop=True)
    gpu = args.device == "cuda"

    if args.model == "tvae":
        model = ctgan.TVAE(epochs=args.epochs, batch_size=args.batch_size, enable_gpu=gpu)
    else:
        model = ctgan.CTGAN(epochs=args.epochs, batch_size=args.batch_size,
                            enable_gpu=gpu, verbose=False)
    model.set_random_state(args.seed)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model.fit(data, discrete_columns=discrete)
        fit_s = time.perf_counter() - t0

    ends = _TIMES["epoch_ends"]
    start = _TIMES["loop_start"]
    epoch_s = list(np.diff([start] + ends)) if start is not None else []
    train_s = (ends[-1] - start) if ends else float("nan")
    out = {
        "tool": args.model,
        "ctgan_version": ctgan.__version__,
        "torch_version": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "device": args.device,
        "machine": cpu_name(),
        "input": args.input,
        "input_rows": len(data),
        "dropped_rows": dropped,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "steps_per_epoch": max(len(data) // args.batch_size, 1),
        "seed": args.seed,
        "read_s": round(read_s, 4),
        "fit_s": round(fit_s, 3),
        "transform_s": round(_TIMES["transform_s"], 3),
        "train_s": round(train_s, 3),
        "s_per_epoch": round(train_s / args.epochs, 4) if args.epochs else None,
        "s_per_epoch_after_first": (round(float(np.mean(epoch_s[1:])), 4)
                                    if len(epoch_s) > 1 else None),
        "first_epoch_s": round(float(epoch_s[0]), 4) if epoch_s else None,
        "fit_s_per_epoch": round(fit_s / args.epochs, 4) if args.epochs else None,
        "sample_s": None,
        "rows": None,
        "output": None,
    }

    if not args.timing_only:
        t0 = time.perf_counter()
        syn = model.sample(rows)
        out["sample_s"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
        syn.to_csv(args.output, index=False)
        out["write_s"] = round(time.perf_counter() - t0, 3)
        out["rows"] = rows
        out["output"] = args.output

    line = json.dumps(out)
    print(line, flush=True)
    if args.json_out:
        with open(args.json_out, "w") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
