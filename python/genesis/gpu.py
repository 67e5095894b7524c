"""Devices, memory plans and batched / multi-GPU generators (docs/python.md, "GPUs").

Memory figures are in MiB (so ``x / 1024`` is GiB), except where a function returns every
term of the library's estimate, which is in bytes.
"""

import ctypes
import dataclasses
import os
import tempfile

from . import _lib
from ._errors import GenesisError, check
from ._model import (SyntheticGenerator, _Context, _checkpointing_config, _precision_config,
                     _reject_unimplemented, parse_device)


@dataclasses.dataclass
class GPUInfo:
    """One GPU as genesis_detect_devices reports it (memory in MiB)."""
    index: int
    name: str
    memory_total: float
    memory_available: float
    cuda_capability: str
    multiprocessors: int
    pci_bus_id: str
    driver_version: int
    runtime_version: int


def _detect():
    lib = _lib.load()
    cap = 64
    arr = (_lib.DeviceInfo * cap)()
    count = ctypes.c_int()
    why = ctypes.create_string_buffer(512)
    check(lib.genesis_detect_devices(arr, cap, ctypes.byref(count), why, 512), None)
    gpus = []
    for i in range(count.value):
        d = arr[i]
        gpus.append(GPUInfo(d.index, d.name.decode("utf-8", "replace"),
                            d.total_memory / 2**20, d.free_memory / 2**20,
                            f"{d.cc_major}.{d.cc_minor}", d.multiprocessors,
                            d.pci_bus_id.decode(), d.driver_version, d.runtime_version))
    return gpus, why.value.decode("utf-8", "replace")


def detect_gpus():
    """The GPUs this build can use: a list of GPUInfo, empty (falsy) without one."""
    return _detect()[0]


def check_cuda_installation():
    """Prints what the library found (driver, runtime, GPUs, or why there is none) and
    returns that text."""
    gpus, why = _detect()
    lines = [f"libgenesis {_lib.load().genesis_version_string().decode()} "
             f"({_lib.path()})", why]
    for g in gpus:
        lines.append(f"GPU {g.index}: {g.name}, {g.memory_total / 1024:.1f} GiB, "
                     f"compute capability {g.cuda_capability}, bus {g.pci_bus_id}")
    text = "\n".join(lines)
    print(text)
    return text


def _shape_table(ctx, n_rows, n_columns, n_categorical, n_levels, missing):
    lib = ctx.lib
    t = ctypes.c_void_p()
    check(lib.genesis_table_create(ctx.ptr, int(n_rows), b"plan", ctypes.byref(t)), ctx.ptr)
    try:
        for c in range(int(n_columns)):
            cat = c < int(n_categorical)
            check(lib.genesis_table_add_shape(t, f"c{c}".encode(), int(n_levels) if cat else 0,
                                              1 if missing else 0), ctx.ptr)
    except BaseException:
        lib.genesis_table_free(t)
        raise
    return t


def _plan(method, n_rows, n_columns, n_categorical, n_levels, missing, device, config,
          workload, fn):
    """Runs fn(lib, ctx, model, table, workload) on a model of `method` and a table shape."""
    if n_columns < 1 or n_rows < 0 or not 0 <= n_categorical <= n_columns:
        raise ValueError("need n_columns >= 1, n_rows >= 0 and 0 <= n_categorical <= "
                         "n_columns")
    w = {"fit": _lib.WORKLOAD_FIT, "sample": _lib.WORKLOAD_SAMPLE}[workload]
    gen = SyntheticGenerator(method, config=config, device=device)
    table = _shape_table(gen._ctx, n_rows, n_columns, n_categorical, n_levels, missing)
    try:
        return fn(gen._lib, gen._ctx.ptr, gen._model, table, w)
    finally:
        gen._lib.genesis_table_free(table)
        gen.close()


def estimate_memory(method=None, n_rows=10000, n_columns=10, n_categorical=0,
                    n_levels=10, missing=False, device=None, config=None, workload="fit",
                    details=False):
    """Memory needed to train (workload="fit") or generate ("sample") with `method` (None: the
    default method, DDPM) on a
    table of n_rows x n_columns (the first n_categorical columns categorical with n_levels
    levels each, the rest continuous), from genesis_estimate_memory without building the
    table. Returns MiB: the GPU total when the model runs on a GPU, else the host total.
    details=True returns every term in bytes (a dict) instead."""

    def run(lib, ctx, model, table, w):
        est = _lib.MemoryEstimate()
        check(lib.genesis_estimate_memory(model, table, w, 0, ctypes.byref(est)), ctx)
        return est

    est = _plan(method, n_rows, n_columns, n_categorical, n_levels, missing, device, config,
                workload, run)
    if details:
        return {name: getattr(est, name) for name, _ in est._fields_}
    total = est.device_total if est.on_device else est.host_total
    return total / 2**20


