"""SyntheticGenerator: one genesis_ctx and one genesis_model behind a pandas interface."""

import ctypes
import logging
import math
import os
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

from . import _frame, _lib
from ._errors import GenesisError, check

log = logging.getLogger("genesis")

# Options that would need what the library does not do (docs/python.md, "Not implemented").
NOT_IMPLEMENTED = {
    "num_workers": "sampling already runs the network on a worker thread of its own while "
                   "the caller takes the previous batch; set `threads` for the CPU threads",
    "pin_memory": "host/device copies are made by the library's CUDA backend; there is no "
                  "pinned-memory switch",
}


def _precision_config(config, mixed_precision):
    """mixed_precision: False/None = the config's own (fp32 by default); True = "bf16"; or a
    precision name ("tf32", "bf16", "fp16", "fp32"), the `precision` setting (docs/precision.md)."""
    if mixed_precision in (None, False):
        return config
    config = dict(config)
    config["precision"] = "bf16" if mixed_precision is True else mixed_precision
    return config


def _checkpointing_config(config, gradient_checkpointing):
    """gradient_checkpointing=True sets the model's `gradient_checkpointing` setting (CTGAN,
    TVAE, DDPM): less activation memory in training, the same model (docs/memory.md)."""
    if gradient_checkpointing in (None, False, 0):
        return config
    config = dict(config)
    config["gradient_checkpointing"] = 1
    return config


def _reject_unimplemented(options):
    for key, value in options.items():
        if key in NOT_IMPLEMENTED and value not in (None, False, 0):
            raise NotImplementedError(f"{key}={value!r} is not implemented: "
                                      f"{NOT_IMPLEMENTED[key]}.")


def parse_device(device):
    """'cpu', 'cuda', 'cuda:N', 'auto' or None -> (genesis_device_kind, index)."""
    if device is None or device == "auto":
        return _lib.DEVICE_AUTO, 0
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda:0', not {device!r}")
    d = device.strip().lower()
    if d == "cpu":
        return _lib.DEVICE_CPU, 0
    if d == "cuda" or d == "gpu":
        return _lib.DEVICE_CUDA, 0
    if d.startswith("cuda:") and d[5:].isdigit():
        return _lib.DEVICE_CUDA, int(d[5:])
    raise ValueError(f"unknown device {device!r}: use 'cpu', 'cuda', 'cuda:N' or 'auto'")


def parse_bytes(value):
    """'8GB', '512MiB', 1e9 -> bytes (genesis_parse_bytes; K/M/G/T = 1024^n)."""
    if value is None:
        return 0
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float):
        return int(value)
    lib = _lib.load()
    out = ctypes.c_uint64()
    if lib.genesis_parse_bytes(str(value).encode(), ctypes.byref(out)) != _lib.OK:
        raise ValueError(f"memory_limit {value!r} is not a size such as '8GB' or '512MiB'")
    return out.value


def _params(lib):
    """{name with '-' and '_' both accepted: param index}."""
    table = {}
    for p in range(lib.genesis_param_count()):
        info = _lib.ParamInfo()
        if lib.genesis_param_get_info(p, 0, ctypes.byref(info)) == _lib.OK:
            name = info.name.decode()
            table[name] = p
            table[name.replace("-", "_")] = p
    return table


