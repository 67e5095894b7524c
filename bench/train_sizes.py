#!/usr/bin/env python3
"""train_sizes.py — the driver behind bench/train_sizes.sh (run that script, not this file).

Training across dataset sizes: for each row count, make the 50-column table with
bench_make_table, then for each model fit Genesis and the Python reference (SDV's `ctgan`)
on it and generate as many rows as the table has, with the same epochs and batch size for
both, interleaved (genesis, reference, genesis again for the small sizes) so that both see
the same machine load. One JSON line per run goes to --out:

  kind "run":        fit_s, generate_s, total_s (wall, everything included), prep_s
                     (fit_s - train_s: process start, reading, transformer, encoding, saving),
                     train_s (the epoch loop), s_per_step, peak_rss_mb, load averages before
                     and after, machine, commit.
  kind "projection": a size not run because the time projected from the largest measured
                     size of the same engine is over the limit (or over the time left);
                     projected_* fields, measured: false.
  kind "skipped":    a size not run because the same engine and model failed at a smaller one.

Genesis runs as two processes (`genesis fit` then `genesis sample -o -` into /dev/null); the
reference runs bench/ref/ref_ctgan.py once (fit, sample, write to /dev/null), and its fit_s
is that process's wall time minus its sampling and writing (so it includes importing torch).

Projection: prep and generation scale with rows, training with optimiser steps (rows/batch
per epoch): projected = prep_rate*rows + s_per_step*steps + generate_rate*rows, from the
largest size measured. Only standard-library Python; the reference runs in its own venv.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import threading
import time


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def machine_name():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    gpu = ""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores" + (f", GPU {gpu}" if gpu else "")


def timed(cmd, stdout_path, stderr_path, timeout, env=None):
    """Runs cmd; returns (wall_s, peak_rss_mb, exit code or "timeout"). The peak RSS is
    the child's own ru_maxrss, read with wait4."""
    with open(stdout_path, "wb") as out, open(stderr_path, "ab") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        killed = []
        timer = threading.Timer(timeout, lambda: (killed.append(1), p.kill()))
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024.0, "timeout" if killed else p.returncode


