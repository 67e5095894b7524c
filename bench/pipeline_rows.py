"""pipeline_rows.py — the Python pipeline (genesis.pipeline) from data/adult_sample.csv
(written once as Parquet) to a Parquet sink of N rows, with a small CTGAN: prints rows,
seconds, rows/s and the process's peak resident set (ru_maxrss), so runs at several N show
whether memory grows with the rows written. docs/python.md ("Pipelines") quotes it.

    GENESIS_LIBRARY=build/libgenesis.so PYTHONPATH=python python3 bench/pipeline_rows.py \
        N [--batch 50000] [--dir /tmp]   (needs pyarrow)
"""
import argparse
import os
import resource
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from genesis.pipeline import PipelineBuilder

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--batch", type=int, default=50_000)
    ap.add_argument("--dir", default="/tmp")
    a = ap.parse_args()
    src = os.path.join(a.dir, "pipeline_rows_source.parquet")
    dst = os.path.join(a.dir, f"pipeline_rows_{a.n}.parquet")
    adult = pd.read_csv(os.path.join(HERE, "..", "data", "adult_sample.csv"))
    pq.write_table(pa.Table.from_pandas(adult, preserve_index=False), src)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    r = (PipelineBuilder().source(src)
         .add_node("generate", "synthesize",
                   {"method": "ctgan", "n_samples": a.n, "device": "cpu", "batch_size": a.batch,
                    "config": {"epochs": 1, "embedding_dim": 16, "generator_dim": 32,
                               "discriminator_dim": 32}})
         .sink(dst).build().execute())
    s = time.monotonic() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows = pq.ParquetFile(dst).metadata.num_rows
    print(f"rows {r['rows']} (file {rows}), batch {a.batch}, {s:.1f} s, {r['rows'] / s:.0f} rows/s, "
          f"peak RSS {peak / 1024:.1f} MiB (after imports and reading the source: "
          f"{before / 1024:.1f} MiB), file {os.path.getsize(dst) / 2**20:.1f} MiB")
    os.unlink(dst)
    os.unlink(src)


if __name__ == "__main__":
    main()
