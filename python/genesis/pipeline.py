"""genesis.pipeline — a table source, a synthesize node and a sink, as the product's guide
writes it:

    from genesis.pipeline import PipelineBuilder
    pipeline = (PipelineBuilder()
                .source("large_dataset.parquet")
                .add_node("generate", "synthesize", {"method": "ctgan", "n_samples": 1_000_000,
                                                     "device": "cuda", "batch_size": 50_000})
                .sink("synthetic_large.parquet")
                .build())
    pipeline.execute()

Sources and sinks are Parquet (.parquet, .pq; needs pyarrow: `pip install pyarrow`) or CSV
(.csv, .tsv, .txt). The synthesize node fits a model on the source (or loads one from a .gen
file, whose columns the source must have) and writes n_samples rows to the sink batch by
batch (pyarrow's ParquetWriter, or CSV text), so memory stays at about two batches whatever
n_samples is. The sink is written under a temporary name in its own folder and renamed when
complete: a run that fails (a missing file, a schema that differs from the model's, an
unwritable folder, an error or Ctrl-C while writing) leaves no sink and no temporary file.
The source is read whole, because fit learns from the whole table. docs/python.md,
"Pipelines", lists every node setting.
"""

import os
import sys
import tempfile
import time

import pandas as pd

from ._model import SyntheticGenerator, default_method

__all__ = ["PipelineBuilder", "Pipeline", "SYNTHESIZE_SETTINGS"]

_PARQUET = (".parquet", ".pq")
_CSV = (".csv", ".tsv", ".txt")

# the settings of a "synthesize" node, and what each does
SYNTHESIZE_SETTINGS = {
    "method": "ctgan, tvae or ddpm (default ddpm, the library's default method)",
    "n_samples": "rows to write (default: as many as the source has)",
    "device": "cpu, cuda, cuda:N or auto (default auto)",
    "devices": "GPUs (or CPU streams) to spread generation over, e.g. [0, 1, 2]; the rows are "
               "the same bytes as on one",
    "batch_size": "rows generated and written per batch (default 50,000)",
    "seed": "the seed of fit and generation (default 0)",
    "threads": "CPU threads (default 0: the library chooses)",
    "config": "model settings by their parameter-table names, e.g. {'epochs': 300}",
    "epochs": "shorthand for config['epochs']",
    "model": "a .gen file to generate from instead of fitting (the source must have its columns)",
    "save": "write the fitted model to this .gen file",
    "discrete_columns": "columns to model as categorical",
    "continuous_columns": "few-valued number columns to keep continuous",
    "target": "DDPM: the class column",
    "conditions": "CTGAN: {column: value or [values]} every generated row gets",
    "memory_limit": "memory budget, e.g. '8GB'",
}
_NODE_KINDS = ("synthesize",)


def _format_of(path, fmt, role):
    if fmt is not None:
        fmt = str(fmt).lower()
        if fmt not in ("parquet", "csv"):
            raise ValueError(f"{role} format {fmt!r}: use 'parquet' or 'csv'")
        return fmt
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in _PARQUET:
        return "parquet"
    if ext in _CSV:
        return "csv"
    raise ValueError(f"{role} {os.fspath(path)!r}: {ext or 'no extension'} is not a format the "
                     f"pipeline knows; name a .parquet or .csv file, or pass format='parquet' / "
                     f"format='csv'")


def _pyarrow(role, path):
    try:
        import pyarrow
        import pyarrow.parquet
        return pyarrow
    except ImportError:
        raise ImportError(f"{role} {os.fspath(path)!r} is Parquet, which needs pyarrow: "
                          f"`pip install pyarrow` (Debian 12 has no python3-pyarrow); or use a "
                          f"CSV {role}") from None


def _check_sink_folder(path):
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"sink {os.fspath(path)!r}: the folder {folder!r} does not exist; "
                                f"create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"sink {os.fspath(path)!r}: the folder {folder!r} is not writable")
    if os.path.isdir(path):
        raise IsADirectoryError(f"sink {os.fspath(path)!r} is a folder; name a file")