def optimize_batch_size(model_type=None, n_columns=10, gpu_index=0, n_rows=10000,
                        n_categorical=0, n_levels=10, workload="sample", device=None,
                        memory_fraction=None, memory_limit=None, config=None):
    """The largest batch that fits the memory budget (genesis_optimize_batch_size): rows per
    sampling batch (workload="sample") or the largest training batch ("fit"), for a table of
    that shape on GPU `gpu_index` (the CPU when there is none), for `model_type` (None: the
    default method, DDPM)."""
    dev = device if device is not None else f"cuda:{gpu_index}" if detect_gpus() else "cpu"
    cfg = dict(config or {})
    if memory_fraction is not None or memory_limit is not None:
        cfg_ctx = (memory_fraction, memory_limit)
    else:
        cfg_ctx = None

    def run(lib, ctx, model, table, w):
        if cfg_ctx is not None:
            from ._model import parse_bytes
            frac = 0.8 if cfg_ctx[0] is None else float(cfg_ctx[0])
            check(lib.genesis_ctx_set_memory_budget(ctx, frac, parse_bytes(cfg_ctx[1])), ctx)
        rows = ctypes.c_int64()
        check(lib.genesis_optimize_batch_size(model, table, w, ctypes.byref(rows)), ctx)
        return rows.value

    return _plan(model_type, n_rows, n_columns, n_categorical, n_levels, False, dev, cfg,
                 workload, run)


class BatchedGenerator(SyntheticGenerator):
    """A SyntheticGenerator that generates in batches of `batch_size` rows (memory stays at
    about one batch for any n). auto_batch=True with no batch_size sizes batches from the
    memory budget (memory_fraction of the memory available, at most memory_limit).
    config holds the model settings (config["batch_size"] is the training batch)."""

    def __init__(self, method=None, device=None, batch_size=None, memory_fraction=None,
                 memory_limit=None, auto_batch=True, mixed_precision=False, config=None,
                 seed=0, threads=0, gradient_checkpointing=False, num_workers=None,
                 pin_memory=False):
        config = _precision_config(dict(config or {}), mixed_precision)
        config = _checkpointing_config(config, gradient_checkpointing)
        _reject_unimplemented({"num_workers": num_workers, "pin_memory": pin_memory})
        if batch_size is None and not auto_batch:
            raise ValueError("give batch_size, or auto_batch=True to size batches from the "
                             "memory budget")
        if batch_size is not None and int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, not {batch_size!r}")
        super().__init__(method, config=config, device=device, seed=seed, threads=threads,
                         memory_fraction=memory_fraction, memory_limit=memory_limit)
        self.batch_size = None if batch_size is None else int(batch_size)
        self.auto_batch = auto_batch

    def _sample_batch(self):
        return self.batch_size or 0


STRATEGIES = ("data_parallel", "model_parallel", "pipeline")


