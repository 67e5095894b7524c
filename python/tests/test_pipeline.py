"""genesis.pipeline (docs/python.md, "Pipelines"): the guide's PipelineBuilder example on
data/adult_sample.csv (Parquet in, Parquet out), CSV sources and sinks, rows written batch
by batch, progress, the same rows as generate_batches, spreading generation over CPU
streams, and bad input: a missing source, a schema that differs from the model's, an
unwritable sink, a failure while writing — each a clear error that leaves no sink and no
temporary file. The Parquet tests skip when pyarrow is not installed (Debian 12 has no
python3-pyarrow: `pip install pyarrow`)."""

import os

import pandas as pd
import pytest

from genesis import SyntheticGenerator
from genesis.pipeline import PipelineBuilder

from conftest import TINY

NEEDS_PYARROW = "reading and writing Parquet needs pyarrow (pip install pyarrow)"


def _pyarrow():
    return pytest.importorskip("pyarrow", reason=NEEDS_PYARROW)


def _left(folder, keep):
    return sorted(f for f in os.listdir(folder) if f not in keep)


def _node(device, n, batch, **more):
    s = {"method": "ctgan", "n_samples": n, "device": device, "batch_size": batch,
         "config": dict(TINY)}
    s.update(more)
    return s


def test_guide_example_parquet_to_parquet(adult, device, tmp_path):
    pa = _pyarrow()
    import pyarrow.parquet as pq
    src, dst = tmp_path / "large_dataset.parquet", tmp_path / "synthetic_large.parquet"
    pq.write_table(pa.Table.from_pandas(adult, preserve_index=False), src)
    seen = []
    pipeline = (
        PipelineBuilder()
        .source(str(src))
        .add_node("generate", "synthesize", _node(device, 5_000, 1_200))
        .sink(str(dst))
        .build()
    )
    result = pipeline.execute(progress=lambda done, total: seen.append((done, total)))
    assert result["rows"] == 5_000 and result["source_rows"] == len(adult)
    back = pq.read_table(dst).to_pandas()
    assert len(back) == 5_000
    assert list(back.columns) == list(adult.columns)
    for c in adult.columns:  # the source's dtypes come back (int64, object)
        assert back[c].dtype == adult[c].dtype, c
    assert pq.ParquetFile(dst).metadata.num_row_groups == 5  # written batch by batch
    assert seen == [(1200, 5000), (2400, 5000), (3600, 5000), (4800, 5000), (5000, 5000)]
    assert _left(tmp_path, {"large_dataset.parquet", "synthetic_large.parquet"}) == []


def test_rows_are_generate_batches_rows(adult, tmp_path):
    """Parquet or CSV, the sink holds the rows generate_batches yields for the same seed."""
    src = tmp_path / "adult.csv"
    adult.to_csv(src, index=False)
    gen = SyntheticGenerator("ctgan", config=dict(TINY), device="cpu", seed=3).fit(adult)
    gen.save(str(tmp_path / "m.gen"))
    want = pd.concat(list(SyntheticGenerator.load(str(tmp_path / "m.gen"), device="cpu", seed=3)
                          .generate_batches(2_500, 1_000)), ignore_index=True)
    (PipelineBuilder().source(str(src))
     .add_node("g", "synthesize", {"model": str(tmp_path / "m.gen"), "n_samples": 2_500,
                                   "batch_size": 1_000, "device": "cpu", "seed": 3})
     .sink(str(tmp_path / "out.csv")).build().execute())
    got = pd.read_csv(tmp_path / "out.csv")
    assert len(got) == 2_500
    pd.testing.assert_frame_equal(got, pd.read_csv(_csv_text(want, tmp_path)))
    # on three CPU streams: the same rows
    (PipelineBuilder().source(str(src))
     .add_node("g", "synthesize", {"model": str(tmp_path / "m.gen"), "n_samples": 2_500,
                                   "batch_size": 1_000, "device": "cpu", "seed": 3,
                                   "devices": ["cpu", "cpu", "cpu"]})
     .sink(str(tmp_path / "out3.csv")).build().execute())
    assert (tmp_path / "out3.csv").read_bytes() == (tmp_path / "out.csv").read_bytes()


def _csv_text(df, folder):
    path = folder / "want.csv"
    df.to_csv(path, index=False)
    return path


