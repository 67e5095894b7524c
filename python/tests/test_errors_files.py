"""Errors arrive as exceptions carrying the library's message; save/load of .gen files;
evaluate's scores; progress bars."""

import builtins
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import genesis
from genesis import GenesisError, SyntheticGenerator, evaluate


def test_library_errors_carry_the_message(adult, tiny):
    with pytest.raises(GenesisError) as e:
        SyntheticGenerator("ctgan", config={"epochs": 0})
    assert e.value.status_name == "GENESIS_ERR_INVALID_ARG"
    assert "`epochs`" in str(e.value)
    with pytest.raises(GenesisError, match="not fitted") as e:
        SyntheticGenerator("ctgan").generate(10)
    assert e.value.status_name == "GENESIS_ERR_STATE"
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu").fit(adult)
    with pytest.raises(GenesisError, match="Martian") as e:
        gen.generate(10, conditions={"race": "Martian"})
    assert e.value.status == -1
    with pytest.raises(GenesisError, match="age") as e:
        gen.generate(10, conditions={"age": "30"})  # a continuous column
    with pytest.raises(GenesisError, match="already fitted") as e:
        gen.fit(adult)
    assert e.value.status_name == "GENESIS_ERR_STATE"
    del tiny["discriminator_dim"]
    tvae = SyntheticGenerator("tvae", config=tiny, device="cpu").fit(adult)
    with pytest.raises(GenesisError) as e:
        tvae.generate(10, conditions={"sex": " Male"})
    assert e.value.status_name == "GENESIS_ERR_UNSUPPORTED"
    with pytest.raises(GenesisError, match="nothing to learn"):
        SyntheticGenerator("ctgan").fit(adult.iloc[:0])


def test_python_side_errors():
    with pytest.raises(ValueError, match="unknown setting 'epochz'"):
        SyntheticGenerator("ctgan", config={"epochz": 3})
    with pytest.raises(ValueError, match="device"):
        SyntheticGenerator("ctgan", device="tpu")
    with pytest.raises(ValueError, match="method"):
        SyntheticGenerator("gpt")
    with pytest.raises(ValueError, match="memory_limit"):
        SyntheticGenerator("ctgan", memory_limit="lots")


def test_bad_model_files(tmp_path):
    junk = tmp_path / "junk.gen"
    junk.write_bytes(b"not a model at all" * 10)
    with pytest.raises(GenesisError) as e:
        genesis.load(junk)
    assert e.value.status_name == "GENESIS_ERR_MODEL_FORMAT"
    assert str(e.value)
    with pytest.raises(GenesisError) as e:
        genesis.load(tmp_path / "absent.gen")
    assert e.value.status_name == "GENESIS_ERR_IO"
    assert "absent.gen" in str(e.value)


def test_save_load(adult, tiny, tmp_path):
    path = tmp_path / "adult.gen"
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu", seed=5).fit(adult)
    first = gen.generate(500)
    gen.save(path)
    assert path.stat().st_size > 1000
    loaded = genesis.load(path, device="cpu", seed=5)
    assert loaded.method == "ctgan" and loaded.fitted
    assert loaded.columns == list(adult.columns)
    again = loaded.generate(500)  # the first call after load == the first after fit
    assert list(again.dtypes) == list(first.dtypes)  # int64 and text come back as such
    pd.testing.assert_frame_equal(first, again)
    assert (loaded.generate(100, conditions={"sex": "Female"})["sex"] == " Female").all()


def test_describe_fitted_and_loaded(adult, tiny, tmp_path):
    """describe(): genesis inspect --json's content, the same after save and load."""
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu", seed=5).fit(adult)
    d = gen.describe()
    assert d["method"] == "ctgan"
    assert d["settings"]["epochs"] == {"value": 1.0, "default": False}
    assert d["settings"]["pac"]["default"] is True
    assert d["settings"]["precision"]["value"] == "fp32"
    assert "clamp-range" in d["sampling_settings"]
    cols = {c["name"]: c for c in d["columns"]}
    assert list(cols) == list(adult.columns)
    age = cols["age"]
    assert age["type"] == "continuous" and age["integer"] and len(age["modes"]) >= 1
    assert abs(sum(m["weight"] for m in age["modes"]) - 1) < 0.5
    assert 0.0 in cols["capital-gain"]["point_masses"]
    assert sorted(cols["sex"]["levels"]) == [" Female", " Male"]
    gen.save(tmp_path / "m.gen")
    assert genesis.load(tmp_path / "m.gen").describe() == d
    with pytest.raises(GenesisError):
        SyntheticGenerator("ctgan").describe()


