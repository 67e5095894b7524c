"""DataFrames in and out: every supported dtype, missing values and categorical columns
round-trip (same columns, same dtypes, values from the training domain), and the typing
overrides."""

import numpy as np
import pandas as pd
import pytest

from genesis import GenesisError, SyntheticGenerator

N = 400


def mixed_frame(n=N):
    rng = np.random.default_rng(7)
    colors = np.array(["red", "green", "blue", "violet"], dtype=object)
    text = colors[rng.integers(0, 4, n)]
    text[rng.random(n) < 0.1] = None
    cat = pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi",
                                                                          "unused"])
    cat[rng.random(n) < 0.1] = np.nan
    flt = rng.normal(50, 10, n).round(3)
    flt[rng.random(n) < 0.15] = np.nan
    nullable = pd.array(rng.integers(100, 10_000, n), dtype="Int64")
    nullable[rng.random(n) < 0.1] = pd.NA
    when = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 1000, n), unit="D")
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),                       # int64, continuous
        "income": flt,                                         # float64 with NaN
        "color": text,                                         # object with None
        "size": cat,                                           # category with NaN + unused
        "member": rng.random(n) < 0.3,                         # bool
        "visits": nullable,                                    # Int64 with NA
        "stars": rng.integers(1, 6, n),                        # int64, 5 values: categorical
        "flag": pd.array(rng.random(n) < 0.5, dtype="boolean"),  # nullable boolean
        "joined": when,                                        # datetime64[ns]
        "ratio": rng.random(n).astype("float32"),              # float32
    })


@pytest.mark.parametrize("method", ["ctgan", "tvae"])
def test_mixed_types_round_trip(method, tiny):
    df = mixed_frame()
    if method == "tvae":
        del tiny["discriminator_dim"]
    tiny["epochs"] = 3
    gen = SyntheticGenerator(method, config=tiny, device="cpu", seed=1).fit(df)
    out = gen.generate(2000)
    assert list(out.columns) == list(df.columns)
    for col in df.columns:
        assert out[col].dtype == df[col].dtype, (col, out[col].dtype, df[col].dtype)
    # values come from the training domain
    assert set(out["color"].dropna()) <= {"red", "green", "blue", "violet"}
    assert list(out["size"].cat.categories) == ["lo", "mid", "hi", "unused"]
    assert set(out["size"].dropna()) <= {"lo", "mid", "hi"}
    assert set(out["stars"]) <= set(range(1, 6))
    assert set(out["member"]) <= {True, False}
    assert out["age"].between(18, 89).all()
    assert out["joined"].between(df["joined"].min(), df["joined"].max()).all()
    # a column without missing values never gets one; the ones with them can
    for col in ("age", "member", "stars", "joined", "ratio"):
        assert not out[col].isna().any(), col
    assert out[["income", "color", "size", "visits"]].isna().any().any()


