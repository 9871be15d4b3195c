"""Bad arguments raise ValueError / TypeError with a clear message; negative cycles raise
apsp.NegativeCycleError naming a real negative cycle."""
import numpy as np
import pytest

from conftest import apsp, sp

E3 = (np.array([0, 1]), np.array([1, 2]), np.array([1.0, 2.0]))


def check_cycle(err, edges, directed=True):
    """err.cycle is a cycle of `edges` ({(u, v): w}) with negative total weight."""
    cycle = err.value.cycle
    assert isinstance(cycle, list) and len(cycle) >= 1
    total = 0.0
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        w = edges.get((a, b), edges.get((b, a)) if not directed else None)
        assert w is not None, f"{a} -> {b} is not an edge of the graph (cycle {cycle})"
        total += w
    assert total < 0, f"cycle {cycle} has weight {total}"


@pytest.mark.parametrize("return_predecessors", [False, True])
@pytest.mark.parametrize("form", ["dense", "csr", "tuple"])
def test_negative_cycle(form, return_predecessors):
    # 0 -> 1 -> 2 -> 3 -> 1 is negative (1 - 3 + 1 = -1); 4 hangs off it
    edges = {(0, 1): 2.0, (1, 2): 1.0, (2, 3): -3.0, (3, 1): 1.0, (3, 4): 5.0}
    src = np.array([u for u, _ in edges])
    dst = np.array([v for _, v in edges])
    w = np.array(list(edges.values()))
    if form == "dense":
        g = np.zeros((5, 5))
        g[src, dst] = w
    elif form == "csr":
        g = sp.csr_matrix((w, (src, dst)), shape=(5, 5))
    else:
        g = (src, dst, w)
    with pytest.raises(apsp.NegativeCycleError) as err:
        apsp.shortest_path(g, return_predecessors=return_predecessors)
    assert isinstance(err.value, ValueError)
    assert "negative cycle" in str(err.value).lower()
    check_cycle(err, edges)


def test_negative_self_loop_and_undirected_negative_edge():
    with pytest.raises(apsp.NegativeCycleError) as err:
        apsp.shortest_path((np.array([0, 1]), np.array([1, 1]), np.array([1.0, -1.0])))
    assert err.value.cycle == [1]
    with pytest.raises(apsp.NegativeCycleError) as err:
        apsp.shortest_path(np.array([[0, -1, 0], [0, 0, 2], [0, 0, 0]]), directed=False)
    check_cycle(err, {(0, 1): -1.0, (1, 2): 2.0}, directed=False)


def test_dense_shape_errors():
    with pytest.raises(ValueError, match="square"):
        apsp.shortest_path(np.ones((3, 4)))
    with pytest.raises(ValueError, match="square"):
        apsp.shortest_path(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="square"):
        apsp.shortest_path(np.ones(4))
    with pytest.raises(ValueError, match="square"):
        apsp.shortest_path(sp.csr_matrix(np.ones((3, 4))))
    with pytest.raises(ValueError, match="num_vertices"):
        apsp.shortest_path(np.ones((3, 3)), num_vertices=4)


def test_nan_and_minus_inf_weights():
    d = np.array([[0, np.nan], [1, 0]])
    # dense: "no edge", as SciPy reads it (issue 16); edge lists and sparse matrices store their
    # edges explicitly, so a NaN weight there is still refused, naming the entry
    np.testing.assert_array_equal(apsp.shortest_path(d), [[0, np.inf], [1, 0]])
    np.testing.assert_array_equal(apsp.shortest_path(np.array([[0, -np.inf], [1, 0]])), [[0, np.inf], [1, 0]])
    with pytest.raises(ValueError, match=r"weight\[1\] is NaN"):
        apsp.shortest_path((np.array([0, 1]), np.array([1, 0]), np.array([1.0, np.nan])))
    with pytest.raises(ValueError, match="NaN"):
        apsp.shortest_path(sp.csr_matrix(d))


def test_vertex_id_errors():
    with pytest.raises(ValueError, match=r"dst\[1\] = 2 is out of range for num_vertices = 2"):
        apsp.shortest_path(E3, num_vertices=2)
    with pytest.raises(ValueError, match=r"src\[1\] = -1 is negative"):
        apsp.shortest_path((np.array([0, -1]), np.array([1, 2]), np.array([1, 1])))
    with pytest.raises(ValueError, match="too large"):
        apsp.shortest_path((np.array([0, 2**40]), np.array([1, 2]), np.array([1, 1])))
    with pytest.raises(ValueError, match="num_vertices must be >= 0"):
        apsp.shortest_path(E3, num_vertices=-1)
    with pytest.raises(ValueError, match="empty edge list"):
        apsp.shortest_path((np.array([], dtype=int), np.array([], dtype=int), np.array([])))
    with pytest.raises(TypeError, match="integer vertex ids"):
        apsp.shortest_path((np.array([0.0, 1.0]), np.array([1, 2]), np.array([1, 1])))
    with pytest.raises(TypeError, match="num_vertices"):
        apsp.shortest_path(E3, num_vertices=2.5)