def test_privacy_record(adult, tmp_path):
    """privacy(): None without epsilon; with it the accountant's epsilon (at most the target),
    delta = 1 / rows, DP-SGD's settings, kept by save and load (docs/privacy.md)."""
    cfg = {"epochs": 2, "batch_size": 500}
    plain = SyntheticGenerator("tvae", config=cfg, device="cpu", seed=3).fit(adult)
    assert plain.privacy() is None and plain.describe()["privacy"] is None
    gen = SyntheticGenerator("tvae", config=dict(cfg, epsilon=8), device="cpu", seed=3).fit(adult)
    p = gen.privacy()
    assert 7.9 < p["epsilon"] <= 8 and p["target_epsilon"] == 8
    assert p["delta"] == pytest.approx(1 / len(adult))
    assert p["sampling_rate"] == pytest.approx(500 / len(adult)) and p["steps"] == 8
    assert p["noise_multiplier"] > 0 and p["max_grad_norm"] == 1
    assert "DP-SGD" in p["mechanism"]
    assert gen.describe()["privacy"] == p
    gen.save(tmp_path / "dp.gen")
    assert genesis.load(tmp_path / "dp.gen").privacy() == p
    assert len(gen.generate(200)) == 200
    # CTGAN: DP-SGD on its discriminator, pac 1, its own mechanism (docs/privacy.md, DP-CTGAN)
    ct = SyntheticGenerator("ctgan", config=dict(cfg, epsilon=8, delta=1e-5), device="cpu",
                            seed=3).fit(adult)
    pc = ct.privacy()
    assert 7.9 < pc["epsilon"] <= 8 and pc["delta"] == pytest.approx(1e-5)
    assert pc["steps"] == 8 and "discriminator" in pc["mechanism"]
    ct.save(tmp_path / "dpc.gen")
    assert genesis.load(tmp_path / "dpc.gen").privacy() == pc
    assert len(ct.generate(200)) == 200


def test_loaded_dtypes_without_pandas_schema(tiny, tmp_path):
    """A .gen file holds no pandas dtypes: integer columns with missing values come back as
    Int64, other numbers as float64, categories as text (object, or str on pandas 3)."""
    n = pd.array(np.arange(200), dtype="Int64")
    n[::7] = pd.NA
    df = pd.DataFrame({"n": n,
                       "x": np.linspace(0, 1, 200),
                       "c": pd.Categorical(["a", "b"] * 100)})
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu").fit(df)
    gen.save(tmp_path / "m.gen")
    out = genesis.load(tmp_path / "m.gen").generate(100)
    assert str(out["n"].dtype) == "Int64"
    assert out["x"].dtype == np.float64
    assert pd.api.types.is_string_dtype(out["c"]) and set(out["c"]) <= {"a", "b"}


def test_evaluate(adult, tiny):
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu").fit(adult)
    synthetic = gen.generate(len(adult))
    scores = evaluate(adult, synthetic)
    for key in ("quality", "column_shapes", "pair_trends", "validity", "exact_copy_rate",
                "new_row_synthesis", "dcr_baseline", "detection"):
        assert 0.0 <= scores[key] <= 1.0, key
    assert "dcr_overfitting" not in scores  # needs a holdout
    self_scores = evaluate(adult, adult)
    assert self_scores["column_shapes"] == pytest.approx(1.0)
    assert self_scores["exact_copy_rate"] == pytest.approx(1.0)
    assert self_scores["quality"] > scores["quality"]
    held = evaluate(adult.iloc[:1000], synthetic, holdout=adult.iloc[1000:],
                    target="income", details=True)
    assert 0.0 <= held["dcr_overfitting"] <= 1.0
    assert 0.0 <= held["tstr_logistic"] <= 1.0
    # the papers' scores reach Python too; the equal-size DCR share matches the JSON's
    for key in ("alpha_precision", "beta_recall", "dcr_share", "dcr_share_equal_size"):
        assert 0.0 <= held[key] <= 1.0, key
    share = held["details"]["fidelity"]["dcr_share"]
    assert share["equal_size"]["score"] == pytest.approx(held["dcr_share_equal_size"])
    odds = share["score"] / (1 - share["score"]) * share["holdout_rows"] / share["training_rows"]
    assert held["dcr_share_equal_size"] == pytest.approx(odds / (1 + odds))
    assert isinstance(held["details"], dict)
    with pytest.raises(GenesisError, match="lacks"):
        evaluate(adult, synthetic.drop(columns=["age"]))


