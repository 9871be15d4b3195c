"""pip's entry to the CMake build: `pip install --no-build-isolation .` (see pyproject.toml).

The extension apsp._core is the CMake target apsp_python (python/CMakeLists.txt), configured and
built in setuptools' build_temp with this Python; the package's .py files come from python/apsp.
The shared libraries beside it in the build tree go into the package too: libapsp_core.so (linked
by the extension) and the backend plugins libapsp_cuda.so / libapsp_mpi.so (loaded on first use,
so the package imports and solves on the CPU where libcudart, libnccl or libmpi are missing).
The command-line tool (CMake target apsp) is built in the same call and goes into the package
as apsp/bin/apsp; the console script `apsp` (apsp._cli) runs it.
pip shows a build backend's output only with -v; the build's progress ("[n/N]" steps) also goes
to the terminal (/dev/tty, where there is one) a line per tenth of the steps.
Where no NVIDIA GPU is present (no /dev/nvidia* device files, no /proc/driver/nvidia) the CUDA
and NCCL parts are left out unless APSP_CMAKE_ARGS names APSP_WITH_CUDA: nvcc's compiles were
most of the time of a pip install on a CPU machine with the CUDA toolkit, for a plugin that
cannot run there.
MPI (Debian: libopenmpi-dev or mpi-default-dev) is found by the configure step as in any build:
the MPI backend's plugin libapsp_mpi.so then comes with the package; a line on the terminal says
whether it does (and how to get it where MPI was not found).
Environment: APSP_CMAKE_ARGS (extra configure arguments, e.g. "-DAPSP_WITH_MPI=ON"),
APSP_CMAKE_BUILD_DIR (reuse a build tree), CMAKE_BUILD_PARALLEL_LEVEL, APSP_PIP_CLI=0 (no
command-line tool: the extension alone).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    m = re.search(r"project\(apsp VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    return m.group(1) if m else "0"


def run_build(cmd):
    """Runs the CMake build with its output on stdout (pip -v shows it) and its progress on the
    terminal: pip captures a build backend's output and shows only a spinner for minutes."""
    try:
        tty = open("/dev/tty", "w")  # noqa: SIM115 (closed below)
    except OSError:
        tty = None
    t0, shown = time.monotonic(), -1
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    try:
        for line in proc.stdout:
            sys.stdout.write(line)
            m = re.match(r"\[(\d+)/(\d+)\]", line)
            if tty and m and int(m[1]) > 0 and 10 * int(m[1]) // int(m[2]) > shown:
                shown = 10 * int(m[1]) // int(m[2])
                tty.write(f"apsp: building the C++ library: {m[1]}/{m[2]} steps, "
                          f"{time.monotonic() - t0:.0f} s\n")
                tty.flush()
    finally:
        rc = proc.wait()
        if tty:
            tty.close()
    if rc != 0:
        raise subprocess.CalledProcessError(rc, cmd)


def gpu_present():
    """An NVIDIA GPU's device files (as the CLI's own check, gpu_solve_possible), or its kernel
    driver (/proc/driver/nvidia: also seen inside a container built without --gpus)."""
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/version"))


def configure(cmd):
    """Runs CMake's configure step with its output on stdout (pip -v shows it; pip shows it on a
    failure too) and returns that output."""
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    sys.stdout.write(out.stdout)
    sys.stdout.flush()
    if out.returncode != 0:
        raise subprocess.CalledProcessError(out.returncode, cmd)
    return out.stdout


def tell_mpi(configure_output, extra):
    """Says whether the MPI backend's plugin is built (the configure summary's "MPI backend"
    line) and, where it is not, why and how to get it. Returns whether it is."""
    m = re.search(r"apsp: MPI backend \.+ (\S+)", configure_output)
    if m and m[1] == "ON":
        tell("apsp: MPI found: building the MPI backend (libapsp_mpi.so; "
             "APSP_CMAKE_ARGS=-DAPSP_WITH_MPI=OFF leaves it out)")
        return True
    if any("APSP_WITH_MPI" in a for a in extra):
        tell("apsp: the MPI backend is left out (APSP_WITH_MPI in APSP_CMAKE_ARGS)")
    else:
        tell("apsp: no MPI found: building without the MPI backend (Debian: apt-get install "
             "libopenmpi-dev, then install again)")
    return False


def tell(msg):
    """A line for the user: on stdout (pip -v) and on the terminal, which pip does not capture."""
    print(msg, flush=True)
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(msg + "\n")
    except OSError:
        pass


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
        extra = shlex.split(os.environ.get("APSP_CMAKE_ARGS", ""))
        if not gpu_present() and not any("APSP_WITH_CUDA" in a for a in extra):
            tell("apsp: no NVIDIA GPU or driver here: building without the CUDA backend "
                 "(APSP_CMAKE_ARGS=-DAPSP_WITH_CUDA=ON builds it anyway)")
            args += ["-DAPSP_WITH_CUDA=OFF", "-DAPSP_WITH_NCCL=OFF"]
        args += extra
        mpi = tell_mpi(configure(["cmake", "-S", str(ROOT), "-B", str(build), *args]), extra)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        cli = os.environ.get("APSP_PIP_CLI", "1") != "0"
        targets = ["apsp_python", "apsp"] if cli else ["apsp_python"]
        run_build(["cmake", "--build", str(build), "--target", *targets, "-j", jobs])
        built = sorted((build / "python" / "apsp").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"the CMake build left no apsp/_core*.so in {build / 'python' / 'apsp'}")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], dest)
        for lib in sorted((build / "python" / "apsp").glob("libapsp_*.so")):  # core + plugins
            if lib.name == "libapsp_mpi.so" and not mpi:
                continue  # left from an earlier configure of a reused build tree
            shutil.copyfile(lib, dest.parent / lib.name)
        shutil.rmtree(dest.parent / "bin", ignore_errors=True)  # none from an earlier build
        if cli:
            (dest.parent / "bin").mkdir()
            shutil.copy2(build / "apsp", dest.parent / "bin" / "apsp")


setup(version=version(), ext_modules=[Extension("apsp._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
