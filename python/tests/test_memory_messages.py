"""One memory figure per machine (issue 33, defect 6): the module's own MemoryError (checked in
Python before any work) and the solver's (checked in C++) quoted physical RAM and MemAvailable,
two numbers for one machine. Both now plan for the solver's figure."""
import re

import numpy as np
import pytest

import apsp
from apsp import _core

EDGE = (np.array([0]), np.array([1]), np.array([1.0]))


def quoted_bytes(call):
    with pytest.raises(MemoryError) as err:
        call()
    found = re.search(r"more than (?:this machine's|the) (\d+) bytes", str(err.value))
    assert found, str(err.value)
    return int(found.group(1))


def test_module_and_solver_quote_one_figure(monkeypatch):
    monkeypatch.delenv("APSP_HOST_MEMORY", raising=False)
    python_side = quoted_bytes(lambda: apsp.shortest_path(EDGE, num_vertices=400_000))
    # engine="fw": the solver's V x V check (auto would take a per-source engine, which fits)
    # (backend="cpu": on a GPU machine auto would quote the GPU's memory, another figure)
    solver_side = quoted_bytes(lambda: apsp.metrics(EDGE, num_vertices=4_000_000, engine="fw",
                                                    backend="cpu"))
    per_source = quoted_bytes(lambda: apsp.dijkstra(EDGE, num_vertices=4_000_000,
                                                    indices=np.arange(4000)))
    # MemAvailable moves a little between the calls; physical RAM vs MemAvailable differ by far more
    for other in (solver_side, per_source, _core.host_memory_limit()):
        assert abs(other - python_side) <= 0.01 * python_side, (python_side, other)
