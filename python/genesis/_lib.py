"""Loading libgenesis with ctypes and declaring the C functions the package calls.

The library is looked for, in order:

1. the path in the environment variable ``GENESIS_LIBRARY``;
2. the copy installed inside this package (``genesis/libgenesis.so``), if ``pip install``
   bundled one;
3. an installed library: ``pkg-config --variable=libdir genesis``, then the dynamic
   linker's cache (``ctypes.util.find_library("genesis")``, which asks ``ldconfig``).

Every declaration mirrors ``include/genesis/genesis.h``; the struct layouts below must
match it field for field.
"""

import ctypes
import ctypes.util
import os
import shutil
import subprocess

c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_uint64 = ctypes.c_uint64
c_double = ctypes.c_double
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t
POINTER = ctypes.POINTER

# ---- status codes and enums (fixed values in genesis.h) ----------------------------------
OK = 0
ERR_INVALID_ARG = -1
ERR_NOMEM = -2
ERR_IO = -3
ERR_PARSE = -4
ERR_DATA = -5
ERR_MODEL_FORMAT = -6
ERR_VERSION = -7
ERR_DIVERGED = -8
ERR_UNSUPPORTED = -9
ERR_CUDA = -10
ERR_STATE = -13
ERR_CANCELLED = -14

DEVICE_AUTO, DEVICE_CPU, DEVICE_CUDA = 0, 1, 2
COLUMN_CONTINUOUS, COLUMN_CATEGORICAL = 0, 1
WORKLOAD_FIT, WORKLOAD_SAMPLE = 0, 1
FEATURE_CONDITIONS, FEATURE_SEQUENCES, FEATURE_TARGET = 1, 2, 4
LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG = 0, 1, 2, 3


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("index", c_int),
        ("name", ctypes.c_char * 128),
        ("total_memory", c_uint64),
        ("free_memory", c_uint64),
        ("cc_major", c_int),
        ("cc_minor", c_int),
        ("multiprocessors", c_int),
        ("pci_bus_id", ctypes.c_char * 32),
        ("driver_version", c_int),
        ("runtime_version", c_int),
        ("cublas_version", c_int),
        ("cudnn_version", c_int),
        ("nccl_version", c_int),
    ]


class Progress(ctypes.Structure):
    _fields_ = [
        ("epoch", c_int),
        ("epochs", c_int),
        ("step", c_int64),
        ("steps", c_int64),
        ("loss_g", c_double),
        ("loss_d", c_double),
        ("elapsed_s", c_double),
        ("eta_s", c_double),
        ("rows_per_s", c_double),
    ]


class ParamInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("help", c_char_p),
        ("lo", c_double),
        ("hi", c_double),
        ("default", c_double),
        ("integer", c_int),
        ("models", ctypes.c_uint),
        ("after_fit", c_int),
    ]


class ModelKindInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("features", ctypes.c_uint),
        ("train_param", c_int),
        ("train_unit", c_char_p),
        ("losses", c_int),
    ]


class ModelColumn(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_int),
        ("integer", c_int),
        ("decimals", c_int),
        ("has_missing", c_int),
        ("datetime", c_char_p),
        ("is_id", c_int),
        ("nlevels", c_int),
    ]


class Privacy(ctypes.Structure):
    _fields_ = [
        ("dp", c_int),
        ("epsilon", c_double),
        ("delta", c_double),
        ("target_epsilon", c_double),
        ("noise_multiplier", c_double),
        ("max_grad_norm", c_double),
        ("sampling_rate", c_double),
        ("steps", c_int64),
        ("stats_noise", c_double),
        ("stats_threshold", c_double),
        ("stats_epsilon", c_double),
        ("mechanism", c_char_p),
    ]


class MemoryEstimate(ctypes.Structure):
    _fields_ = [
        ("workload", c_int),
        ("batch_rows", c_int64),
        ("on_device", c_int),
        ("exact", c_int),
        ("data_dim", c_int),
        ("cond_dim", c_int),
        ("parameters", c_uint64),
        ("optimizer", c_uint64),
        ("activations", c_uint64),
        ("activations_per_row", c_uint64),
        ("workspace", c_uint64),
        ("table", c_uint64),
        ("encoded_data", c_uint64),
        ("transform_fit", c_uint64),
        ("output_buffers", c_uint64),
        ("output_per_row", c_uint64),
        ("runtime", c_uint64),
        ("device_total", c_uint64),
        ("host_total", c_uint64),
    ]


class EvalOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("holdout", c_void_p),
        ("target", c_char_p),
        ("metadata_path", c_char_p),
        ("parts", ctypes.c_uint),
        ("subsample_rows", c_int64),
        ("dcr_rows", c_int64),
        ("detection_rows", c_int64),
        ("tstr_rows", c_int64),
        ("correlation_threshold", c_double),
        ("association_threshold", c_double),
        ("dcr_reference_rows", c_int64),
    ]