class MultiGPUGenerator(SyntheticGenerator):
    """Several devices (docs/python.md, "Multi-GPU"). strategy="data_parallel": training
    over all of them (docs/distributed.md): one rank per device, each a thread of this
    process with its own context and model; the global training batch is split between
    them and their gradients are summed (NCCL for GPUs, host sums for "cpu" ranks), so the
    result equals a one-device fit up to float rounding. strategy="pipeline": a plain fit on
    the first device. Either way generation is spread over all of them, batch by batch
    (genesis_model_set_sample_devices), the same rows as on one device.
    devices: ["cuda:0", "cuda:1"], ["cpu", "cpu"] (CPU streams), or None for every GPU
    found (one device: a plain fit and generation). "model_parallel" is refused.
    method: "ctgan" by default, not the library's default (DDPM), which does not train
    data-parallel."""

    def __init__(self, method="ctgan", strategy="data_parallel", devices=None, config=None,
                 seed=0, threads=0, **kwargs):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; one of {list(STRATEGIES)}")
        if strategy == "model_parallel":
            raise NotImplementedError(
                "strategy='model_parallel' is not implemented: every device holds the whole "
                "model (docs/python.md, 'Not implemented', gives the widest table whose model "
                "fits one GPU). Use strategy='data_parallel' or 'pipeline'.")
        if devices is None:
            gpus = detect_gpus()
            devices = [f"cuda:{g.index}" for g in gpus] or ["cpu"]
        devices = list(devices)
        if not devices:
            raise ValueError("devices is empty")
        kinds = {parse_device(d)[0] for d in devices}
        if len(kinds) > 1:
            raise ValueError(f"devices {devices} mix CPU and GPU ranks; use one kind")
        self.devices = devices
        self.strategy = strategy
        self._mg_config = dict(config or {})
        self._mg_seed, self._mg_threads = seed, threads
        super().__init__(method, config=config, device=devices[0], seed=seed, threads=threads,
                         **kwargs)

    def fit(self, data, discrete_columns=None, continuous_columns=None, progress=False,
            entity=None, time=None, target=None, calendar=None):
        if len(self.devices) == 1 or self.strategy == "pipeline":
            super().fit(data, discrete_columns, continuous_columns, progress, entity, time,
                        target=target, calendar=calendar)
        elif target is not None or calendar is not None:
            raise ValueError("target and calendar belong to methods that train on one device "
                             "(DDPM, TimeGAN); a data-parallel fit takes neither")
        else:
            self._fit_team(data, discrete_columns, continuous_columns)
        if len(self.devices) > 1 and not self._sequences:  # TimeGAN samples on one device
            self.set_sample_devices(self.devices)
        return self

    def _fit_team(self, data, discrete_columns, continuous_columns):
        from . import _frame
        lib = self._lib
        cpu = parse_device(self.devices[0])[0] == _lib.DEVICE_CPU
        kind = _DIST_THREADS if cpu else _DIST_NCCL
        if not lib.genesis_dist_supported(kind):
            raise GenesisError(_lib.ERR_UNSUPPORTED, "this build has no NCCL, so several GPUs "
                               "cannot train together; use one device")
        _declare_team(lib)
        specs = _frame.infer_specs(data, discrete_columns, continuous_columns)
        fd, path = tempfile.mkstemp(suffix=".gen", prefix="genesis-")
        os.close(fd)
        errors = {}
        if not cpu:
            ids = (ctypes.c_int * len(self.devices))(*[parse_device(d)[1]
                                                       for d in self.devices])

        def rank_main(team, rank, user):
            ctx = None
            model = ctypes.c_void_p()
            table = None
            try:
                ctx = _Context("cpu" if cpu else self.devices[rank], self._mg_seed,
                               self._mg_threads)
                if not cpu:
                    check(lib.genesis_ctx_set_devices(ctx.ptr, ids, len(self.devices)), ctx.ptr)
                check(lib.genesis_ctx_join_team(ctx.ptr, team, rank, kind), ctx.ptr)
                k = ctypes.c_int()
                check(lib.genesis_model_kind_from_name(self.method.encode(), ctypes.byref(k)),
                      ctx.ptr)
                check(lib.genesis_model_create(ctx.ptr, k, ctypes.byref(model)), ctx.ptr)
                for name, value in self._config.items():
                    from ._model import _params
                    check(lib.genesis_model_set_param(model, _params(lib)[name], float(value)),
                          ctx.ptr)
                rank_specs = _frame.infer_specs(data, discrete_columns, continuous_columns)
                table = _frame.table_from_frame(ctx.ptr, data, rank_specs)
                check(lib.genesis_model_fit(model, table, _lib.PROGRESS_FN(), None), ctx.ptr)
                if rank == 0:
                    check(lib.genesis_model_save(model, path.encode()), ctx.ptr)
                return 0
            except BaseException as e:  # reported after the team returns
                errors[rank] = e
                return 1
            finally:
                if table is not None:
                    lib.genesis_table_free(table)
                if model:
                    lib.genesis_model_free(model)
                if ctx is not None:
                    ctx.free()

        fn = _RANK_FN(rank_main)
        rcs = (ctypes.c_int * len(self.devices))()
        try:
            check(lib.genesis_team_run(len(self.devices), fn, None, rcs), None)
            if errors:
                raise errors[min(errors)]
            lib.genesis_model_free(self._model)
            self._model = ctypes.c_void_p()
            check(lib.genesis_model_load(self._ctx.ptr, path.encode(), ctypes.byref(self._model)),
                  self._ctx.ptr)
        finally:
            os.unlink(path)
        # the pandas dtypes come from the DataFrame; the level texts from its columns
        _frame.fill_levels(data, specs)
        self._specs = specs
        self._decoder = None
        self._table_rows = len(data)
        return self


_DIST_NCCL, _DIST_THREADS = 2, 3
_RANK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def _declare_team(lib):
    lib.genesis_team_run.restype = ctypes.c_int
    lib.genesis_team_run.argtypes = [ctypes.c_int, _RANK_FN, ctypes.c_void_p,
                                     ctypes.POINTER(ctypes.c_int)]
    lib.genesis_ctx_join_team.restype = ctypes.c_int
    lib.genesis_ctx_join_team.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                          ctypes.c_int]
    lib.genesis_ctx_set_devices.restype = ctypes.c_int
    lib.genesis_ctx_set_devices.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                            ctypes.c_int]