class PipelineBuilder:
    """Builds a Pipeline: source(path), add_node(name, "synthesize", settings), sink(path),
    then build(). Each step returns the builder."""

    def __init__(self):
        self._source = None
        self._nodes = []
        self._sink = None

    def source(self, path, format=None, **read_options):
        """The real table: a Parquet or CSV file (format from the extension unless given).
        read_options go to pandas.read_csv (CSV) or pyarrow.parquet.read_table (Parquet)."""
        self._source = (os.fspath(path), _format_of(path, format, "source"), read_options)
        return self

    def add_node(self, name, kind, settings=None):
        """A processing step. kind "synthesize": fit (or load) a model and generate rows;
        settings: SYNTHESIZE_SETTINGS."""
        if kind not in _NODE_KINDS:
            raise ValueError(f"node {name!r}: unknown kind {kind!r}; this version has "
                             f"{list(_NODE_KINDS)}")
        settings = dict(settings or {})
        unknown = sorted(set(settings) - set(SYNTHESIZE_SETTINGS))
        if unknown:
            raise ValueError(f"node {name!r}: unknown setting(s) {unknown}; a synthesize node "
                             f"takes {sorted(SYNTHESIZE_SETTINGS)}")
        if any(n == name for n, _k, _s in self._nodes):
            raise ValueError(f"node {name!r} is already in the pipeline")
        self._nodes.append((name, kind, settings))
        return self

    def sink(self, path, format=None):
        """Where the synthetic rows go: a Parquet or CSV file, replaced when complete."""
        self._sink = (os.fspath(path), _format_of(path, format, "sink"))
        return self

    def build(self):
        """Checks the pipeline and returns it (nothing is read or written yet)."""
        if self._source is None:
            raise ValueError("the pipeline has no source; call .source(path)")
        if self._sink is None:
            raise ValueError("the pipeline has no sink; call .sink(path)")
        if len(self._nodes) != 1:
            raise ValueError(f"the pipeline needs one synthesize node, it has {len(self._nodes)}")
        src, sink = self._source[0], self._sink[0]
        if not os.path.isfile(src):
            raise FileNotFoundError(f"source {src!r}: no such file")
        if os.path.abspath(src) == os.path.abspath(sink):
            raise ValueError(f"the sink {sink!r} is the source; write to another file")
        _check_sink_folder(sink)
        for path, fmt, role in ((src, self._source[1], "source"), (sink, self._sink[1], "sink")):
            if fmt == "parquet":
                _pyarrow(role, path)
        return Pipeline(self._source, self._nodes[0], self._sink)


