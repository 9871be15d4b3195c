"""pip's entry to the CMake build: `pip install --no-build-isolation .` (see pyproject.toml).

The extension apsp._core is the CMake target apsp_python (python/CMakeLists.txt), configured and
built in setuptools' build_temp with this Python; the package's .py files come from python/apsp.
The shared libraries beside it in the build tree go into the package too: libapsp_core.so (linked
by the extension) and the backend plugins libapsp_cuda.so / libapsp_mpi.so (loaded on first use,
so the package imports and solves on the CPU where libcudart, libnccl or libmpi are missing).
Environment: APSP_CMAKE_ARGS (extra configure arguments, e.g. "-DAPSP_WITH_MPI=ON"),
APSP_CMAKE_BUILD_DIR (reuse a build tree), CMAKE_BUILD_PARALLEL_LEVEL.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    m = re.search(r"project\(apsp VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    return m.group(1) if m else "0"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(os.environ.get("APSP_CMAKE_BUILD_DIR") or Path(self.build_temp).resolve() / "cmake")
        build.mkdir(parents=True, exist_ok=True)
        # No tests. CUDA, NCCL and MPI parts are built where found: they are plugins, loaded only
        # when their backends are used (a machine without those libraries still imports apsp).
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DAPSP_WITH_PYTHON=ON", "-DAPSP_BUILD_TESTS=OFF",
                f"-DPython_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"] if not (build / "CMakeCache.txt").exists() else []
        args += shlex.split(os.environ.get("APSP_CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *args], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "apsp_python", "-j", jobs], check=True)
        built = sorted((build / "python" / "apsp").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"the CMake build left no apsp/_core*.so in {build / 'python' / 'apsp'}")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], dest)
        for lib in sorted((build / "python" / "apsp").glob("libapsp_*.so")):  # core + plugins
            shutil.copyfile(lib, dest.parent / lib.name)


setup(version=version(), ext_modules=[Extension("apsp._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