def test_whole_numbers_in_float_columns(tiny):
    """pandas reads an integer column with a missing value as float64 (1.0, NaN, 3.0): the
    output is Int64 (whole numbers, <NA>), as the CLI writes such a column; a float column of
    whole numbers without missing values keeps float64 and gets whole numbers."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 500, N).astype("float64")
    counts[rng.random(N) < 0.1] = np.nan
    df = pd.DataFrame({"count": counts, "level": rng.integers(10, 90, N).astype("float64"),
                       "x": rng.normal(0, 1, N)})
    tiny["epochs"] = 2
    out = SyntheticGenerator("ctgan", config=tiny, device="cpu", seed=1).fit(df).generate(500)
    assert out["count"].dtype == pd.Int64Dtype(), out["count"].dtype
    assert out["count"].isna().any() and out["count"].notna().any()
    assert out["level"].dtype == np.float64
    assert (out["level"] == out["level"].round()).all()
    assert out["x"].dtype == np.float64 and (out["x"] != out["x"].round()).any()


def test_missing_values_are_generated_at_their_rate(tiny):
    rng = np.random.default_rng(3)
    n = 1000
    x = rng.normal(0, 1, n)
    x[: n // 2] = np.nan  # half missing
    df = pd.DataFrame({"x": x, "k": rng.choice(["a", "b"], n)})
    del tiny["discriminator_dim"]
    tiny["epochs"] = 20
    out = SyntheticGenerator("tvae", config=tiny, device="cpu").fit(df).generate(4000)
    assert 0.3 < out["x"].isna().mean() < 0.7


def test_typing_overrides(tiny):
    df = mixed_frame()
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu")
    gen.fit(df, discrete_columns=["age"], continuous_columns=["stars"])
    kinds = {s.name: s.kind for s in gen._specs}
    assert kinds["age"] == "categorical" and kinds["stars"] == "continuous"
    out = gen.generate(300)
    assert out["age"].dtype == df["age"].dtype
    assert set(out["age"]) <= set(df["age"])
    with pytest.raises(ValueError, match="nope"):
        SyntheticGenerator("ctgan", config=tiny).fit(df, discrete_columns=["nope"])
    with pytest.raises(ValueError, match="both"):
        SyntheticGenerator("ctgan", config=tiny).fit(df, discrete_columns=["age"],
                                                     continuous_columns=["age"])
    with pytest.raises(TypeError, match="text"):
        SyntheticGenerator("ctgan", config=tiny).fit(df, continuous_columns=["color"])


def test_unsupported_input():
    gen = SyntheticGenerator("ctgan")
    with pytest.raises(TypeError, match="DataFrame"):
        gen.fit([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="timedelta"):
        gen.fit(pd.DataFrame({"d": pd.to_timedelta([1, 2, 3], unit="s")}))
    with pytest.raises(TypeError, match="not a string"):
        gen.fit(pd.DataFrame({0: [1.0, 2.0]}))


def test_conditions(adult, tiny):
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu").fit(adult)
    out = gen.generate(300, conditions={"sex": " Female"})
    assert (out["sex"] == " Female").all()
    both = gen.generate(300, conditions={"sex": "Female", "income": [" >50K", " <=50K"]})
    assert (both["sex"] == " Female").all()
    assert set(both["income"]) == {" >50K", " <=50K"}
    # conditions do not stay on the model
    free = gen.generate(2000)
    assert set(free["sex"]) == {" Female", " Male"}


def test_conditions_keep_python_values(tiny):
    df = mixed_frame()
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu").fit(df)
    out = gen.generate(200, conditions={"member": True, "stars": 4})
    assert out["member"].all()
    assert (out["stars"] == 4).all()


def test_timegan_sequences():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": np.repeat(np.arange(10), 30), "t": np.tile(np.arange(30), 10),
                       "a": rng.normal(size=300), "b": rng.normal(size=300).cumsum()})
    gen = SyntheticGenerator("timegan", device="cpu",
                             config={"iterations": 5, "seq_len": 6, "hidden_dim": 8,
                                     "num_layers": 2, "batch_size": 8})
    gen.fit(df, entity="id", time="t")
    out = gen.generate(4)  # 4 sequences of seq_len rows
    assert len(out) == 4 * 6
    assert {"a", "b"} <= set(out.columns)
    with pytest.raises(NotImplementedError, match="TimeGAN"):
        next(gen.generate_batches(4, batch_size=2))
    with pytest.raises(GenesisError) as e:
        SyntheticGenerator("ctgan").fit(df, entity="id")
    assert e.value.status_name == "GENESIS_ERR_UNSUPPORTED"


def test_timegan_calendar_columns():
    # hourly rows with the hour as a column: written from real windows, so it advances by one
    n = 240
    df = pd.DataFrame({"step": np.arange(n), "hour": np.arange(n) % 24,
                       "v": np.sin(np.arange(n) / 5.0)})
    cfg = {"iterations": 5, "seq_len": 8, "hidden_dim": 6, "num_layers": 2, "batch_size": 8}
    gen = SyntheticGenerator("timegan", device="cpu", config=cfg)
    gen.fit(df, time="step")
    out = gen.generate(5)
    steps = out.groupby("sequence")["hour"].apply(lambda h: ((h.diff().dropna() % 24) == 1).all())
    assert steps.all()
    none = SyntheticGenerator("timegan", device="cpu", config=cfg)
    none.fit(df, time="step", calendar="none")  # the hour modelled as a feature
    assert len(none.generate(2)) == 16
    with pytest.raises(GenesisError) as e:
        SyntheticGenerator("timegan", device="cpu", config=cfg).fit(df, time="step", calendar=["minute"])
    assert "minute" in str(e.value)


def test_default_method_is_ddpm_and_epochs_are_passes(adult):
    """Without a method the generator is the library's default, DDPM, which trains by
    iterations: config epochs=N is N passes over the rows, ceil(N x rows / batch) iterations
    at fit, the same model as those iterations given directly."""
    from genesis._model import default_method
    assert default_method() == "ddpm"
    small = {"generator_dim": 32, "embedding_dim": 16, "diffusion_steps": 40, "batch_size": 300}
    gen = SyntheticGenerator(config={"epochs": 2, **small}, device="cpu", seed=2)
    assert gen.method == "ddpm"
    df = adult.head(1000)
    gen.fit(df)
    assert gen.get_param("iterations") == 7  # ceil(2 * 1000 / 300)
    same = SyntheticGenerator("ddpm", config={"iterations": 7, **small}, device="cpu",
                              seed=2).fit(df)
    pd.testing.assert_frame_equal(gen.generate(50), same.generate(50))
    with pytest.raises(ValueError, match="epochs or iterations, not both"):
        SyntheticGenerator(config={"epochs": 2, "iterations": 10})
    # a method trained by epochs keeps them as they are
    assert SyntheticGenerator("ctgan", config={"epochs": 2}).get_param("epochs") == 2
