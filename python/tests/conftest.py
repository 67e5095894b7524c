"""Shared fixtures: the repository's data/adult_sample.csv as a DataFrame, a tiny model
configuration (one epoch: the Python suite runs in seconds), and the device the
examples of docs/python.md use ("cuda" when a GPU is found, else "cpu")."""

import os

import pandas as pd
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ADULT = os.path.join(HERE, "..", "..", "data", "adult_sample.csv")

# one epoch, small networks: enough to exercise every call, fast on one core
TINY = {"epochs": 1, "batch_size": 200, "embedding_dim": 16, "generator_dim": 32,
        "discriminator_dim": 32}


@pytest.fixture(scope="session")
def adult():
    if not os.path.exists(ADULT):
        pytest.skip(f"{ADULT} not found (run the tests from a clone of the repository)")
    return pd.read_csv(ADULT)


@pytest.fixture(scope="session")
def device():
    from genesis.gpu import detect_gpus
    return "cuda" if detect_gpus() else "cpu"


@pytest.fixture()
def tiny():
    return dict(TINY)
