"""apsp.read / apsp.write / apsp.read_matrix / apsp.generate and the apsp.Graph object."""
import numpy as np
import pytest

from conftest import apsp, edges_of, random_weights, scipy_reference


def nthu_bytes(n, edges):
    out = np.array([n, len(edges)], dtype="<i4").tobytes()
    return out + np.array(edges, dtype="<i4").reshape(-1).tobytes()


def test_read_nthu_and_solve(tmp_path):
    f = tmp_path / "g.in"
    f.write_bytes(nthu_bytes(4, [(0, 1, 3), (1, 2, 4), (2, 0, 1), (0, 1, 2)]))
    g = apsp.read(f)
    assert isinstance(g, apsp.Graph) and g.num_vertices == 4 and g.num_edges == 4 and g.directed
    np.testing.assert_array_equal(g.src, [0, 1, 2, 0])
    np.testing.assert_array_equal(g.weight, [3, 4, 1, 2])
    assert g.src.dtype == np.int32 and g.weight.dtype == np.float64 and not g.src.flags.writeable
    d = apsp.shortest_path(g)
    assert d[0, 2] == 6 and d[2, 1] == 3 and np.isinf(d[3, 0]) and np.isinf(d[0, 3])
    gu = apsp.read(f, undirected=True)
    assert not gu.directed and apsp.shortest_path(gu)[2, 0] == 1


def test_text_formats(tmp_path):
    (tmp_path / "g.gr").write_text("c tiny\np sp 3 2\na 1 2 5\na 2 3 -1\n")
    (tmp_path / "g.mtx").write_text("%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n2 3 -1\n")
    (tmp_path / "g.txt").write_text("# u v w\n0 1 5\n1 2 -1\n")
    want = [[0, 5, 4], [np.inf, 0, -1], [np.inf, np.inf, 0]]
    for name in ("g.gr", "g.mtx", "g.txt"):
        np.testing.assert_array_equal(apsp.shortest_path(apsp.read(tmp_path / name)), want, err_msg=name)
    np.testing.assert_array_equal(apsp.shortest_path(apsp.read(str(tmp_path / "g.txt"), format="edgelist")), want)


def test_malformed_file_raises_input_error(tmp_path):
    f = tmp_path / "bad.in"
    f.write_bytes(nthu_bytes(3, [(0, 1, 1)])[:-2])  # truncated
    with pytest.raises(apsp.InputError) as err:
        apsp.read(f)
    assert isinstance(err.value, ValueError) and "bad.in" in str(err.value)
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 2 1\na 1 x 3\n")
    with pytest.raises(apsp.InputError, match="line 2"):
        apsp.read(bad)


def test_write_nthu_output_matches_the_course_format(tmp_path):
    d = apsp.shortest_path((np.array([0]), np.array([1]), np.array([7])), num_vertices=2, dtype=np.int32)
    apsp.write(tmp_path / "a.out", d)  # written straight from the solver's matrix
    raw = np.frombuffer((tmp_path / "a.out").read_bytes(), dtype="<i4")
    np.testing.assert_array_equal(raw, [0, 7, 1073741823, 0])
    f = apsp.shortest_path((np.array([0]), np.array([1]), np.array([7])), num_vertices=2)
    apsp.write(tmp_path / "b.out", f)  # float64 with inf: converted to the sentinel
    assert (tmp_path / "b.out").read_bytes() == (tmp_path / "a.out").read_bytes()
    np.testing.assert_array_equal(apsp.read_matrix(tmp_path / "a.out"), d)


def test_write_npy_and_text(tmp_path):
    rng = np.random.default_rng(11)
    W, _ = random_weights(rng, 50, 0.1, "float")
    d = apsp.shortest_path(W)
    apsp.write(tmp_path / "d.npy", d)
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy", mmap_mode="r"), d)
    np.testing.assert_array_equal(apsp.read_matrix(tmp_path / "d.npy"), d)
    di = apsp.shortest_path(W * 2, dtype=np.int64)  # strided view of a padded matrix
    apsp.write(tmp_path / "di.npy", di)
    np.testing.assert_array_equal(np.load(tmp_path / "di.npy"), di)
    apsp.write(tmp_path / "part.npy", di[::2, 1:7])  # an arbitrary view is copied, then written
    np.testing.assert_array_equal(np.load(tmp_path / "part.npy"), di[::2, 1:7])
    apsp.write(tmp_path / "d.txt", di[:3, :3])
    assert len((tmp_path / "d.txt").read_text().split()) >= 9


