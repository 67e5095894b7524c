"""genesis — Python bindings of libgenesis, the synthetic tabular data engine.

    import pandas as pd
    from genesis import SyntheticGenerator
    df = pd.read_csv("data/adult_sample.csv")
    gen = SyntheticGenerator(config={"epochs": 10, "device": "cpu"}).fit(df)  # DDPM, the default
    synthetic = gen.generate(1000)

The package calls the C library through ctypes (docs/python.md: how the library is found,
the mapping onto the C API, and what is not implemented). GPU helpers: genesis.gpu.
"""

from ._errors import GenesisError
from ._lib import LibraryNotFound
from ._model import SyntheticGenerator, evaluate, parse_device

__all__ = ["SyntheticGenerator", "GenesisError", "LibraryNotFound", "evaluate", "load",
           "library_version", "library_path", "__version__"]

__version__ = "0.1.0"


def load(path, device=None, seed=0, threads=0):
    """A SyntheticGenerator read from a .gen model file."""
    return SyntheticGenerator.load(path, device=device, seed=seed, threads=threads)


def library_version():
    """The version string of the libgenesis that was loaded."""
    from . import _lib
    return _lib.load().genesis_version_string().decode()


def library_path():
    """The path of the libgenesis that was loaded."""
    from . import _lib
    return _lib.path()
