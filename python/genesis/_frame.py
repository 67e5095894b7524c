"""pandas DataFrame <-> genesis_table, column by column, without CSV text.

Each DataFrame column becomes one table column (``genesis_table_add_continuous`` or
``genesis_table_add_categorical``) and remembers how to turn generated values back into
the column's own dtype:

=====================  ==============================  ===================================
pandas dtype            modelled as                     generated column
=====================  ==============================  ===================================
int*, uint*, Int*       continuous, whole numbers       the same dtype (Int64 etc. keep
                                                        missing values)
float*                  continuous                      the same dtype
bool, boolean           categorical ("False"/"True")    the same dtype
category                categorical (its categories)    category, same categories
object / string         categorical                     the same dtype
datetime64[ns(, tz)]    continuous (seconds since 1970) the same dtype
numeric with <= 10      categorical (as the CSV reader  the same numeric dtype
distinct values         types them); override with
                        discrete_columns /
                        continuous_columns
=====================  ==============================  ===================================

Missing values (NaN, None, NaT, pd.NA) are carried as missing.
"""

import ctypes

import numpy as np
import pandas as pd

from . import _lib

# the CSV reader's typing threshold (genesis_csv_options.max_categories default)
DISCRETE_MAX_DISTINCT = 10


class ColumnSpec:
    """How one DataFrame column maps to a table column and back."""

    def __init__(self, name, kind, dtype, values=None, texts=None, integer=False):
        self.name = name
        self.kind = kind          # "continuous", "datetime", "categorical"
        self.dtype = dtype        # the pandas dtype to give back
        self.values = values      # categorical: original values, parallel to texts
        self.texts = texts        # categorical: level text passed to the library
        self.integer = integer

    def text_of(self, value):
        """The level text of a value (for conditions)."""
        if self.texts is not None:
            for v, t in zip(self.values, self.texts):
                if v == value or t == value:
                    return t
        return str(value)


def _is_bool(dtype):
    return pd.api.types.is_bool_dtype(dtype)


def _level_text(v):
    if isinstance(v, (bool, np.bool_)):
        return "True" if v else "False"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return repr(float(v))
    return str(v)


def infer_specs(df, discrete_columns=(), continuous_columns=()):
    """A ColumnSpec per column of df (see the module's table)."""
    discrete = set(discrete_columns or ())
    continuous = set(continuous_columns or ())
    for name in list(discrete) + list(continuous):
        if name not in df.columns:
            raise ValueError(f"no column named {name!r} (given in discrete_columns or "
                             f"continuous_columns); the DataFrame has {list(df.columns)}")
    both = discrete & continuous
    if both:
        raise ValueError(f"columns {sorted(both)} are in both discrete_columns and "
                         "continuous_columns")
    specs = []
    for name in df.columns:
        if not isinstance(name, str):
            raise TypeError(f"column name {name!r} is not a string; rename the columns")
        s = df[name]
        dt = s.dtype
        if isinstance(dt, pd.CategoricalDtype):
            if name in continuous:
                raise TypeError(f"column {name!r} is categorical and cannot be continuous")
            specs.append(ColumnSpec(name, "categorical", dt))
        elif _is_bool(dt):
            specs.append(ColumnSpec(name, "categorical", dt))
        elif pd.api.types.is_datetime64_any_dtype(dt):
            specs.append(ColumnSpec(name, "datetime", dt))
        elif pd.api.types.is_numeric_dtype(dt):
            integer = pd.api.types.is_integer_dtype(dt)
            few = s.nunique(dropna=True) <= DISCRETE_MAX_DISTINCT
            if name in discrete or (few and name not in continuous):
                specs.append(ColumnSpec(name, "categorical", dt, integer=integer))
            else:
                # whole numbers in a float column (pandas' int column with a missing value,
                # as read_csv makes it) are integers, as the CLI writes them: rounded, and
                # Int64 when values are missing
                integer = integer or _whole_floats(s)
                specs.append(ColumnSpec(name, "continuous", dt, integer=integer))
        elif pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt):
            if name in continuous:
                raise TypeError(f"column {name!r} holds text and cannot be continuous; "
                                "convert it with pd.to_numeric first")
            specs.append(ColumnSpec(name, "categorical", dt))
        else:
            raise TypeError(f"column {name!r} has dtype {dt}, which the package does not "
                            "map to a table column (supported: numbers, bool, category, "
                            "text, datetime64)")
    return specs


