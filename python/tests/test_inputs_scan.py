"""apsp._inputs' reading of an edge tuple (issue 34): the weights are converted to an array once,
read in two passes (smallest, largest), and whether float weights are whole is taken from the
Graph built from them; the facts found (edge count, negative, largest whole |w|, dtype=None's
choice) are those of a full scan."""
import numpy as np
import pytest

import apsp
from apsp import _inputs

SRC, DST = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])


def read(weight, unweighted=False, n=None):
    inp = _inputs.inspect((SRC, DST, weight), n, "test")
    g, n = _inputs.read_graph(inp, True, unweighted, False, n)
    return inp, g, n


@pytest.mark.parametrize("weight, negative, whole", [
    ([1, 2, 3, 4], False, 4.0),
    (np.array([1, -2, 3, 4], dtype=np.int32), True, 4.0),
    (np.array([1, 2, 3, 4], dtype=np.uint64), False, 4.0),
    (np.array([2.0, 1.0, 3.0, 0.0]), False, 3.0),
    (np.array([2.5, 1.0, 3.0, 0.0]), False, None),
    (np.array([-2.0, 1.0, 3.0, 0.0], dtype=np.float32), True, 3.0),
    (np.array([1.0, 2.0, np.inf, 7.0]), False, 7.0),   # inf: no edge, not a weight
    (np.array([1.5, 2.0, np.inf, 7.0]), False, None),
    (np.float64(2.0), False, 2.0),                     # one weight for every edge
])
def test_facts_are_those_of_a_full_scan(weight, negative, whole):
    inp, g, n = read(weight)
    assert n == 4
    assert inp.edges == 4
    assert inp.negative == negative
    assert inp.whole_max == whole
    assert inp.whole_pending is None
    # scan() alone (apsp.csgraph's way) finds the same without the Graph
    alone = _inputs.scan(_inputs.inspect((SRC, DST, weight), None, "test"))
    assert (alone.edges, alone.negative, alone.whole_max) == (4, negative, whole)


def test_weights_converted_once_and_kept():
    inp, g, _ = read([1, 2, 3, 4])
    assert isinstance(inp.obj[2], np.ndarray)
    assert list(g.weight) == [1, 2, 3, 4]


def test_unweighted_reads_no_weight():
    inp, g, _ = read(np.array([5.5, -2.0, 1e300, 7.0]), unweighted=True)
    assert (inp.edges, inp.negative, inp.whole_max) == (4, False, 1.0)
    assert set(g.weight) == {1.0}


def test_exact_integer_check_skipped_only_within_2_53():
    inp, _, _ = read(np.array([1, 2, 3, 2**53], dtype=np.int64))
    assert inp.exact_checked
    with pytest.raises(ValueError, match=r"weight\[3\] = 9007199254740993 is beyond 2\^53"):
        read(np.array([1, 2, 3, 2**53 + 1], dtype=np.int64))
    with pytest.raises(ValueError, match=r"weight\[1\] = -9007199254740993"):
        read(np.array([1, -2**53 - 1, 3, 4], dtype=np.int64))


def test_nan_and_minus_inf_are_named():
    with pytest.raises(ValueError, match=r"weight\[1\] is NaN"):
        read(np.array([1.0, np.nan, 3.0, 4.0]))
    with pytest.raises(ValueError, match=r"weight\[2\] is -inf"):
        read(np.array([1.0, 2.0, -np.inf, 4.0]))


def test_auto_dtype_from_whole_float_weights():
    inp, _, n = read(np.array([2.0**61, 1.0, 1.0, 1.0]))
    assert _inputs.auto_dtype(inp, n, None) == "float64"
    inp, _, n = read(np.array([2.0**61, 1.5, 1.0, 1.0]))
    assert _inputs.auto_dtype(inp, n, None) is None


def test_metrics_from_weighted_tuples_equal_unweighted():
    for w in (np.ones(4), np.ones(4, dtype=np.int32), np.full(4, 3, dtype=np.int64)):
        scale = float(w[0])
        assert apsp.diameter((SRC, DST, w)) == 3 * scale
        assert apsp.metrics((SRC, DST, w), ["diameter", "radius"]) == {"diameter": 3 * scale,
                                                                       "radius": 3 * scale}