def test_graph_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    W, _ = random_weights(rng, 40, 0.1, "neg")
    src, dst, w = edges_of(W)
    g = apsp.graph(src, dst, w, num_vertices=40)
    assert g.num_edges == len(w) and g.integer_weights
    for name in ("g.bin", "g.txt"):
        apsp.write(tmp_path / name, g)
        h = apsp.read(tmp_path / name)
        assert h.num_edges == g.num_edges
        # an edge list does not store V: give it back through the tuple form
        got = apsp.shortest_path((h.src, h.dst, h.weight), num_vertices=40)
        np.testing.assert_array_equal(got, scipy_reference(W), err_msg=name)
    assert apsp.read(tmp_path / "g.bin").num_vertices == 40
    assert "num_edges" in repr(g)


def test_generators_are_deterministic_and_valid():
    g = apsp.generate("uniform", n=60, m=300, wmin=0, wmax=10, seed=3)
    assert g.num_vertices == 60 and g.num_edges == 300
    assert (g.src != g.dst).all() and g.weight.min() >= 0 and g.weight.max() <= 10
    assert len(set(zip(g.src.tolist(), g.dst.tolist()))) == 300  # distinct pairs
    g2 = apsp.generate("uniform", n=60, m=300, wmin=0, wmax=10, seed=3)
    np.testing.assert_array_equal(g.src, g2.src)
    np.testing.assert_array_equal(g.weight, g2.weight)
    r = apsp.generate("rmat", scale=6, m=400, seed=1)
    assert r.num_vertices == 64 and r.num_edges <= 400
    grid = apsp.generate("grid", rows=4, cols=5, wmin=1, wmax=1)
    assert grid.num_vertices == 20
    d = apsp.shortest_path(grid)
    assert d[0, 19] == 3 + 4  # Manhattan distance with unit weights
    # a generated graph solves like the same edges given as arrays
    np.testing.assert_array_equal(apsp.shortest_path(g), apsp.shortest_path((g.src, g.dst, g.weight), num_vertices=60))


def test_graph_views_keep_the_graph_alive():
    g = apsp.generate("uniform", n=10, m=20, seed=2)
    src = g.src
    del g
    assert src.shape == (20,) and src.max() < 10
    with pytest.raises(ValueError):
        src[0] = 1  # read-only


def test_read_takes_num_vertices_and_bounded_devices(tmp_path):
    # Isolated high-numbered vertices survive through num_vertices=; /dev/zero is refused at once
    # (its header says V = 0) instead of being read until memory runs out.
    p = tmp_path / "g.txt"
    p.write_text("0 1 5\n1 2 7\n")
    assert apsp.read(str(p)).num_vertices == 3
    assert apsp.read(str(p), num_vertices=10).num_vertices == 10
    with pytest.raises(ValueError):
        apsp.read(str(p), num_vertices=0)
    with pytest.raises(ValueError, match="/dev/zero"):
        apsp.read("/dev/zero", format="nthu")


def test_write_names_the_format_as_the_cli_does(tmp_path):
    # .csv, .tsv, .foo, .npy.gz, .xlsx were all written as NTHU binary (a float matrix to .csv:
    # "NTHU output holds int32 distances"); apsp.write now asks the CLI's own rule.
    d = np.array([[0, 1.5], [np.inf, 0]])
    apsp.write(tmp_path / "d.csv", d)
    assert (tmp_path / "d.csv").read_text() == "0,1.5\ninf,0\n"
    apsp.write(tmp_path / "d.tsv", d)
    assert (tmp_path / "d.tsv").read_text() == "0\t1.5\ninf\t0\n"
    np.testing.assert_array_equal(apsp.read_matrix(tmp_path / "d.csv"), d)
    for name in ("d.foo", "d.npy.gz", "d.xlsx"):
        with pytest.raises(ValueError, match=r"unknown output extension .* format='nthu', 'npy'"):
            apsp.write(tmp_path / name, d)
        assert not (tmp_path / name).exists()
    apsp.write(tmp_path / "d.foo", d, format="text")  # an explicit format, under any name
    assert (tmp_path / "d.foo").read_text() == "0 1.5\ninf 0\n"
    # the names the CLI writes NTHU binary to
    i = np.array([[0, 7], [apsp.UNREACHABLE_INT32, 0]], dtype=np.int32)
    for name in ("d.bin", "d.out", "d.nthu", "d.next", "c01.1", "noext"):
        apsp.write(tmp_path / name, i)
        assert (tmp_path / name).read_bytes() == i.astype("<i4").tobytes(), name


