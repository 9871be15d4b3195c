"""`pip install --no-build-isolation .` into a fresh venv (--system-site-packages), offline
(issue 16, item 3). It builds the extension from scratch (minutes on two cores), so it runs only
when APSP_TEST_PIP_INSTALL=1: ctest's python_pip_install test sets it."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.environ.get("APSP_TEST_PIP_INSTALL") != "1",
                                reason="slow (a whole build): set APSP_TEST_PIP_INSTALL=1 (ctest does)")


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{cmd}: exit {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def test_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    py = str(venv / "bin" / "python")
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               APSP_CMAKE_BUILD_DIR=str(tmp_path / "cmake-build"))
    env.pop("PYTHONPATH", None)  # the build tree's apsp must not stand in for the installed one
    cmd = [py, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps", str(ROOT)]
    pip = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
    log = pip.stdout + pip.stderr  # pip -v logs the build's output on stderr
    assert pip.returncode == 0, f"{cmd}: exit {pip.returncode}\n{log[-6000:]}"
    # MPI where it is installed (Debian's libopenmpi-dev brings mpicxx): the build says whether
    # the MPI backend's plugin comes with the package, and it does where MPI is found.
    mpi_here = shutil.which("mpicxx") is not None and "APSP_WITH_MPI" not in os.environ.get("APSP_CMAKE_ARGS", "")
    assert ("apsp: MPI found: building the MPI backend" in log) == mpi_here, log[-3000:]
    assert "Name: apsp" in run([py, "-m", "pip", "show", "apsp"], env=env, cwd=tmp_path)
    code = textwrap.dedent("""
        import numpy as np, apsp
        assert apsp.__file__.startswith(%r), apsp.__file__
        assert apsp.__version__ not in ("", "unknown")
        d = apsp.shortest_path(np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0]]))
        assert d[0, 2] == 7 and d[2, 1] == 4
        print(apsp.__version__)
    """ % str(venv))
    assert run([py, "-c", code], env=env, cwd=tmp_path).strip()
    # The installed package: libapsp_core.so and the built backends' plugins beside the extension,
    # and nothing of CUDA, NCCL or MPI among the NEEDED entries of the extension and the core.
    package = pathlib.Path(run([py, "-c", "import apsp, os; print(os.path.dirname(apsp.__file__))"], env=env,
                               cwd=tmp_path).strip())
    from test_plugins import GPU_OR_MPI, PLUGINS, needed
    extension = sorted(package.glob("_core*.so"))[-1]
    assert "libapsp_core.so" in needed(extension)
    for path in (extension, package / "libapsp_core.so"):
        assert not [lib for lib in needed(path) if GPU_OR_MPI.search(lib)], (path, needed(path))
    # The command-line tool comes with the package: `apsp` on the venv's PATH runs it.
    assert run([str(venv / "bin" / "apsp"), "--version"], env=env, cwd=tmp_path).startswith("apsp ")
    listing = run([py, "-c", "import apsp, json; print(json.dumps(apsp.backends()))"], env=env, cwd=tmp_path)
    assert any(b["name"] == "mpi" and b["built"] for b in json.loads(listing)) == mpi_here, listing
    for b in json.loads(listing):
        plugin = next((p for p, names in PLUGINS.items() if b["name"] in names), None)
        if plugin and b["built"]:
            assert (package / plugin).exists(), f"{b['name']} is built but {plugin} was not installed in {package}"