def _datetime_seconds(s):
    """Seconds since 1970-01-01 UTC as float64, NaN for NaT."""
    if getattr(s.dt, "tz", None) is not None:
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    ns = s.astype("datetime64[ns]").to_numpy().astype("int64").astype("float64")
    ns[s.isna().to_numpy()] = np.nan
    return ns / 1e9


def _categorical_codes(spec, s, fixed):
    """int32 codes and level texts of a categorical column. `fixed`: keep spec's levels
    (first frame) or extend them (later frames scored against the first)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = list(s.cat.categories)
        codes = s.cat.codes.to_numpy().astype(np.int32)
        values = cats
    else:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
        codes = codes.astype(np.int32)
        values = list(uniques)
    texts = [_level_text(v) for v in values]
    if len(set(texts)) != len(texts):
        seen = {}
        for v, t in zip(values, texts):
            if t in seen and seen[t] != v:
                raise ValueError(f"column {spec.name!r}: the values {seen[t]!r} and {v!r} "
                                 f"have the same text {t!r}; make the column one type")
            seen[t] = v
    if not fixed:
        spec.values, spec.texts = values, texts
    return codes, texts


def table_from_frame(ctx, df, specs, first=True, name="DataFrame"):
    """A genesis_table (pointer) built from df's columns. The caller frees it."""
    lib = _lib.load()
    from ._errors import check
    n = len(df)
    t = ctypes.c_void_p()
    check(lib.genesis_table_create(ctx, n, name.encode(), ctypes.byref(t)), ctx)
    try:
        for spec in specs:
            s = df[spec.name]
            cname = spec.name.encode("utf-8")
            if spec.kind in ("continuous", "datetime"):
                if spec.kind == "datetime":
                    arr, integer = _datetime_seconds(s), 0
                else:
                    arr = pd.to_numeric(s, errors="raise").astype("float64").to_numpy(
                        dtype=np.float64, na_value=np.nan)
                    integer = 1 if spec.integer else 0
                arr = np.ascontiguousarray(arr, dtype=np.float64)
                check(lib.genesis_table_add_continuous(
                    t, cname, arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), integer, -1),
                    ctx)
            else:
                codes, texts = _categorical_codes(spec, s, fixed=not first)
                codes = np.ascontiguousarray(codes, dtype=np.int32)
                levels = (ctypes.c_char_p * max(len(texts), 1))(
                    *[x.encode("utf-8") for x in texts])
                check(lib.genesis_table_add_categorical(
                    t, cname, codes.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), levels,
                    len(texts)), ctx)
    except BaseException:
        lib.genesis_table_free(t)
        raise
    return t


def fill_levels(df, specs):
    """Records the categorical levels of df in specs, as table_from_frame(first=True) does,
    without building a table."""
    for spec in specs:
        if spec.kind == "categorical":
            _categorical_codes(spec, df[spec.name], fixed=False)


def specs_from_model(lib, model):
    """ColumnSpecs of a loaded model, from the library's column accessors (the pandas dtypes
    are not stored in a .gen file: integers come back as int64, or Int64 when the column had
    missing values; other numbers as float64; categories and dates as text, in the pandas
    version's default text dtype)."""
    from ._errors import check
    specs = []
    for c in range(lib.genesis_model_ncols(model)):
        info = _lib.ModelColumn()
        check(lib.genesis_model_column_info(model, c, ctypes.byref(info)), None)
        name = info.name.decode("utf-8")
        if info.type == _lib.COLUMN_CONTINUOUS:
            if info.datetime or info.is_id:
                specs.append(ColumnSpec(name, "text", None))
            elif info.integer:
                dt = pd.Int64Dtype() if info.has_missing else np.dtype("int64")
                specs.append(ColumnSpec(name, "continuous", dt, integer=True))
            else:
                specs.append(ColumnSpec(name, "continuous", np.dtype("float64")))
        else:
            specs.append(ColumnSpec(name, "categorical", None))
    return specs


