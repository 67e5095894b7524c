"""The examples of docs/python.md (GPU use, batching, memory, multi-GPU, fallback), each run
and checked on what it returns; device "cpu" where an example says "cuda" and no GPU exists."""

import numpy as np
import pandas as pd
import pytest

from genesis import GenesisError, SyntheticGenerator
from genesis.gpu import (BatchedGenerator, GPUInfo, MultiGPUGenerator,
                         check_cuda_installation, detect_gpus, estimate_memory,
                         optimize_batch_size)


def test_detect_gpus():
    gpus = detect_gpus()
    assert isinstance(gpus, list)
    for i, gpu in enumerate(gpus):
        assert isinstance(gpu, GPUInfo)
        assert gpu.index == i
        assert gpu.name
        assert gpu.memory_total > 0
        assert 0 <= gpu.memory_available <= gpu.memory_total
        major, minor = gpu.cuda_capability.split(".")
        assert int(major) >= 3 and int(minor) >= 0
    assert bool(gpus) == (len(gpus) > 0)


def test_check_cuda_installation(capsys):
    text = check_cuda_installation()
    assert "libgenesis 0.1.0" in text
    assert text.strip() in capsys.readouterr().out


def test_basic_generation(adult, device, tiny):
    generator = SyntheticGenerator(method="ctgan", config={"device": device, **tiny})
    generator.fit(adult)
    assert generator.device == ("cpu" if device == "cpu" else generator.device)
    assert generator.device.startswith(device)
    synthetic = generator.generate(3000)
    assert len(synthetic) == 3000
    assert list(synthetic.columns) == list(adult.columns)
    assert list(synthetic.dtypes) == list(adult.dtypes)
    for col in ("workclass", "sex", "income"):
        assert set(synthetic[col]) <= set(adult[col])
    assert synthetic["age"].between(adult["age"].min(), adult["age"].max()).all()


def test_batched_generator(adult, device, tiny):
    generator = BatchedGenerator(method="ctgan", device=device, batch_size=1000,
                                 memory_fraction=0.8, config=tiny)
    generator.fit(adult)
    synthetic = generator.generate(4500)
    assert len(synthetic) == 4500
    assert list(synthetic.dtypes) == list(adult.dtypes)


def test_batch_size_optimization(adult):
    optimal = optimize_batch_size(model_type="ctgan", n_columns=len(adult.columns),
                                  gpu_index=0)
    assert isinstance(optimal, int) and optimal > 0
    # a limit just above the fixed part (the model, and on a GPU the CUDA runtime's own share,
    # over 500 MiB on an H200): 300 MiB over the estimate of one default sampling batch
    fixed = estimate_memory(method="ctgan", n_columns=len(adult.columns), workload="sample")
    small = optimize_batch_size(model_type="ctgan", n_columns=len(adult.columns),
                                gpu_index=0, memory_limit=f"{int(fixed) + 300}MiB")
    assert 0 < small <= optimal
    generator = BatchedGenerator(method="ctgan", batch_size=optimal)
    assert generator.batch_size == optimal


def test_estimate_memory():
    big = estimate_memory(method="ctgan", n_rows=1_000_000, n_columns=50)
    small = estimate_memory(method="ctgan", n_rows=1_000, n_columns=50)
    assert big > small > 0
    terms = estimate_memory(method="ctgan", n_rows=1_000_000, n_columns=50, details=True)
    # 50 continuous columns of 1M rows: 8 bytes each in the column store
    assert terms["table"] == 8 * 1_000_000 * 50
    total = terms["device_total"] if terms["on_device"] else terms["host_total"]
    assert big == pytest.approx(total / 2**20)
    tvae = estimate_memory(method="tvae", n_rows=1000, n_columns=5, n_categorical=5,
                           n_levels=7, details=True)
    assert tvae["data_dim"] == 5 * 7


def test_memory_constraints(adult, tiny):
    generator = BatchedGenerator(method="ctgan", memory_limit="8GB", memory_fraction=0.7,
                                 auto_batch=True, config=tiny)
    generator.fit(adult)
    budget, available = generator.memory_budget()
    assert 0 < budget <= 8 * 2**30
    assert budget <= 0.7 * available + 1
    assert len(generator.generate(100)) == 100


def test_memory_efficient_training_names_what_exists(tiny):
    ckpt = BatchedGenerator(method="ctgan", device="cpu", gradient_checkpointing=True,
                            config={"epochs": 3, "batch_size": 500, "discriminator_steps": 1})
    assert ckpt.get_param("gradient_checkpointing") == 1
    plain = BatchedGenerator(method="ctgan", device="cpu",
                             config={"epochs": 3, "batch_size": 500,
                                     "gradient_checkpointing": False})
    assert plain.get_param("gradient_checkpointing") == 0
    # the saving is in the estimate's activation term; the rest is unchanged
    for method in ("ctgan", "tvae", "ddpm"):
        on, off = (estimate_memory(method=method, n_rows=20_000, n_columns=12, n_categorical=4,
                                   details=True, device="cpu",
                                   config={"batch_size": 2000, "gradient_checkpointing": ck})
                   for ck in (True, False))
        assert on["activations"] < off["activations"], method
        assert on["optimizer"] == off["optimizer"] and on["parameters"] == off["parameters"]
    generator = BatchedGenerator(method="ctgan", device="cpu",
                                 config={"epochs": 3, "batch_size": 500,
                                         "discriminator_steps": 1})
    assert generator.get_param("discriminator-steps") == 1
    assert generator.get_param("batch_size") == 500