PROGRESS_FN = ctypes.CFUNCTYPE(c_int, POINTER(Progress), c_void_p)
SAMPLE_PROGRESS_FN = ctypes.CFUNCTYPE(c_int, c_int64, c_int64, c_double, c_void_p)
LOG_FN = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_void_p)

# name: (restype, argtypes)
_SIGNATURES = {
    "genesis_version_string": (c_char_p, []),
    "genesis_version_number": (ctypes.c_uint, []),
    "genesis_status_str": (c_char_p, [c_int]),
    "genesis_errmsg": (c_char_p, [c_void_p]),
    "genesis_ctx_create": (c_int, [POINTER(c_void_p)]),
    "genesis_ctx_free": (None, [c_void_p]),
    "genesis_ctx_set_seed": (c_int, [c_void_p, c_uint64]),
    "genesis_ctx_set_threads": (c_int, [c_void_p, c_int]),
    "genesis_ctx_set_device": (c_int, [c_void_p, c_int, c_int]),
    "genesis_ctx_device_name": (c_char_p, [c_void_p]),
    "genesis_ctx_set_log": (None, [c_void_p, LOG_FN, c_void_p]),
    "genesis_ctx_set_memory_budget": (c_int, [c_void_p, c_double, c_uint64]),
    "genesis_detect_devices": (c_int, [POINTER(DeviceInfo), c_int, POINTER(c_int), c_char_p,
                                       c_size_t]),
    "genesis_dist_supported": (c_int, [c_int]),
    "genesis_table_create": (c_int, [c_void_p, c_int64, c_char_p, POINTER(c_void_p)]),
    "genesis_table_add_continuous": (c_int, [c_void_p, c_char_p, POINTER(c_double), c_int,
                                             c_int]),
    "genesis_table_add_categorical": (c_int, [c_void_p, c_char_p, POINTER(c_int32),
                                              POINTER(c_char_p), c_int32]),
    "genesis_table_add_shape": (c_int, [c_void_p, c_char_p, c_int32, c_int]),
    "genesis_table_free": (None, [c_void_p]),
    "genesis_table_nrows": (c_int64, [c_void_p]),
    "genesis_table_ncols": (c_int, [c_void_p]),
    "genesis_model_kind_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "genesis_model_kind_name": (c_char_p, [c_int]),
    "genesis_model_kind_features": (ctypes.c_uint, [c_int]),
    "genesis_model_kind_get_info": (c_int, [c_int, POINTER(ModelKindInfo)]),
    "genesis_model_kind_default": (c_int, []),
    "genesis_model_epochs_length": (c_int, [c_void_p, ctypes.c_int64, ctypes.c_double,
                                            POINTER(ctypes.c_double)]),
    "genesis_param_count": (c_int, []),
    "genesis_param_get_info": (c_int, [c_int, c_int, POINTER(ParamInfo)]),
    "genesis_param_choice": (c_char_p, [c_int, c_int]),
    "genesis_model_create": (c_int, [c_void_p, c_int, POINTER(c_void_p)]),
    "genesis_model_free": (None, [c_void_p]),
    "genesis_model_get_kind": (c_int, [c_void_p]),
    "genesis_model_set_param": (c_int, [c_void_p, c_int, c_double]),
    "genesis_model_get_param": (c_int, [c_void_p, c_int, POINTER(c_double)]),
    "genesis_model_set_sequence_columns": (c_int, [c_void_p, c_char_p, c_char_p]),
    "genesis_model_set_calendar_columns": (c_int, [c_void_p, c_char_p]),
    "genesis_model_set_target": (c_int, [c_void_p, c_char_p]),
    "genesis_model_fit": (c_int, [c_void_p, c_void_p, PROGRESS_FN, c_void_p]),
    "genesis_model_save": (c_int, [c_void_p, c_char_p]),
    "genesis_model_load": (c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    "genesis_model_set_condition": (c_int, [c_void_p, c_char_p, c_char_p]),
    "genesis_model_clear_conditions": (None, [c_void_p]),
    "genesis_model_ncols": (c_int, [c_void_p]),
    "genesis_model_privacy": (c_int, [c_void_p, POINTER(Privacy)]),
    "genesis_model_column_info": (c_int, [c_void_p, c_int, POINTER(ModelColumn)]),
    "genesis_model_column_level": (c_char_p, [c_void_p, c_int, c_int]),
    "genesis_model_column_mixture": (c_int, [c_void_p, c_int, c_int, POINTER(c_int),
                                             POINTER(c_double), POINTER(c_double),
                                             POINTER(c_double), POINTER(c_int),
                                             POINTER(c_double)]),
    "genesis_model_column_quantiles": (c_int, [c_void_p, c_int, c_int, POINTER(c_int),
                                               POINTER(c_double)]),
    "genesis_model_sample_csv": (c_int, [c_void_p, c_int64, c_char_p]),
    "genesis_model_set_sample_batch": (c_int, [c_void_p, c_int64]),
    "genesis_model_set_sample_devices": (c_int, [c_void_p, POINTER(c_int), c_int]),
    "genesis_model_set_sample_progress": (None, [c_void_p, SAMPLE_PROGRESS_FN, c_void_p]),
    "genesis_sampler_create": (c_int, [c_void_p, c_int64, c_int, POINTER(c_void_p)]),
    "genesis_sampler_next": (c_int, [c_void_p, POINTER(c_void_p)]),
    "genesis_sampler_batch_rows": (c_int64, [c_void_p]),
    "genesis_sampler_free": (None, [c_void_p]),
    "genesis_batch_nrows": (c_int64, [c_void_p]),
    "genesis_batch_ncols": (c_int, [c_void_p]),
    "genesis_batch_column": (c_int, [c_void_p, c_int, POINTER(c_double), POINTER(c_int32)]),
    "genesis_batch_text": (c_char_p, [c_void_p, c_int64, c_int, c_char_p, c_size_t]),
    "genesis_estimate_memory": (c_int, [c_void_p, c_void_p, c_int, c_int64,
                                        POINTER(MemoryEstimate)]),
    "genesis_optimize_batch_size": (c_int, [c_void_p, c_void_p, c_int, POINTER(c_int64)]),
    "genesis_memory_budget": (c_int, [c_void_p, POINTER(c_uint64), POINTER(c_uint64)]),
    "genesis_memory_usage": (c_int, [c_void_p, POINTER(c_uint64), POINTER(c_uint64),
                                     POINTER(c_uint64)]),
    "genesis_host_memory": (c_int, [POINTER(c_uint64), POINTER(c_uint64)]),
    "genesis_parse_bytes": (c_int, [c_char_p, POINTER(c_uint64)]),
    "genesis_eval_options_init": (None, [POINTER(EvalOptions)]),
    "genesis_evaluate": (c_int, [c_void_p, c_void_p, c_void_p, POINTER(EvalOptions),
                                 POINTER(c_void_p)]),
    "genesis_eval_result_free": (None, [c_void_p]),
    "genesis_eval_result_score": (c_double, [c_void_p, c_int]),
    "genesis_eval_result_json": (c_char_p, [c_void_p]),
    "genesis_eval_result_write_html": (c_int, [c_void_p, c_char_p]),
}


class LibraryNotFound(OSError):
    """libgenesis.so could not be found or loaded."""


def _pkg_config_candidates():
    exe = shutil.which("pkg-config")
    if not exe:
        return []
    try:
        out = subprocess.run([exe, "--variable=libdir", "genesis"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    libdir = out.stdout.strip()
    if out.returncode != 0 or not libdir:
        return []
    libdir = os.path.normpath(libdir)
    return [os.path.join(libdir, "libgenesis.so.0"), os.path.join(libdir, "libgenesis.so")]


def candidates():
    """The paths tried, in order, with where each came from."""
    found = []
    env = os.environ.get("GENESIS_LIBRARY")
    if env:
        found.append(("GENESIS_LIBRARY", env))
    here = os.path.dirname(os.path.abspath(__file__))
    own = os.path.join(here, "libgenesis.so")
    if os.path.exists(own):
        found.append(("the package's own copy", own))
    for p in _pkg_config_candidates():
        if os.path.exists(p):
            found.append(("pkg-config", p))
    name = ctypes.util.find_library("genesis")
    if name:
        found.append(("the dynamic linker (ldconfig)", name))
    return found


def _declare(lib):
    for name, (res, args) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


_LIB = None
_LIB_PATH = None


def load():
    """The loaded library (loaded once)."""
    global _LIB, _LIB_PATH
    if _LIB is not None:
        return _LIB
    tried = []
    for where, path in candidates():
        try:
            lib = ctypes.CDLL(path)
            _declare(lib)
        except (OSError, AttributeError) as e:
            tried.append(f"  {path} ({where}): {e}")
            if where == "GENESIS_LIBRARY":
                break  # an explicit choice that fails is an error, not a reason to look on
            continue
        _LIB, _LIB_PATH = lib, path
        return lib
    msg = ["libgenesis.so was not found or could not be loaded."]
    if tried:
        msg.append("Tried:")
        msg.extend(tried)
    else:
        msg.append("GENESIS_LIBRARY is not set, the package holds no copy, and neither "
                   "pkg-config nor the dynamic linker knows a library named genesis.")
    msg.append("Build the C library (make build) and set GENESIS_LIBRARY=<build>/libgenesis.so, "
               "or install it (make install PREFIX=...) so that pkg-config finds genesis.pc, "
               "or reinstall this package with pip from the repository (it then bundles "
               "the library).")
    raise LibraryNotFound("\n".join(msg))


def path():
    """The path of the loaded library."""
    load()
    return _LIB_PATH