class Decoder:
    """Turns sampler batches into the columns' own dtypes."""

    def __init__(self, lib, model, specs):
        self.lib = lib
        self.specs = specs
        self.lookup = []
        for c, spec in enumerate(specs):
            if spec.kind != "categorical":
                self.lookup.append(None)
                continue
            info = _lib.ModelColumn()
            lib.genesis_model_column_info(model, c, ctypes.byref(info))
            texts = [lib.genesis_model_column_level(model, c, k).decode("utf-8")
                     for k in range(info.nlevels)]
            if spec.texts is not None:
                by_text = dict(zip(spec.texts, spec.values))
                vals = [by_text.get(t, t) for t in texts]
            else:
                vals = texts
            arr = np.empty(len(vals) + 1, dtype=object)
            for i, v in enumerate(vals):
                arr[i] = v
            arr[len(vals)] = None  # code -1 (missing) indexes the last entry
            self.lookup.append(arr)

    def raw_columns(self, batch, n):
        """Per column: a float64 array (continuous) or an object array (categorical)."""
        out = []
        num = np.empty(max(n, 1), dtype=np.float64)
        codes = np.empty(max(n, 1), dtype=np.int32)
        pnum = num.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        pcodes = codes.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        buf = ctypes.create_string_buffer(512)
        for c, spec in enumerate(self.specs):
            if spec.kind == "text":
                col = np.empty(n, dtype=object)
                for r in range(n):
                    if self.lib.genesis_batch_text(batch, r, c, buf, 512) is not None:
                        col[r] = buf.value.decode("utf-8")
                out.append(col)
            elif spec.kind == "categorical":
                self.lib.genesis_batch_column(batch, c, None, pcodes)
                out.append(self.lookup[c][codes[:n]])
            else:
                self.lib.genesis_batch_column(batch, c, pnum, None)
                out.append(num[:n].copy())
        return out

    def frame(self, columns):
        """A DataFrame in the training dtypes from concatenated raw columns."""
        data = {}
        for spec, col in zip(self.specs, columns):
            data[spec.name] = _restore(spec, col)
        return pd.DataFrame(data)


def _whole_floats(s):
    """True when s is a float column whose values (at least one) are all whole numbers."""
    if not pd.api.types.is_float_dtype(s.dtype):
        return False
    v = s.dropna().to_numpy(dtype=np.float64)
    return v.size > 0 and bool(np.all(np.isfinite(v) & (v == np.round(v))))


def _restore(spec, col):
    dt = spec.dtype
    if spec.kind == "datetime":
        s = pd.to_datetime(pd.Series(col * 1e9).round(), unit="ns")
        tz = getattr(dt, "tz", None)
        if tz is not None:
            s = s.dt.tz_localize("UTC").dt.tz_convert(tz)
        return s.astype(dt)  # the column's own unit (ns, us, ...)
    if spec.kind == "continuous":
        s = pd.Series(col)
        if spec.integer and not s.isna().any() and not isinstance(dt, pd.api.extensions.ExtensionDtype):
            return s.round().astype(dt)
        if spec.integer:
            if isinstance(dt, pd.api.extensions.ExtensionDtype):
                return s.round().astype(dt)
            return s.round().astype(pd.Int64Dtype())
        return s.astype(dt)
    if spec.kind == "text" or dt is None:
        return pd.Series(list(col))  # the pandas version's default text dtype
    # categorical
    if isinstance(dt, pd.CategoricalDtype):
        return pd.Series(pd.Categorical(col, categories=dt.categories, ordered=dt.ordered))
    s = pd.Series(col, dtype=object)
    if _is_bool(dt):
        if isinstance(dt, pd.api.extensions.ExtensionDtype) or s.isna().any():
            return s.astype("boolean")
        return s.astype(bool)
    if pd.api.types.is_numeric_dtype(dt):
        if s.isna().any() and pd.api.types.is_integer_dtype(dt) and \
                not isinstance(dt, pd.api.extensions.ExtensionDtype):
            return s.astype(pd.Int64Dtype())
        return s.astype(dt)
    if pd.api.types.is_string_dtype(dt) and not pd.api.types.is_object_dtype(dt):
        return s.astype(dt)
    return s