class _Context:
    """Owns a genesis_ctx; routes the library's notices to logging / warnings."""

    def __init__(self, device=None, seed=0, threads=0, memory_fraction=None,
                 memory_limit=None):
        self.lib = _lib.load()
        self.ptr = ctypes.c_void_p()
        check(self.lib.genesis_ctx_create(ctypes.byref(self.ptr)), None)
        self._log_fn = _lib.LOG_FN(self._on_log)
        self.lib.genesis_ctx_set_log(self.ptr, self._log_fn, None)
        self.device = device
        kind, index = parse_device(device)
        check(self.lib.genesis_ctx_set_device(self.ptr, kind, index), self.ptr)
        check(self.lib.genesis_ctx_set_seed(self.ptr, int(seed)), self.ptr)
        check(self.lib.genesis_ctx_set_threads(self.ptr, int(threads)), self.ptr)
        if memory_fraction is not None or memory_limit is not None:
            frac = 0.8 if memory_fraction is None else float(memory_fraction)
            if not 0 < frac <= 1:
                raise ValueError(f"memory_fraction must be in (0, 1], not {memory_fraction!r}")
            check(self.lib.genesis_ctx_set_memory_budget(self.ptr, frac,
                                                         parse_bytes(memory_limit)), self.ptr)

    @staticmethod
    def _on_log(level, msg, user):
        text = msg.decode("utf-8", "replace")
        if level <= _lib.LOG_WARN:
            warnings.warn(f"genesis: {text}", RuntimeWarning, stacklevel=2)
        else:
            log.log(logging.INFO if level == _lib.LOG_INFO else logging.DEBUG, text)

    def free(self):
        if self.ptr:
            self.lib.genesis_ctx_free(self.ptr)
            self.ptr = ctypes.c_void_p()

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


def _progress_bar(total, desc, unit):
    try:
        from tqdm.auto import tqdm
        return tqdm(total=total, desc=desc, unit=unit)
    except ImportError:
        return _PlainProgress(total, desc, unit)


class _PlainProgress:
    """Lines on stderr when tqdm is not installed."""

    def __init__(self, total, desc, unit):
        self.total, self.desc, self.unit, self.n = total, desc, unit, 0

    def update(self, k):
        self.n += k
        print(f"{self.desc}: {self.n}/{self.total} {self.unit}", file=sys.stderr)

    def set_postfix_str(self, s):
        pass

    def close(self):
        pass


def _methods():
    """The model kinds of the library by name, in kind order (kinds are numbered from 1)."""
    lib = _lib.load()
    names = []
    while True:
        name = lib.genesis_model_kind_name(len(names) + 1)
        if not name:
            return tuple(names)
        names.append(name.decode())


def default_method():
    """The method a SyntheticGenerator() without one uses: the library's default kind
    (genesis_model_kind_default: "ddpm", docs/benchmarks.md "Which method by default")."""
    lib = _lib.load()
    return lib.genesis_model_kind_name(lib.genesis_model_kind_default()).decode()


def _kind_info(lib, kind):
    info = _lib.ModelKindInfo()
    check(lib.genesis_model_kind_get_info(kind, ctypes.byref(info)), None)
    return info


def _is_sequence_kind(lib, kind):
    """True for a model kind that learns sequences (TimeGAN), as the library declares it."""
    info = _lib.ModelKindInfo()
    check(lib.genesis_model_kind_get_info(kind, ctypes.byref(info)), None)
    return bool(info.features & _lib.FEATURE_SEQUENCES)


