"""Install-time step of the genesis package: decide where libgenesis comes from.

In order (docs/python.md, "Install"):
1. GENESIS_NO_BUNDLE=1: bundle nothing; at run time the package finds the library through
   GENESIS_LIBRARY, pkg-config or the dynamic linker.
2. GENESIS_BUILD_DIR, else the repository's build/ folder (what `make build` makes): copy
   its libgenesis.so (and libgenesis-cuda.so, the CUDA module, when it was built) into the
   package.
3. pkg-config finds an installed genesis: bundle nothing.
4. Otherwise build the library with CMake from this repository (tests and benchmarks off)
   in a temporary folder and bundle it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LIBS = ("libgenesis.so", "libgenesis-cuda.so")


def _say(msg):
    print(f"genesis setup: {msg}", file=sys.stderr)


def _is_repo(path):
    return os.path.exists(os.path.join(path, "CMakeLists.txt")) and \
        os.path.exists(os.path.join(path, "include", "genesis", "genesis.h"))


def _pkg_config_has_genesis():
    exe = shutil.which("pkg-config")
    if not exe:
        return False
    return subprocess.run([exe, "--exists", "genesis"]).returncode == 0


def _cmake_build():
    if not shutil.which("cmake"):
        raise RuntimeError("no libgenesis to bundle: build the C library first (make build), "
                           "install it (make install), or install cmake so that pip can "
                           "build it")
    out = tempfile.mkdtemp(prefix="genesis-build-")
    _say(f"building libgenesis with CMake in {out}")
    subprocess.check_call(["cmake", "-S", REPO, "-B", out, "-DCMAKE_BUILD_TYPE=Release",
                           "-DGENESIS_BUILD_TESTS=OFF", "-DGENESIS_BUILD_BENCH=OFF"])
    jobs = os.environ.get("GENESIS_BUILD_JOBS", "2")
    subprocess.check_call(["cmake", "--build", out, "-j", jobs, "--target", "genesis"])
    if os.path.isdir(os.path.join(out, "CMakeFiles", "genesis_cuda.dir")):  # a CUDA build
        subprocess.check_call(["cmake", "--build", out, "-j", jobs, "--target", "genesis_cuda"])
    return out


def _library_dir():
    """The folder whose libgenesis.so is bundled, or None to bundle nothing."""
    if os.environ.get("GENESIS_NO_BUNDLE") == "1":
        _say("GENESIS_NO_BUNDLE=1: not bundling libgenesis")
        return None
    env = os.environ.get("GENESIS_BUILD_DIR")
    if env:
        if not os.path.exists(os.path.join(env, "libgenesis.so")):
            raise RuntimeError(f"GENESIS_BUILD_DIR={env} has no libgenesis.so")
        return env
    if _is_repo(REPO) and os.path.exists(os.path.join(REPO, "build", "libgenesis.so")):
        return os.path.join(REPO, "build")
    if _pkg_config_has_genesis():
        _say("pkg-config finds an installed libgenesis: not bundling")
        return None
    if _is_repo(REPO):
        return _cmake_build()
    raise RuntimeError("no libgenesis found: set GENESIS_BUILD_DIR to a build folder, or "
                       "install the library so that pkg-config finds genesis.pc")


class BuildPy(build_py):
    def run(self):
        super().run()
        src = _library_dir()
        dest = os.path.join(self.build_lib, "genesis")
        os.makedirs(dest, exist_ok=True)
        if src is None:
            return
        for name in LIBS:
            path = os.path.join(src, name)
            if os.path.exists(path):
                _say(f"bundling {os.path.realpath(path)}")
                shutil.copyfile(os.path.realpath(path), os.path.join(dest, name))
        if os.path.basename(src).startswith("genesis-build-"):  # our own temporary build
            shutil.rmtree(src, ignore_errors=True)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: mark it as platform-specific."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
