"""The package without CUDA, NCCL or MPI libraries (issue 16, item 3).

The extension links only libapsp_core.so (core, io, cpu backend); the cuda + multi-gpu backends
(libapsp_cuda.so) and the mpi backend (libapsp_mpi.so) are plugins beside it, loaded with dlopen
on first use. Here: no NEEDED entry of the extension or of libapsp_core.so names a CUDA, NCCL or
MPI library; and a copy of the package whose plugins are missing or do not load still imports and
solves on the CPU, lists those backends as built but unusable with dlopen's reason, and raises
BackendUnavailableError with that reason when one is asked for.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import apsp

PACKAGE = pathlib.Path(apsp.__file__).resolve().parent
GPU_OR_MPI = re.compile(r"libcuda|libcudart|libnccl|libmpi|libopen-|libpmix|libucx|libcublas")
PLUGINS = {"libapsp_cuda.so": ["cuda", "multi-gpu"], "libapsp_mpi.so": ["mpi"]}


def needed(path):
    readelf = shutil.which("readelf")
    if not readelf:
        pytest.skip("readelf (binutils) is not installed")
    out = subprocess.run([readelf, "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def extension():
    found = sorted(PACKAGE.glob("_core*.so"))
    assert found, f"no _core*.so in {PACKAGE}"
    return found[-1]


def test_core_needs_no_gpu_or_mpi_library():
    for path in (extension(), PACKAGE / "libapsp_core.so"):
        assert path.exists(), path
        libs = needed(path)
        assert libs, f"{path}: no NEEDED entries read"
        bad = [lib for lib in libs if GPU_OR_MPI.search(lib)]
        assert not bad, f"{path.name} needs {bad} (NEEDED: {libs})"
    assert "libapsp_core.so" in needed(extension())


def test_built_backends_have_their_plugin():
    info = {b["name"]: b for b in apsp.backends()}
    for plugin, names in PLUGINS.items():
        for name in names:
            if info[name]["built"]:
                assert (PACKAGE / plugin).exists(), f"backend {name} is built but {plugin} is not in {PACKAGE}"


CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import apsp
    assert apsp.__file__.startswith(sys.argv[1]), apsp.__file__
    d = apsp.shortest_path(np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0]]))
    assert d[0, 2] == 7 and d[2, 1] == 4, d
    r = apsp.solve(np.array([[0, 2.5], [1, 0]]), backend="auto")
    assert r.backend == "cpu", r.backend
    errors = {}
    for name in ("cuda", "multi-gpu", "mpi"):
        try:
            apsp.shortest_path(np.array([[0, 1], [1, 0]]), backend=name)
            errors[name] = None
        except apsp.BackendUnavailableError as e:
            errors[name] = str(e)
    print(json.dumps({"backends": apsp.backends(), "errors": errors}))
""")


def hide_libraries(plugin):
    """A machine without libcudart / libnccl / libmpi, as the plugin sees it: each NEEDED entry
    naming one of them is renamed in place in the dynamic string table (same length, "lib" ->
    "no_"), so the dynamic loader looks for a library that does not exist."""
    data = plugin.read_bytes()
    for lib in needed(plugin):
        if GPU_OR_MPI.search(lib):
            name = lib.encode() + b"\0"
            assert data.count(b"\0" + name) >= 1, lib
            data = data.replace(b"\0" + name, b"\0no_" + name[3:])
    plugin.write_bytes(data)


@pytest.mark.parametrize("how", ["no-libraries", "missing", "broken"])
def test_package_without_loadable_plugins(tmp_path, how):
    """A copy of the package whose plugins cannot load: their CUDA / NCCL / MPI libraries are
    absent ('no-libraries'), the plugin files are deleted ('missing') or are not shared objects
    ('broken')."""
    copy = tmp_path / "apsp"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    present = [p for p in PLUGINS if (copy / p).exists()]
    for plugin in present:
        if how == "missing":
            (copy / plugin).unlink()
        elif how == "broken":
            (copy / plugin).write_bytes(b"not an ELF file\n")
        else:
            hide_libraries(copy / plugin)
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", CHILD, str(copy)], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, f"exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    got = json.loads(out.stdout.strip().splitlines()[-1])
    info = {b["name"]: b for b in got["backends"]}
    assert info["cpu"]["usable"]
    why = {"no-libraries": r"no_\S+: cannot open shared object file", "missing": "No such file or directory",
           "broken": "invalid ELF header|file too short"}[how]
    for plugin, names in PLUGINS.items():
        for name in names:
            b, err = info[name], got["errors"][name]
            assert not b["usable"], b
            assert err is not None and f"backend '{name}' is not available" in err, err
            if plugin in present and b["built"]:
                assert re.search(f"{plugin}.*could not be loaded: .*({why})", b["detail"]), b
                assert plugin in err and re.search(why, err), err
            else:
                assert "not built" in b["detail"], b