class SyntheticGenerator:
    """Learns a DataFrame and generates synthetic rows (CTGAN, TVAE, TimeGAN or DDPM).

    method: "ctgan", "tvae", "timegan" or "ddpm"; None (the default) is the library's default,
    "ddpm" (default_method()). config: model settings by their parameter-table
    names ("epochs", "batch_size" / "batch-size", "embedding_dim", "discriminator_steps", ...
    see docs/python.md), plus "device". For DDPM, which trains by iterations, "epochs": N means
    N passes over the rows: ceil(N x rows / batch) iterations, set at fit, as the CLI's
    --epochs (genesis_model_epochs_length). device: "cpu", "cuda", "cuda:N" or "auto" (default).
    seed fixes every random draw on the CPU; threads = 0 lets the library choose.
    memory_fraction / memory_limit set the memory budget sampling batches are sized to and
    fit is checked against (genesis_ctx_set_memory_budget).
    """

    def __init__(self, method=None, config=None, device=None, seed=0, threads=0,
                 memory_fraction=None, memory_limit=None, mixed_precision=False,
                 gradient_checkpointing=False, num_workers=None, pin_memory=False):
        config = _precision_config(dict(config or {}), mixed_precision)
        config = _checkpointing_config(config, gradient_checkpointing)
        _reject_unimplemented({"num_workers": num_workers, "pin_memory": pin_memory})
        _reject_unimplemented(config)
        if "device" in config:
            dev = config.pop("device")
            device = device if device is not None else dev
        methods = _methods()
        if method is None:
            method = default_method()
        if method not in methods:
            raise ValueError(f"unknown method {method!r}; this version has {list(methods)}")
        self.method = method
        self._ctx = _Context(device, seed, threads, memory_fraction, memory_limit)
        self._lib = self._ctx.lib
        self._model = ctypes.c_void_p()
        self._specs = None
        self._decoder = None
        self._table_rows = 0
        kind = ctypes.c_int()
        check(self._lib.genesis_model_kind_from_name(method.encode(), ctypes.byref(kind)),
              self._ctx.ptr)
        self._kind = kind.value
        self._sequences = _is_sequence_kind(self._lib, self._kind)
        self._epochs = None  # "epochs" of a tabular method trained by iterations, set at fit
        check(self._lib.genesis_model_create(self._ctx.ptr, kind, ctypes.byref(self._model)),
              self._ctx.ptr)
        self._config = {}
        for key, value in config.items():
            self.set_param(key, value)

    # ---- settings --------------------------------------------------------------------
    def set_param(self, name, value):
        """Sets one model setting by its parameter-table name (genesis_model_set_param)."""
        table = _params(self._lib)
        if name not in table:
            known = sorted({k for k in table if "_" in k or k.isalpha()})
            raise ValueError(f"unknown setting {name!r}; the settings are {known}")
        if self._epochs_as_passes() and table[name] in (table["epochs"], table["iterations"]):
            # epochs are passes over the rows, made iterations at fit (the rows are known then)
            other = "iterations" if table[name] == table["epochs"] else "epochs"
            if other in self._config:
                raise ValueError(f"give epochs or iterations, not both: {self.method} trains by "
                                 "iterations, and epochs=N means N passes over the rows")
            if table[name] == table["epochs"]:
                if not (isinstance(value, (int, float)) and value >= 1):
                    raise ValueError(f"epochs must be a number >= 1, not {value!r}")
                self._epochs = value
                self._config["epochs"] = value
                return
        if isinstance(value, str):  # a named value ("bf16"): its index (genesis_param_choice)
            names = []
            while True:
                c = self._lib.genesis_param_choice(table[name], len(names))
                if not c:
                    break
                names.append(c.decode())
            if value not in names:
                raise ValueError(f"{name} must be one of {names}, not {value!r}")
            value = names.index(value)
        check(self._lib.genesis_model_set_param(self._model, table[name], float(value)),
              self._ctx.ptr)
        self._config[name.replace("-", "_")] = value

    def _epochs_as_passes(self):
        """True when "epochs" is N passes over the rows for this kind: a tabular method
        trained by iterations (DDPM), as the library declares its training unit."""
        info = _kind_info(self._lib, self._kind)
        return info.train_param != _params(self._lib)["epochs"] and not self._sequences

    def get_param(self, name):
        table = _params(self._lib)
        if name not in table:
            raise ValueError(f"unknown setting {name!r}")
        v = ctypes.c_double()
        check(self._lib.genesis_model_get_param(self._model, table[name], ctypes.byref(v)),
              self._ctx.ptr)
        return v.value

    def describe(self):
        """What the fitted model holds, as `genesis inspect --json` prints it: the method, every
        setting of the method ({"value", "default"}), the sampling settings, and the columns
        (type, levels; a continuous column's mixture modes, quantile map and point masses)."""
        self._require_fitted()
        lib, m = self._lib, self._model

        def settings(sampling):
            out = {}
            for p in range(lib.genesis_param_count()):
                info = _lib.ParamInfo()
                v = ctypes.c_double()
                if (lib.genesis_param_get_info(p, self._kind, ctypes.byref(info)) != _lib.OK
                        or not info.models & (1 << self._kind)
                        or bool(info.after_fit) != sampling
                        or lib.genesis_model_get_param(m, p, ctypes.byref(v)) != _lib.OK):
                    continue
                named = lib.genesis_param_choice(p, int(v.value))
                value = named.decode() if named else v.value
                out[info.name.decode()] = {"value": value, "default": v.value == info.default}
            return out

        cols = []
        for c in range(lib.genesis_model_ncols(m)):
            info = _lib.ModelColumn()
            check(lib.genesis_model_column_info(m, c, ctypes.byref(info)), self._ctx.ptr)
            col = {"name": info.name.decode("utf-8"),
                   "type": "continuous" if info.type == _lib.COLUMN_CONTINUOUS else "categorical",
                   "missing": bool(info.has_missing), "id": bool(info.is_id),
                   "datetime": info.datetime.decode() if info.datetime else None}
            if info.type == _lib.COLUMN_CONTINUOUS:
                cap = 32
                nm, npt = ctypes.c_int(), ctypes.c_int()
                mean, std, w, pt = ((ctypes.c_double * cap)() for _ in range(4))
                check(lib.genesis_model_column_mixture(m, c, cap, ctypes.byref(nm), mean, std, w,
                                                       ctypes.byref(npt), pt), self._ctx.ptr)
                col["integer"] = bool(info.integer)
                col["modes"] = [{"mean": mean[k], "std": std[k], "weight": w[k]}
                                for k in range(min(nm.value, cap))]
                col["point_masses"] = [pt[k] for k in range(min(npt.value, cap))]
                nq = ctypes.c_int()
                check(lib.genesis_model_column_quantiles(m, c, 0, ctypes.byref(nq), None),
                      self._ctx.ptr)
                if nq.value:
                    q = (ctypes.c_double * nq.value)()
                    check(lib.genesis_model_column_quantiles(m, c, nq.value, ctypes.byref(nq), q),
                          self._ctx.ptr)
                    col["quantiles"] = list(q)
            else:
                col["levels"] = [lib.genesis_model_column_level(m, c, k).decode("utf-8")
                                 for k in range(info.nlevels)]
            cols.append(col)
        return {"method": self.method, "settings": settings(False),
                "sampling_settings": settings(True), "columns": cols,
                "privacy": self.privacy()}

    def privacy(self):
        """The model's privacy guarantee (docs/privacy.md): None when it was trained without
        ``epsilon``, else a dict of epsilon, delta, the DP-SGD noise multiplier, max grad
        norm, sampling rate and steps, the column statistics' noise, and the mechanism."""
        self._require_fitted()
        pv = _lib.Privacy()
        check(self._lib.genesis_model_privacy(self._model, ctypes.byref(pv)), self._ctx.ptr)
        if not pv.dp:
            return None
        out = {name: getattr(pv, name) for name, _ in pv._fields_ if name not in ("dp", "mechanism")}
        out["mechanism"] = pv.mechanism.decode()
        return out

    @property
    def device(self):
        """The backend the model runs on: 'cpu' or 'cuda:N'."""
        return self._lib.genesis_ctx_device_name(self._ctx.ptr).decode()

    @property
    def fitted(self):
        return self._specs is not None

    @property
    def columns(self):
        return [s.name for s in self._specs] if self._specs else []

    # ---- fit -------------------------------------------------------------------------
    def fit(self, data, discrete_columns=None, continuous_columns=None, progress=False,
            entity=None, time=None, target=None, calendar=None):
        """Learns a DataFrame. Column types follow the dtypes (docs/python.md); numeric
        columns with <= 10 distinct values are categorical unless listed in
        continuous_columns. TimeGAN: `entity` and `time` name the sequence columns;
        `calendar` the calendar columns (a list of names, or "none"; default: found by name,
        year, month, day, hour, ...), written from real windows with the time values.
        DDPM: `target` names a categorical column the denoiser is conditioned on.
        progress=True shows a bar per epoch (tqdm when installed). Returns self."""
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"fit expects a pandas DataFrame, not {type(data).__name__}")
        specs = _frame.infer_specs(data, discrete_columns, continuous_columns)
        if self._sequences or entity is not None or time is not None:
            check(self._lib.genesis_model_set_sequence_columns(
                self._model, entity.encode() if entity else None,
                time.encode() if time else None), self._ctx.ptr)
        if calendar is not None:
            cal = calendar if isinstance(calendar, str) else ",".join(calendar)
            check(self._lib.genesis_model_set_calendar_columns(self._model, cal.encode()),
                  self._ctx.ptr)
        if target is not None:
            check(self._lib.genesis_model_set_target(self._model, target.encode()), self._ctx.ptr)
        table = _frame.table_from_frame(self._ctx.ptr, data, specs)
        bar = None
        try:
            if self._epochs is not None:  # N passes over the rows, in iterations
                n = ctypes.c_double()
                check(self._lib.genesis_model_epochs_length(self._model, len(data),
                                                            float(self._epochs), ctypes.byref(n)),
                      self._ctx.ptr)
                info = _kind_info(self._lib, self._kind)
                check(self._lib.genesis_model_set_param(self._model, info.train_param, n.value),
                      self._ctx.ptr)
            if progress:
                info = _kind_info(self._lib, self._kind)
                total = 3 if self._sequences else int(self.get_param(info.train_unit.decode()))
                unit = "epoch" if info.train_param == _params(self._lib)["epochs"] else "iteration"
                bar = _progress_bar(total, f"fit {self.method}", unit)

            def on_progress(p, user):
                if bar is not None:
                    try:
                        bar.update(p.contents.epoch - getattr(bar, "n", 0))
                        bar.set_postfix_str(f"G {p.contents.loss_g:+.3f} D {p.contents.loss_d:+.3f}")
                    except Exception:
                        pass
                return 0

            cb = _lib.PROGRESS_FN(on_progress)
            check(self._lib.genesis_model_fit(self._model, table, cb, None), self._ctx.ptr)
        finally:
            if bar is not None:
                bar.close()
            self._lib.genesis_table_free(table)
        self._table_rows = len(data)
        self._specs = specs
        self._decoder = None
        return self

    def _require_fitted(self):
        if self._specs is None:
            raise GenesisError(_lib.ERR_STATE, "the model is not fitted; call fit() or "
                                               "SyntheticGenerator.load() first")

    def _get_decoder(self):
        if self._decoder is None:
            self._decoder = _frame.Decoder(self._lib, self._model, self._specs)
        return self._decoder

    # ---- conditions ------------------------------------------------------------------
    def _set_conditions(self, conditions):
        self._lib.genesis_model_clear_conditions(self._model)
        if not conditions:
            return
        by_name = {s.name: s for s in self._specs}
        for column, values in conditions.items():
            if not isinstance(values, (list, tuple)):
                values = [values]
            spec = by_name.get(column)
            for v in values:
                text = spec.text_of(v) if spec is not None else str(v)
                check(self._lib.genesis_model_set_condition(
                    self._model, str(column).encode("utf-8"), text.encode("utf-8")),
                    self._ctx.ptr)

    # ---- generation ------------------------------------------------------------------
    def _raw_batches(self, n, sample_batch, progress):
        """Yields (raw columns, rows) per sampler batch."""
        if n < 0:
            raise ValueError(f"n must be >= 0, not {n}")
        check(self._lib.genesis_model_set_sample_batch(self._model, int(sample_batch or 0)),
              self._ctx.ptr)
        dec = self._get_decoder()
        sampler = ctypes.c_void_p()
        check(self._lib.genesis_sampler_create(self._model, int(n), 0, ctypes.byref(sampler)),
              self._ctx.ptr)
        # close() frees the samplers still open (a generate_batches iterator the caller kept)
        # before the model they read from, and marks them so that this generator neither
        # reads nor frees them again
        key = sampler.value
        if not hasattr(self, "_open_samplers"):
            self._open_samplers = {}
        self._open_samplers[key] = sampler
        bar = _progress_bar(n, f"generate {self.method}", "rows") if progress else None
        try:
            while True:
                if key not in self._open_samplers:
                    raise RuntimeError("the generator was closed while its rows were being "
                                       "generated; make a new generate_batches call on an open one")
                batch = ctypes.c_void_p()
                check(self._lib.genesis_sampler_next(sampler, ctypes.byref(batch)),
                      self._ctx.ptr)
                if not batch.value:
                    break
                rows = self._lib.genesis_batch_nrows(batch)
                cols = dec.raw_columns(batch, rows)
                if bar is not None:
                    bar.update(rows)
                yield cols, rows
        finally:
            if self._open_samplers.pop(key, None) is not None:
                self._lib.genesis_sampler_free(sampler)
            if bar is not None:
                bar.close()

    def generate(self, n, conditions=None, progress=False, batch_size=None):
        """n synthetic rows as a DataFrame with the training columns and dtypes.
        conditions: {column: value or [values]} (CTGAN: the rows get these values; several
        values of one column take turns). batch_size: rows per sampling batch (memory only;
        the rows do not depend on it). TimeGAN: n sequences, read back from the library's
        CSV (it has no decoded-row sampling)."""
        self._require_fitted()
        if self._sequences:
            return self._generate_sequences(n)
        self._set_conditions(conditions)
        try:
            parts = [[] for _ in self._specs]
            for cols, _rows in self._raw_batches(n, batch_size or self._sample_batch(), progress):
                for c, col in enumerate(cols):
                    parts[c].append(col)
        finally:
            if conditions:
                self._lib.genesis_model_clear_conditions(self._model)
        dec = self._get_decoder()
        merged = [np.concatenate(p) if p else np.empty(0, dtype=object if s.kind in
                  ("categorical", "text") else np.float64) for p, s in zip(parts, self._specs)]
        return dec.frame(merged)

    sample = generate

    def generate_batches(self, n, batch_size, conditions=None, progress=False):
        """Yields DataFrames of exactly `batch_size` rows (the last one smaller) that
        together hold n rows; memory stays at about one batch."""
        self._require_fitted()
        if batch_size is None or int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, not {batch_size!r}")
        if self._sequences:
            raise NotImplementedError("generate_batches is for CTGAN and TVAE; TimeGAN "
                                      "sequences come from generate(n)")
        batch_size = int(batch_size)
        dec = self._get_decoder()
        self._set_conditions(conditions)
        try:
            pending, have = [[] for _ in self._specs], 0
            for cols, rows in self._raw_batches(n, batch_size, progress):
                for c, col in enumerate(cols):
                    pending[c].append(col)
                have += rows
                while have >= batch_size:
                    merged = [np.concatenate(p) for p in pending]
                    yield dec.frame([m[:batch_size] for m in merged])
                    pending = [[m[batch_size:]] for m in merged]
                    have -= batch_size
            if have > 0:
                yield dec.frame([np.concatenate(p) for p in pending])
        finally:
            if conditions:
                self._lib.genesis_model_clear_conditions(self._model)

    def set_sample_devices(self, devices):
        """Spreads the next generate calls over several devices
        (genesis_model_set_sample_devices): a list of GPU indices or "cuda:N" for a model
        on a GPU; for a model on the CPU, a list whose length is the number of generating
        threads (or that number). The rows are the same bytes as on one device; None or []
        is the model's own device alone."""
        self._require_fitted()
        if devices is None:
            devices = []
        if isinstance(devices, int):
            devices = ["cpu"] * devices
        idx = []
        for d in devices:
            if isinstance(d, int):
                idx.append(d)
            elif str(d) == "cpu":
                idx.append(0)
            else:
                kind, index = parse_device(str(d))
                if kind != _lib.DEVICE_CUDA:
                    raise ValueError(f"sampling device {d!r}: name a GPU (cuda:N or N) or 'cpu'")
                idx.append(index)
        arr = (ctypes.c_int * max(len(idx), 1))(*idx)
        check(self._lib.genesis_model_set_sample_devices(self._model, arr, len(idx)),
              self._ctx.ptr)

    def _sample_batch(self):
        return 0

    def _generate_sequences(self, n):
        fd, path = tempfile.mkstemp(suffix=".csv", prefix="genesis-")
        os.close(fd)
        try:
            check(self._lib.genesis_model_sample_csv(self._model, int(n), path.encode()),
                  self._ctx.ptr)
            return pd.read_csv(path)
        finally:
            os.unlink(path)

    # ---- memory ----------------------------------------------------------------------
    @property
    def gpu_memory_used(self):
        """GPU memory in use on the model's device now, in MiB (0 on the CPU)."""
        dev = ctypes.c_uint64()
        check(self._lib.genesis_memory_usage(self._model, None, None, ctypes.byref(dev)),
              self._ctx.ptr)
        return dev.value / 2**20

    def memory_budget(self):
        """(budget, available) in bytes on the model's device (genesis_memory_budget)."""
        b, a = ctypes.c_uint64(), ctypes.c_uint64()
        check(self._lib.genesis_memory_budget(self._model, ctypes.byref(b), ctypes.byref(a)),
              self._ctx.ptr)
        return b.value, a.value

    def estimate_memory(self, data=None, workload="fit", batch_rows=0):
        """Every term of genesis_estimate_memory, in bytes, for this model on `data` (a
        DataFrame; None for sampling with a fitted model)."""
        w = {"fit": _lib.WORKLOAD_FIT, "sample": _lib.WORKLOAD_SAMPLE}[workload]
        table = None
        if data is not None:
            table = _frame.table_from_frame(self._ctx.ptr, data, _frame.infer_specs(data))
        try:
            est = _lib.MemoryEstimate()
            check(self._lib.genesis_estimate_memory(self._model, table, w, int(batch_rows),
                                                    ctypes.byref(est)), self._ctx.ptr)
        finally:
            if table is not None:
                self._lib.genesis_table_free(table)
        return {name: getattr(est, name) for name, _ in est._fields_}

    # ---- files -----------------------------------------------------------------------
    def save(self, path):
        """Writes a .gen model file (genesis_model_save; temporary name, then rename)."""
        self._require_fitted()
        check(self._lib.genesis_model_save(self._model, os.fspath(path).encode()),
              self._ctx.ptr)

    @classmethod
    def load(cls, path, device=None, seed=0, threads=0, **kwargs):
        """A generator from a .gen file. Column names come from the file; dtypes are
        int64 / Int64, float64 and text (a .gen file holds no pandas dtypes)."""
        self = cls.__new__(cls)
        self._ctx = _Context(device, seed, threads, kwargs.get("memory_fraction"),
                             kwargs.get("memory_limit"))
        self._lib = self._ctx.lib
        self._model = ctypes.c_void_p()
        check(self._lib.genesis_model_load(self._ctx.ptr, os.fspath(path).encode(),
                                           ctypes.byref(self._model)), self._ctx.ptr)
        self._kind = self._lib.genesis_model_get_kind(self._model)
        self._sequences = _is_sequence_kind(self._lib, self._kind)
        self._epochs = None
        self.method = self._lib.genesis_model_kind_name(self._kind).decode()
        self._specs = _frame.specs_from_model(self._lib, self._model)
        self._decoder = None
        self._table_rows = 0
        self._config = {}
        return self

    def close(self):
        """Frees the model and its context now (also done when the object is collected)."""
        for s in list(getattr(self, "_open_samplers", {}).values()):
            self._lib.genesis_sampler_free(s)  # before the model they sample from
        getattr(self, "_open_samplers", {}).clear()
        if getattr(self, "_model", None):
            self._lib.genesis_model_free(self._model)
            self._model = ctypes.c_void_p()
        if getattr(self, "_ctx", None) is not None:
            self._ctx.free()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "fitted" if self.fitted else "not fitted"
        return f"<{type(self).__name__} {self.method} on {self.device}, {state}>"