def steps_per_epoch(model, rows, batch):
    """Optimiser steps of one epoch. DDPM has iterations, not epochs: its "epoch" is
    ceil(rows / batch) iterations, so that it sees as many rows as one pass of TVAE."""
    if model in ("tvae", "ddpm"):
        return -(-rows // batch)
    return max(rows // batch, 1)


def make_table(args, rows):
    path = os.path.join(args.data_dir, f"table50_{rows}_seed{args.table_seed}.csv")
    if not os.path.exists(path):
        os.makedirs(args.data_dir, exist_ok=True)
        t0 = time.perf_counter()
        tmp = path + ".tmp"
        subprocess.run([args.make_table, str(rows), str(args.table_seed), tmp], check=True)
        os.replace(tmp, path)
        print(f"[train_sizes] wrote {path} in {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def run_genesis(args, model, table, rows, log):
    gen_file = os.path.join(args.data_dir, f"model_{model}_{rows}.gen")
    common = ["--seed", str(args.seed), "--threads", str(args.threads), "--device", args.device]
    if model == "ddpm":  # iterations instead of epochs (steps_per_epoch)
        length = ["--iterations", str(args.epochs * steps_per_epoch(model, rows, args.batch_size))]
    else:
        length = ["--epochs", str(args.epochs)]
    fit_cmd = [args.genesis, "fit", "-i", table, "-m", gen_file, "--method", model] + length + [
               "--batch-size", str(args.batch_size), "--progress"] + common
    errlog = log + ".stderr"
    open(errlog, "w").close()
    fit_s, fit_rss, rc = timed(fit_cmd, "/dev/null", errlog, args.timeout)
    rec = {"fit_s": round(fit_s, 3), "fit_rss_mb": round(fit_rss, 1)}
    if rc != 0:
        rec["status"] = f"fit failed ({rc}); see {errlog}"
        return rec
    text = open(errlog, errors="replace").read()
    on = re.findall(r"training \w+ for \d+ (?:epochs?|iterations?) on (.+)", text)
    if on:  # the device genesis says it trained on (a CUDA fallback says cpu here)
        rec["trained_on"] = on[-1].strip()
    if "falling back" in text:
        rec["fallback"] = True
    m = re.findall(r"(?:epoch|iteration) \d+/\d+ .*?([0-9.]+) rows/s", text)
    if m:
        rps = float(m[-1])
        work = args.epochs * (rows if model == "tvae" else steps_per_epoch(model, rows, args.batch_size) * args.batch_size)
        rec["train_s"] = round(work / rps, 3) if rps > 0 else None
    sample_cmd = [args.genesis, "sample", "-m", gen_file, "-o", "-", "-n", str(rows), "-q"] + common
    gen_s, gen_rss, rc = timed(sample_cmd, "/dev/null", errlog, args.timeout)
    rec.update({"generate_s": round(gen_s, 3), "gen_rss_mb": round(gen_rss, 1)})
    try:
        os.remove(gen_file)
    except OSError:
        pass
    rec["status"] = "ok" if rc == 0 else f"sample failed ({rc}); see {errlog}"
    return rec


def run_reference(args, model, table, rows, log):
    discrete = ",".join(f"k{j:02d}" for j in range(1, 26))
    cmd = [args.ref_python, os.path.join(args.root, "bench/ref/ref_ctgan.py"), "--model", model,
           "--input", table, "--epochs", str(args.epochs), "--batch-size", str(args.batch_size),
           "--seed", str(args.seed), "--discrete", discrete, "--rows", str(rows),
           "--output", "/dev/null", "--device", args.device]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    errlog = log + ".stderr"
    open(errlog, "w").close()
    wall, rss, rc = timed(cmd, log + ".json", errlog, args.timeout, env=env)
    rec = {"peak_rss_mb": round(rss, 1), "process_wall_s": round(wall, 3)}
    if rc != 0:
        rec["status"] = f"failed ({rc}); see {errlog}"
        return rec
    r = json.loads(open(log + ".json").read().strip().splitlines()[-1])
    gen = (r.get("sample_s") or 0) + (r.get("write_s") or 0)
    rec.update({"fit_s": round(wall - gen, 3), "generate_s": round(gen, 3),
                "train_s": r.get("train_s"), "transform_s": r.get("transform_s"),
                "read_s": r.get("read_s"), "ref_fit_call_s": r.get("fit_s"),
                "ref_versions": {"ctgan": r.get("ctgan_version"), "torch": r.get("torch_version")},
                "status": "ok"})
    return rec


def project(measured, rows, model, batch, epochs):
    """Projected fit/generate seconds at `rows` from the largest measured run."""
    base = max(measured, key=lambda r: r["rows"])
    n0 = base["rows"]
    st0 = epochs * steps_per_epoch(model, n0, batch)
    st1 = epochs * steps_per_epoch(model, rows, batch)
    train = base.get("train_s") or 0.0
    prep = base["fit_s"] - train
    fit = prep * rows / n0 + train * st1 / st0
    gen = base["generate_s"] * rows / n0
    return {"projected_fit_s": round(fit, 1), "projected_generate_s": round(gen, 1),
            "projected_total_s": round(fit + gen, 1), "from_rows": n0,
            "from_s_per_step": round(train / st0, 5) if st0 else None,
            "from_prep_s_per_row": prep / n0, "from_generate_s_per_row": base["generate_s"] / n0}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000 100000 1000000")
    ap.add_argument("--models", default="ctgan")
    ap.add_argument("--engines", default="genesis reference")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--threads", type=int, default=0,
                    help="genesis --threads (0: its default, the cores other work leaves free)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--table-seed", type=int, default=1)
    ap.add_argument("--repeat-upto", type=int, default=100000,
                    help="run genesis a second time (after the reference) up to this size")
    ap.add_argument("--genesis-limit", type=float, default=1200,
                    help="skip (and project) a genesis size projected above this many seconds")
    ap.add_argument("--ref-limit", type=float, default=3600)
    ap.add_argument("--budget", type=float, default=1e9, help="seconds for the whole run")
    ap.add_argument("--timeout", type=float, default=5400, help="per process")
    ap.add_argument("--keep-tables", action="store_true")
    ap.add_argument("--root", required=True)
    ap.add_argument("--genesis", required=True)
    ap.add_argument("--make-table", required=True)
    ap.add_argument("--ref-python", default="")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    t_start = time.time()
    sizes = [int(s) for s in args.sizes.split()]
    engines = args.engines.split()
    if "reference" in engines and not args.ref_python:
        engines.remove("reference")
    try:
        commit = subprocess.run(["git", "-C", args.root, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    base = {"machine": machine_name(), "commit": commit, "device": args.device,
            "epochs": args.epochs, "batch_size": args.batch_size, "seed": args.seed,
            "table_seed": args.table_seed}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    out = open(args.out, "a")

    def emit(rec):
        line = json.dumps(rec)
        out.write(line + "\n")
        out.flush()
        print(line, flush=True)

    measured = {}  # (engine, model) -> list of ok runs, with those already in --out
    failed = {}  # (engine, model) -> the size it failed at; larger sizes are skipped
    if os.path.exists(args.out):
        for line in open(args.out):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if (r.get("kind") == "run" and r.get("status") == "ok" and r.get("device") == args.device
                    and r.get("epochs") == args.epochs and r.get("batch_size") == args.batch_size):
                measured.setdefault((r["engine"], r["model"]), []).append(r)
    for rows in sizes:
        table = None
        for model in args.models.split():
            order = []
            for e in engines:
                order.append(e)
            if "genesis" in engines and rows <= args.repeat_upto and len(engines) > 1:
                order.append("genesis")
            run_no = {}
            for engine in order:
                key = (engine, model)
                if engine == "reference" and model not in ("ctgan", "tvae"):
                    continue  # the reference (SDV's ctgan package) has CTGAN and TVAE only
                if key in failed:
                    emit(dict(base, kind="skipped", engine=engine, model=model, rows=rows,
                              reason=f"failed at {failed[key]:,} rows"))
                    continue
                limit = args.genesis_limit if engine == "genesis" else args.ref_limit
                left = args.budget - (time.time() - t_start)
                if measured.get(key) and rows > max(r["rows"] for r in measured[key]):
                    pr = project(measured[key], rows, model, args.batch_size, args.epochs)
                    if pr["projected_total_s"] > min(limit, left):
                        why = (f"projected {pr['projected_total_s']:.0f} s > limit {limit:.0f} s"
                               if pr["projected_total_s"] > limit else
                               f"projected {pr['projected_total_s']:.0f} s > {left:.0f} s left")
                        emit(dict(base, kind="projection", engine=engine, model=model, rows=rows,
                                  threads=args.threads if engine == "genesis" else 1,
                                  measured=False, reason=why, **pr))
                        continue
                if left < 20:
                    emit(dict(base, kind="projection", engine=engine, model=model, rows=rows,
                              measured=False, reason="no time left"))
                    continue
                if table is None:
                    table = make_table(args, rows)
                run_no[engine] = run_no.get(engine, 0) + 1
                log = os.path.join(args.data_dir, f"log_{engine}_{model}_{rows}_{run_no[engine]}")
                la0 = loadavg()
                print(f"[train_sizes] {engine} {model} {rows} rows, run {run_no[engine]}, "
                      f"load {la0}", flush=True)
                # no process may outlast the budget (the device tool stops a command at 10 min)
                args.timeout = max(10.0, min(args.timeout, args.budget - (time.time() - t_start)))
                if engine == "genesis":
                    rec = run_genesis(args, model, table, rows, log)
                    rec["threads"] = args.threads
                    if args.threads == 0 and la0:  # what genesis' default picks at this load
                        rec["threads_auto"] = max(1, (os.cpu_count() or 1) - int(la0[0] + 0.5))
                    rec["peak_rss_mb"] = max(rec.get("fit_rss_mb", 0), rec.get("gen_rss_mb", 0))
                else:
                    rec = run_reference(args, model, table, rows, log)
                    rec["threads"] = 1
                rec.update(dict(base, kind="run", engine=engine, model=model, rows=rows,
                                run=run_no[engine], load_before=la0, load_after=loadavg(),
                                date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
                if rec.get("status") == "ok":
                    rec["total_s"] = round(rec["fit_s"] + rec["generate_s"], 3)
                    if rec.get("train_s"):
                        rec["prep_s"] = round(rec["fit_s"] - rec["train_s"], 3)
                        steps = args.epochs * steps_per_epoch(model, rows, args.batch_size)
                        rec["steps"] = steps
                        rec["s_per_step"] = round(rec["train_s"] / steps, 5)
                    measured.setdefault(key, []).append(rec)
                else:
                    failed[key] = rows
                emit(rec)
        if table and not args.keep_tables and rows >= 1000000:
            os.remove(table)
    out.close()


if __name__ == "__main__":
    main()