def test_progress_with_and_without_tqdm(adult, tiny, capsys, monkeypatch):
    gen = SyntheticGenerator("ctgan", config=tiny, device="cpu")
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError("no tqdm here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    gen.fit(adult, progress=True)
    gen.generate(100, progress=True)
    err = capsys.readouterr().err
    assert "fit ctgan: 1/1 epoch" in err
    assert "generate ctgan: 100/100 rows" in err


def test_library_not_found_is_clear(tmp_path):
    env = dict(os.environ, GENESIS_LIBRARY=str(tmp_path / "nowhere.so"))
    code = "import genesis\ntry:\n    genesis.library_version()\nexcept OSError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(genesis.__file__))))
    assert "libgenesis.so was not found" in out.stdout
    assert "nowhere.so (GENESIS_LIBRARY)" in out.stdout
    assert "GENESIS_LIBRARY=<build>/libgenesis.so" in out.stdout


def test_ddpm_target_and_ema(adult):
    cfg = {"iterations": 20, "generator_dim": 32, "embedding_dim": 16, "diffusion_steps": 20,
           "ema_decay": 0.9}
    gen = SyntheticGenerator("ddpm", config=cfg, device="cpu", seed=3).fit(adult, target="income")
    syn = gen.generate(600)
    assert len(syn) == 600
    share = (syn["income"].astype(str).str.strip() == ">50K").mean()
    real = (adult["income"].astype(str).str.strip() == ">50K").mean()
    assert abs(share - real) < 0.06  # classes are drawn from their training shares
    with pytest.raises(GenesisError, match="'age' is continuous"):
        SyntheticGenerator("ddpm", config=cfg, device="cpu").fit(adult, target="age")
    with pytest.raises(GenesisError) as e:
        SyntheticGenerator("tvae", device="cpu").fit(adult, target="income")
    assert e.value.status_name == "GENESIS_ERR_UNSUPPORTED"


def test_ddpm_quantile_describe(adult, tmp_path):
    """DDPM's default quantile normalisation: describe() gives each continuous column's
    quantile map (and no modes), the same after save and load; quantile=0 gives modes."""
    cfg = {"iterations": 10, "generator_dim": 32, "embedding_dim": 16, "diffusion_steps": 20}
    gen = SyntheticGenerator("ddpm", config=cfg, device="cpu", seed=2).fit(adult)
    d = gen.describe()
    assert d["settings"]["quantile"] == {"value": 1.0, "default": True}
    fnlwgt = {c["name"]: c for c in d["columns"]}["fnlwgt"]
    q = fnlwgt["quantiles"]
    assert len(q) >= 10 and q == sorted(q) and q[0] < q[-1]
    assert fnlwgt["modes"] == []
    assert adult["fnlwgt"].min() <= q[0] and q[-1] <= adult["fnlwgt"].max()
    gen.save(tmp_path / "q.gen")
    assert genesis.load(tmp_path / "q.gen").describe() == d
    assert len(gen.generate(200)) == 200
    modes = SyntheticGenerator("ddpm", config=dict(cfg, quantile=0), device="cpu", seed=2).fit(adult)
    age = {c["name"]: c for c in modes.describe()["columns"]}["age"]
    assert "quantiles" not in age and len(age["modes"]) >= 1