def evaluate(real, synthetic, holdout=None, target=None, details=False, seed=0,
             discrete_columns=None, continuous_columns=None):
    """Scores a synthetic DataFrame against the real one (genesis_evaluate): a dict of the
    headline scores that were computed (quality, column_shapes, pair_trends, validity,
    exact_copy_rate, new_row_synthesis, dcr_baseline, detection, detection_xgboost,
    alpha_precision, beta_recall; with a holdout: dcr_overfitting, dcr_share,
    dcr_share_equal_size; with holdout and target: tstr_* / trtr_*). details=True adds
    "details": the library's whole JSON report as a dict."""
    import json
    ctx = _Context("cpu", seed)
    lib = ctx.lib
    specs = _frame.infer_specs(real, discrete_columns, continuous_columns)
    tables = []
    result = ctypes.c_void_p()
    try:
        missing = [s.name for s in specs if s.name not in synthetic.columns]
        if missing:
            raise GenesisError(_lib.ERR_DATA, f"the synthetic DataFrame lacks the columns "
                                              f"{missing}")
        t_real = _frame.table_from_frame(ctx.ptr, real, specs, name="real")
        tables.append(t_real)
        t_syn = _frame.table_from_frame(ctx.ptr, synthetic[[s.name for s in specs]], specs,
                                        first=False, name="synthetic")
        tables.append(t_syn)
        opts = _lib.EvalOptions()
        lib.genesis_eval_options_init(ctypes.byref(opts))
        if holdout is not None:
            t_hold = _frame.table_from_frame(ctx.ptr, holdout[[s.name for s in specs]], specs,
                                             first=False, name="holdout")
            tables.append(t_hold)
            opts.holdout = t_hold
        if target is not None:
            opts.target = str(target).encode()
        check(lib.genesis_evaluate(ctx.ptr, t_real, t_syn, ctypes.byref(opts),
                                   ctypes.byref(result)), ctx.ptr)
        scores = {}
        for k, name in enumerate(SCORE_NAMES):
            v = lib.genesis_eval_result_score(result, k)
            if not math.isnan(v):
                scores[name] = v
        if details:
            text = lib.genesis_eval_result_json(result)
            scores["details"] = json.loads(text.decode("utf-8")) if text else None
        return scores
    finally:
        if result:
            lib.genesis_eval_result_free(result)
        for t in tables:
            lib.genesis_table_free(t)
        ctx.free()


# genesis_eval_score order (genesis.h)
SCORE_NAMES = ("quality", "quality_threshold", "column_shapes", "pair_trends",
               "pair_trends_threshold", "validity", "data_validity", "data_structure",
               "exact_copy_rate", "new_row_synthesis", "dcr_baseline", "dcr_overfitting",
               "detection", "tstr_logistic", "tstr_mlp", "trtr_logistic", "trtr_mlp",
               "detection_xgboost", "alpha_precision", "beta_recall", "dcr_share",
               "tstr_xgboost_auc", "trtr_xgboost_auc", "dcr_share_equal_size")