def test_edge_array_length_errors():
    with pytest.raises(ValueError, match="differ in length: src has 2, dst 3"):
        apsp.shortest_path((np.array([0, 1]), np.array([1, 2, 0]), np.array([1, 1])))
    with pytest.raises(ValueError, match="weight 3"):
        apsp.shortest_path((np.array([0, 1]), np.array([1, 2]), np.array([1, 1, 1])))
    with pytest.raises(ValueError, match="1-dimensional"):
        apsp.shortest_path((np.array([[0, 1]]), np.array([1, 2]), np.array([1, 1])))
    with pytest.raises(ValueError, match="tuple"):
        apsp.shortest_path((np.array([0]),))


def test_element_type_errors():
    with pytest.raises(TypeError, match="numbers"):
        apsp.shortest_path(np.array([[0, "a"], ["b", 0]], dtype=object))
    with pytest.raises(TypeError, match="numbers"):
        apsp.shortest_path(np.ones((2, 2), dtype=complex))
    with pytest.raises(TypeError, match="numbers"):
        apsp.shortest_path((np.array([0]), np.array([1]), np.array(["x"])))


def test_backend_errors():
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        apsp.shortest_path(E3, backend="gpu")
    with pytest.raises(TypeError, match="backend"):
        apsp.shortest_path(E3, backend=1)
    missing = [b["name"] for b in apsp.backends() if not b["usable"]]
    if not missing:
        pytest.skip("every backend is usable on this machine")
    with pytest.raises(apsp.BackendUnavailableError, match=f"backend '{missing[0]}' is not available") as err:
        apsp.shortest_path(E3, backend=missing[0])
    assert isinstance(err.value, RuntimeError)


def test_dtype_errors():
    with pytest.raises(ValueError, match="unsupported dtype 'int16'"):
        apsp.shortest_path(E3, dtype=np.int16)
    with pytest.raises(TypeError, match="dtype"):
        apsp.shortest_path(E3, dtype="not a type")
    with pytest.raises(ValueError, match="fractional"):
        apsp.shortest_path((np.array([0]), np.array([1]), np.array([0.5])), dtype=np.int32)
    big = (np.array([0, 1]), np.array([1, 2]), np.array([2**29, 2**29]))
    with pytest.raises(ValueError, match="int32 cannot be exact"):
        apsp.shortest_path(big, dtype=np.int32)


def test_option_errors():
    with pytest.raises(ValueError, match="block must be >= 1"):
        apsp.shortest_path(E3, block=0)
    with pytest.raises(ValueError, match="block must be >= 1"):
        apsp.shortest_path(E3, block=-64)
    with pytest.raises(TypeError, match="block"):
        apsp.shortest_path(E3, block=16.0)
    with pytest.raises(ValueError, match="threads"):
        apsp.shortest_path(E3, threads=-1)
    with pytest.raises(TypeError, match="directed"):
        apsp.shortest_path(E3, "FW", "yes")  # SciPy's order: method, then directed
    with pytest.raises(ValueError, match="pass directed= by keyword"):
        apsp.shortest_path(E3, False)  # apsp's old order (directed second) is told apart
    with pytest.raises(TypeError, match="unweighted"):
        apsp.shortest_path(E3, unweighted="yes")
    with pytest.raises(ValueError, match="unrecognized method 'dijkstra'"):
        apsp.shortest_path(E3, method="dijkstra")
    with pytest.raises(ValueError, match="indices out of range"):
        apsp.shortest_path(E3, indices=[5])
    with pytest.raises(ValueError, match="indices must be whole numbers"):
        apsp.shortest_path(E3, indices=[0.5])


def test_too_large_for_memory_is_a_memory_error():
    # 10^6 vertices need 4 TB of int32 distances: refused before any allocation
    with pytest.raises(MemoryError):
        apsp.shortest_path(E3, num_vertices=10**6, dtype=np.int32)


def test_generate_and_io_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown generator"):
        apsp.generate("complete", n=3)
    with pytest.raises(TypeError, match="needs n="):
        apsp.generate("uniform", m=3)
    with pytest.raises(ValueError, match="wmin"):
        apsp.generate("uniform", n=3, m=2, wmin=5, wmax=1)
    with pytest.raises(ValueError):
        apsp.generate("uniform", n=3, m=100)  # more edges than distinct pairs
    with pytest.raises(FileNotFoundError):
        apsp.read(tmp_path / "missing.bin")
    with pytest.raises(ValueError, match="unknown graph format"):
        apsp.read(tmp_path / "x", format="xml")
    with pytest.raises(ValueError, match="unknown matrix format"):
        apsp.write(tmp_path / "x", np.zeros((2, 2)), format="xml")
    with pytest.raises(ValueError, match="NTHU"):
        apsp.write(tmp_path / "x.out", np.array([[0, 0.5], [1, 0]]))


def test_bad_environment_setting_is_a_value_error(monkeypatch):
    # APSP_* variables are read through one table (src/core/config.cpp): a bad value names the
    # variable; a change between calls is seen.
    from apsp import _core
    monkeypatch.setenv("APSP_HOST_MEMORY", "4096")
    assert _core.host_memory_limit() == 4096
    monkeypatch.setenv("APSP_HOST_MEMORY", "lots")
    with pytest.raises(ValueError, match="APSP_HOST_MEMORY='lots': expected an integer >= 1"):
        _core.host_memory_limit()
    monkeypatch.delenv("APSP_HOST_MEMORY")
    monkeypatch.setenv("APSP_CPU_ISA", "fastest")
    with pytest.raises(ValueError, match="APSP_CPU_ISA='fastest'"):
        apsp.shortest_path(E3, method="FW", backend="cpu")