def test_mixed_precision_sets_precision():
    g = BatchedGenerator(method="ctgan", device="cpu", mixed_precision=True,
                         config={"epochs": 300, "batch_size": 1000})
    assert g.get_param("precision") == 2  # bf16
    g = BatchedGenerator(method="tvae", device="cpu", mixed_precision="fp16")
    assert g.get_param("precision") == 3
    with pytest.raises(ValueError, match="bf16"):
        BatchedGenerator(method="tvae", device="cpu", mixed_precision="fp8")


def test_slow_generation_options_not_implemented():
    with pytest.raises(NotImplementedError, match="threads"):
        BatchedGenerator(method="ctgan", num_workers=4, pin_memory=True)
    with pytest.raises(NotImplementedError, match="pinned"):
        BatchedGenerator(method="ctgan", pin_memory=True)


def test_progress_monitoring(adult, device, tiny):
    generator = BatchedGenerator(method="ctgan", device=device, config=tiny)
    generator.fit(adult)
    sizes = []
    for batch in generator.generate_batches(12_345, batch_size=5000):
        sizes.append(len(batch))
        assert list(batch.columns) == list(adult.columns)
        assert list(batch.dtypes) == list(adult.dtypes)
        assert generator.gpu_memory_used >= 0
    assert sizes == [5000, 5000, 2345]
    if generator.device == "cpu":
        assert generator.gpu_memory_used == 0


def test_generate_batches_equal_generate(adult, tiny):
    """The rows do not depend on the batch size: batches concatenated == one generate."""
    del tiny["discriminator_dim"]  # a CTGAN setting
    a = SyntheticGenerator("tvae", config=tiny, device="cpu", seed=3).fit(adult)
    b = SyntheticGenerator("tvae", config=tiny, device="cpu", seed=3).fit(adult)
    whole = a.generate(1000)
    parts = pd.concat(list(b.generate_batches(1000, batch_size=300)), ignore_index=True)
    assert [len(x) for x in b.generate_batches(10, batch_size=3)] == [3, 3, 3, 1]
    pd.testing.assert_frame_equal(whole, parts)


def test_close_with_an_open_batch_iterator(adult, tiny):
    """A generator closed (or collected) while a generate_batches iterator is still open:
    the iterator's sampler is freed before the model, a later next() raises, nothing crashes."""
    import gc
    del tiny["discriminator_dim"]
    g = SyntheticGenerator("tvae", config=tiny, device="cpu", seed=1).fit(adult)
    it = g.generate_batches(200_000, batch_size=100)
    assert len(next(it)) == 100
    g.close()
    with pytest.raises(RuntimeError, match="closed"):  # once the rows already drawn are used
        for _ in it:
            pass
    del it
    g2 = SyntheticGenerator("tvae", config=tiny, device="cpu", seed=1).fit(adult)
    it2 = g2.generate_batches(1000, batch_size=100)
    next(it2)
    del g2  # the iterator keeps the generator alive; both go at the next collection
    gc.collect()
    assert len(next(it2)) == 100
    del it2
    gc.collect()


def test_fallback_handling(adult, tiny):
    if detect_gpus():
        device, batch_size = "cuda", 10000
    else:
        device, batch_size = "cpu", 1000
    generator = BatchedGenerator(method="ctgan", device=device, batch_size=batch_size,
                                 config=tiny)
    assert generator.batch_size == batch_size
    assert len(generator.fit(adult).generate(50)) == 50


def test_multi_gpu_strategies():
    with pytest.raises(NotImplementedError, match="data_parallel"):
        MultiGPUGenerator(method="ctgan", strategy="model_parallel",
                          devices=["cuda:0", "cuda:1", "cuda:2", "cuda:3"])
    with pytest.raises(ValueError, match="strategy"):
        MultiGPUGenerator(method="ctgan", strategy="sideways")


def test_multi_gpu_pipeline_generates_on_every_device(adult, tiny):
    """strategy="pipeline": a plain fit, then generation spread over the devices (here
    three CPU streams): the rows of one device, byte for byte."""
    three = MultiGPUGenerator(method="ctgan", strategy="pipeline",
                              devices=["cpu", "cpu", "cpu"], config=tiny, seed=4).fit(adult)
    one = SyntheticGenerator("ctgan", config=tiny, device="cpu", seed=4).fit(adult)
    a, b = three.generate(2_345, batch_size=500), one.generate(2_345, batch_size=1_000)
    pd.testing.assert_frame_equal(a, b)


def test_multi_gpu_data_parallel_on_cpu_ranks(adult, tiny):
    """Two thread ranks train data-parallel; the result generates like any model."""
    generator = MultiGPUGenerator(method="ctgan", strategy="data_parallel",
                                  devices=["cpu", "cpu"], config=tiny)
    generator.fit(adult)
    synthetic = generator.generate(500)
    assert len(synthetic) == 500
    assert list(synthetic.dtypes) == list(adult.dtypes)
    one = MultiGPUGenerator(method="ctgan", devices=["cpu"], config=tiny).fit(adult)
    assert len(one.generate(10)) == 10
    with pytest.raises(ValueError, match="target"):  # DDPM's class column: one device only
        MultiGPUGenerator(method="ctgan", strategy="data_parallel", devices=["cpu", "cpu"],
                          config=tiny).fit(adult, target="income")


def test_cuda_request_without_gpu_falls_back(adult, tiny):
    if detect_gpus():
        pytest.skip("a GPU is present")
    with pytest.warns(RuntimeWarning, match="CPU") if _cuda_build() else _nothing():
        try:
            generator = SyntheticGenerator("ctgan", config={"device": "cuda", **tiny})
        except GenesisError as e:  # a build without the CUDA backend refuses "cuda"
            assert e.status_name == "GENESIS_ERR_UNSUPPORTED"
            assert "CUDA" in str(e)
            return
    assert generator.device == "cpu"


def _cuda_build():
    from genesis.gpu import _detect
    return "no CUDA backend" not in _detect()[1]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False