def test_write_refuses_nthu_output_that_is_not_square(tmp_path):
    # a 2x3 int32 array became an NTHU file nothing could read
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    for name, fmt in (("d.bin", None), ("d.out", None), ("d.npy", "nthu")):
        with pytest.raises(ValueError, match=r"NTHU output is a V x V matrix .* shape \(2, 3\)"):
            apsp.write(tmp_path / name, m, format=fmt)
        assert not (tmp_path / name).exists()
    apsp.write(tmp_path / "d.npy", m)  # formats that store the shape take it
    apsp.write(tmp_path / "d.txt", m)
    np.testing.assert_array_equal(np.load(tmp_path / "d.npy"), m)
    np.testing.assert_array_equal(apsp.read_matrix(tmp_path / "d.txt"), m)


def test_write_graph_in_every_format_its_name_says(tmp_path):
    # g.gr, g.mtx, g.txt.gz said "rename it, or let the name choose the format"
    g = apsp.graph([0, 1, 2], [1, 2, 0], [5, -1, 3], num_vertices=4)
    want = apsp.shortest_path(g)
    for name in ("g.gr", "g.mtx", "g.txt.gz", "g.mtx.gz", "g.csv", "g.bin", "g.dat"):
        apsp.write(tmp_path / name, g)
        h = apsp.read(tmp_path / name)
        assert h.num_vertices == 4, name
        np.testing.assert_array_equal(apsp.shortest_path(h), want, err_msg=name)
    assert "p sp 4 3" in (tmp_path / "g.gr").read_text()
    apsp.write(tmp_path / "h.gr", g, format="dimacs")
    with pytest.raises(ValueError, match="the name says DIMACS, but .* as an edge list"):
        apsp.write(tmp_path / "x.gr", g, format="edgelist")
    with pytest.raises(ValueError, match="unknown graph format 'xml'"):
        apsp.write(tmp_path / "x.bin", g, format="xml")


def test_read_matrix_text_never_takes_a_distance_for_the_sentinel(tmp_path):
    # a finite 1073741823 read back as int32, i.e. as UNREACHABLE_INT32
    g = tmp_path / "cyc.txt"
    g.write_text("0 1 1073741823\n1 0 1073741823\n")
    apsp.solve_file(g, tmp_path / "cyc.out.txt", backend="cpu")
    m = apsp.read_matrix(tmp_path / "cyc.out.txt")
    assert m.dtype == np.int64 and m[0, 1] == 1073741823 and m[0, 1] != apsp.UNREACHABLE_INT64
    (tmp_path / "m.txt").write_text("0 4611686018427387903\ninf 0\n")  # int64's sentinel, finite
    m = apsp.read_matrix(tmp_path / "m.txt")
    assert m.dtype == np.float64 and m[0, 1] == 2.0**62 and np.isinf(m[1, 0])


def test_read_matrix_market_under_an_edge_list_name(tmp_path):
    # read as an edge list: the size line an edge, 1-based ids 0-based, `symmetric` ignored
    mm = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 2 5\n"
    (tmp_path / "g.mtx").write_text(mm)
    (tmp_path / "g.txt").write_text(mm)
    want = apsp.shortest_path(apsp.read(tmp_path / "g.mtx"))
    assert want[0, 2] == 9 and want[2, 0] == 9
    np.testing.assert_array_equal(apsp.shortest_path(apsp.read(tmp_path / "g.txt")), want)
    with pytest.raises(apsp.InputError, match="a Matrix Market file .* format=mtx"):
        apsp.read(tmp_path / "g.txt", format="edgelist")


def test_read_skips_a_utf8_byte_order_mark(tmp_path):
    p = tmp_path / "g.txt"
    p.write_bytes(b"\xef\xbb\xbf0 1 5\n1 2 7\n")
    g = apsp.read(p)
    assert g.num_vertices == 3 and g.num_edges == 2 and apsp.shortest_path(g)[0, 2] == 12


def test_read_matrix_next_hops_of_a_graph_without_arcs(tmp_path):
    # all -1: 0xFF bytes only, once taken for text
    g = tmp_path / "g.txt"
    g.write_text("# vertices: 3\n")
    apsp.solve_file(g, tmp_path / "d.bin", backend="cpu", paths=True)
    nxt = apsp.read_matrix(tmp_path / "d.bin.next")
    assert nxt.dtype == np.int32 and nxt.shape == (3, 3) and (nxt == -1).all()


def test_error_messages_with_bytes_that_are_not_utf8(tmp_path):
    # the message quotes the bad token; it reaches Python as a str (it came out empty before)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"0 1 \xff\xfe7\n")
    with pytest.raises(apsp.InputError, match=r"bad\.txt: line 1: .* got '\?\?7'"):
        apsp.read(bad)
    nonutf8 = tmp_path / "g\xe9.txt".encode("latin-1").decode("utf-8", "surrogateescape")
    nonutf8.write_bytes(b"0 1 x\n")
    with pytest.raises(apsp.InputError, match="line 1"):
        apsp.read(nonutf8)