def test_csv_source_parquet_sink_and_back(adult, tmp_path):
    _pyarrow()
    import pyarrow.parquet as pq
    src = tmp_path / "adult.csv"
    adult.to_csv(src, index=False)
    out = tmp_path / "syn.parquet"
    tvae = _node("cpu", 700, 300, method="tvae")
    del tvae["config"]["discriminator_dim"]
    r = (PipelineBuilder().source(str(src)).add_node("g", "synthesize", tvae)
         .sink(str(out)).build().execute())
    assert r["rows"] == 700 and pq.read_table(out).num_rows == 700
    again = tmp_path / "again.csv"
    (PipelineBuilder().source(str(out)).add_node("g", "synthesize", _node("cpu", 50, 50))
     .sink(str(again)).build().execute())
    assert len(pd.read_csv(again)) == 50


def test_missing_source(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        (PipelineBuilder().source(str(tmp_path / "nope.csv"))
         .add_node("g", "synthesize", {"n_samples": 10}).sink(str(tmp_path / "o.csv")).build())
    assert os.listdir(tmp_path) == []


def test_schema_differs_from_model(adult, tmp_path):
    gen = SyntheticGenerator("ctgan", config=dict(TINY), device="cpu").fit(adult)
    gen.save(str(tmp_path / "m.gen"))
    src = tmp_path / "other.csv"
    adult.drop(columns=["age"]).assign(extra=1).to_csv(src, index=False)
    p = (PipelineBuilder().source(str(src))
         .add_node("g", "synthesize", {"model": str(tmp_path / "m.gen"), "n_samples": 10})
         .sink(str(tmp_path / "o.csv")).build())
    with pytest.raises(ValueError, match=r"columns differ from the model.*missing \['age'\].*"
                                         r"not in the model \['extra'\]"):
        p.execute()
    assert _left(tmp_path, {"m.gen", "other.csv"}) == []


def test_unwritable_sink(adult, tmp_path):
    src = tmp_path / "adult.csv"
    adult.head(50).to_csv(src, index=False)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        (PipelineBuilder().source(str(src)).add_node("g", "synthesize", {"n_samples": 10})
         .sink(str(tmp_path / "no" / "such" / "o.csv")).build())
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        (PipelineBuilder().source(str(src)).add_node("g", "synthesize", {"n_samples": 10})
         .sink(str(tmp_path / "afile" / "o.csv")).build())
    with pytest.raises(ValueError, match="is the source"):
        (PipelineBuilder().source(str(src)).add_node("g", "synthesize", {"n_samples": 10})
         .sink(str(src)).build())
    with pytest.raises(ValueError, match="not a format"):
        PipelineBuilder().sink(str(tmp_path / "o.xlsx"))
    with pytest.raises(ValueError, match="unknown setting"):
        PipelineBuilder().add_node("g", "synthesize", {"n_rows": 10})
    assert _left(tmp_path, {"adult.csv", "afile"}) == []


def test_failure_while_writing_leaves_no_sink(adult, tmp_path):
    """A failure after some batches were written (here the progress callback raising, as
    Ctrl-C would): the temporary file goes, no sink appears, an older sink stays."""
    src = tmp_path / "adult.csv"
    adult.to_csv(src, index=False)
    out = tmp_path / "o.csv"
    out.write_text("old\n")

    def stop(done, total):
        if done >= 400:
            raise KeyboardInterrupt

    p = (PipelineBuilder().source(str(src)).add_node("g", "synthesize", _node("cpu", 2_000, 200))
         .sink(str(out)).build())
    with pytest.raises(KeyboardInterrupt):
        p.execute(progress=stop)
    assert out.read_text() == "old\n"
    assert _left(tmp_path, {"adult.csv", "o.csv"}) == []


def test_parquet_without_pyarrow_is_clear(tmp_path, monkeypatch):
    import builtins
    real = builtins.__import__

    def no_pyarrow(name, *a, **k):
        if name.startswith("pyarrow"):
            raise ImportError("no pyarrow here")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    (tmp_path / "a.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ImportError, match=r"pip install pyarrow"):
        (PipelineBuilder().source(str(tmp_path / "a.csv")).add_node("g", "synthesize", {})
         .sink(str(tmp_path / "o.parquet")).build())