class Pipeline:
    """A built pipeline; execute() runs it."""

    def __init__(self, source, node, sink):
        self.source_path, self._source_format, self._read_options = source
        self.node_name, _kind, self.settings = node
        self.sink_path, self._sink_format = sink

    def __repr__(self):
        return (f"Pipeline({self.source_path!r} -> {self.node_name} (synthesize "
                f"{self.settings.get('method') or default_method()}) -> {self.sink_path!r})")

    # ---- the source ------------------------------------------------------------------
    def _read_source(self):
        path = self.source_path
        if not os.path.isfile(path):
            raise FileNotFoundError(f"source {path!r}: no such file")
        if self._source_format == "parquet":
            pa = _pyarrow("source", path)
            return pa.parquet.read_table(path, **self._read_options).to_pandas()
        opts = dict(self._read_options)
        if os.path.splitext(path)[1].lower() == ".tsv":
            opts.setdefault("sep", "\t")
        return pd.read_csv(path, **opts)

    # ---- the model -------------------------------------------------------------------
    def _generator(self, data, log):
        s = self.settings
        if s.get("model"):
            gen = SyntheticGenerator.load(s["model"], device=s.get("device"),
                                          seed=int(s.get("seed", 0)),
                                          threads=int(s.get("threads", 0)),
                                          memory_limit=s.get("memory_limit"))
            want, have = list(gen.columns), list(data.columns)
            if want != have:
                missing = [c for c in want if c not in have]
                extra = [c for c in have if c not in want]
                what = []
                if missing:
                    what.append(f"missing {missing}")
                if extra:
                    what.append(f"not in the model {extra}")
                if not what:
                    what.append(f"in another order ({have} against {want})")
                gen.close()
                raise ValueError(f"source {self.source_path!r}: its columns differ from the "
                                 f"model {s['model']!r}'s: {', '.join(what)}; give the table "
                                 f"the model was fitted on, or fit a new model (leave out "
                                 f"'model')")
            return gen
        config = dict(s.get("config") or {})
        if "epochs" in s:
            config["epochs"] = s["epochs"]
        gen = SyntheticGenerator(s.get("method"), config=config, device=s.get("device"),
                                 seed=int(s.get("seed", 0)), threads=int(s.get("threads", 0)),
                                 memory_limit=s.get("memory_limit"))
        t0 = time.monotonic()
        gen.fit(data, discrete_columns=s.get("discrete_columns"),
                continuous_columns=s.get("continuous_columns"), target=s.get("target"))
        log(f"{self.node_name}: fitted {gen.method} on {len(data)} rows x {data.shape[1]} "
            f"columns in {time.monotonic() - t0:.1f} s")
        if s.get("save"):
            gen.save(s["save"])
        return gen

    # ---- the sink --------------------------------------------------------------------
    def _write(self, gen, n, batch, progress_fn, devices):
        sink = self.sink_path
        _check_sink_folder(sink)
        folder = os.path.dirname(os.path.abspath(sink))
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(sink) + ".", suffix=".partial",
                                   dir=folder)
        os.close(fd)
        writer = None
        batches = None
        done = 0
        try:
            if devices is not None:
                gen.set_sample_devices(devices)
            batches = gen.generate_batches(n, batch, conditions=self.settings.get("conditions"))
            if self._sink_format == "parquet":
                pa = _pyarrow("sink", sink)
                schema = None
                for df in batches:
                    if schema is None:
                        schema = _arrow_schema(pa, df)
                        writer = pa.parquet.ParquetWriter(tmp, schema)
                    writer.write_table(pa.Table.from_pandas(df, schema=schema,
                                                            preserve_index=False))
                    done += len(df)
                    progress_fn(done)
                if writer is None:  # n = 0: a file with the columns and no rows
                    empty = gen.generate(0)
                    writer = pa.parquet.ParquetWriter(tmp, _arrow_schema(pa, empty))
                writer.close()
                writer = None
            else:
                sep = "\t" if os.path.splitext(sink)[1].lower() == ".tsv" else ","
                with open(tmp, "w", newline="", encoding="utf-8") as f:
                    header = True
                    for df in batches:
                        df.to_csv(f, index=False, header=header, sep=sep)
                        header = False
                        done += len(df)
                        progress_fn(done)
                    if header:
                        gen.generate(0).to_csv(f, index=False, header=True, sep=sep)
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.replace(tmp, sink)
            tmp = None
        finally:
            if batches is not None:  # the sampler goes before the model does
                batches.close()
            if writer is not None:
                try:
                    writer.close()
                except Exception:
                    pass
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
        return done

    def execute(self, progress=False):
        """Runs the pipeline and returns {"rows", "sink", "seconds", "source_rows"}.
        progress: True for a bar (tqdm when installed, else lines on stderr), or a function
        called with (rows written, rows asked) after every batch."""
        s = self.settings
        data = self._read_source()
        if len(data) == 0:
            raise ValueError(f"source {self.source_path!r} has no rows")
        n = int(s.get("n_samples", len(data)))
        if n < 0:
            raise ValueError(f"n_samples must be >= 0, not {n}")
        batch = int(s.get("batch_size", 50_000))
        if batch < 1:
            raise ValueError(f"batch_size must be >= 1, not {batch}")
        bar, fn = None, (lambda done: None)
        if callable(progress):
            fn = lambda done: progress(done, n)  # noqa: E731
        elif progress:
            from ._model import _progress_bar
            bar = _progress_bar(n, f"{self.node_name} -> {os.path.basename(self.sink_path)}",
                                "rows")
            state = {"last": 0}

            def fn(done):
                bar.update(done - state["last"])
                state["last"] = done

        def log(msg):
            if progress and not callable(progress):
                print(f"genesis.pipeline: {msg}", file=sys.stderr)

        t0 = time.monotonic()
        gen = self._generator(data, log)
        source_rows = len(data)
        del data  # fit is done: the source's memory goes back before generation
        try:
            rows = self._write(gen, n, batch, fn, s.get("devices"))
        finally:
            if bar is not None:
                bar.close()
            gen.close()
        seconds = time.monotonic() - t0
        log(f"wrote {rows} rows to {self.sink_path} in {seconds:.1f} s")
        return {"rows": rows, "sink": self.sink_path, "seconds": seconds,
                "source_rows": source_rows}


def _arrow_schema(pa, df):
    """The sink's schema from the first batch: a column whose values are all missing there
    (pyarrow's null type) is written as text or float64, so later batches fit it."""
    schema = pa.Schema.from_pandas(df, preserve_index=False)
    fields = []
    for field in schema:
        if pa.types.is_null(field.type):
            numeric = pd.api.types.is_numeric_dtype(df[field.name].dtype)
            field = pa.field(field.name, pa.float64() if numeric else pa.string())
        fields.append(field)
    return pa.schema(fields, metadata=schema.metadata)
