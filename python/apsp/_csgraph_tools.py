"""Reading predecessors back: SciPy's ``reconstruct_path`` and ``construct_dist_matrix``.

Both look up the weight of the arc each predecessor names. The graph is read as
``apsp.csgraph`` reads it (SciPy's reading: a tuple is a matrix, dense |w| <= 1e-8 is no edge)
into one sorted array of arc keys ``tail * V + head`` with the lightest weight of each
(undirected: both directions), so a lookup is a binary search and no V x V matrix is built for
``reconstruct_path``. ``construct_dist_matrix`` walks every (i, j) pair's predecessors from j back
to i, all pairs in step (NumPy), adding the arc weights in that order as SciPy's loop does, so the
sums are SciPy's to the last bit. A predecessor that names no arc, leaves 0..V-1 or closes a
cycle raises ValueError (SciPy stores 0 or inf, or loops forever).
"""

import numpy as np

from . import _dlpack
from . import _inputs as inputs

_CHUNK_PAIRS = 1 << 21  # (i, j) pairs walked at once by construct_dist_matrix


class _Arcs:
    """The graph's arcs as sorted keys tail * n + head, with the lightest weight of each."""

    def __init__(self, graph, directed, caller):
        inp = inputs.inspect(graph, None, caller, scipy=True)
        inp.scipy_null = True
        inp.exact = False  # SciPy reads every weight as float64
        inputs.scan(inp)
        self.n = n = inp.n
        src, dst, w = _arc_arrays(inp)
        keep = (src != dst) & ~np.isnan(w) & (w != np.inf)
        src, dst, w = src[keep], dst[keep], w[keep]
        if not directed:
            src, dst, w = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([w, w])
        keys = src * n + dst
        order = np.lexsort((w, keys))  # by key, the lightest first
        keys, w = keys[order], w[order]
        first = np.ones(keys.size, dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        self.keys, self.weight = keys[first], w[first]

    def lookup(self, tails, heads):
        """(weights, found): the lightest tail -> head arc's weight, and whether there is one."""
        keys = tails.astype(np.int64) * self.n + heads
        if not self.keys.size:
            return np.zeros(keys.shape), np.zeros(keys.shape, dtype=bool)
        at = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        return self.weight[at], self.keys[at] == keys

    def dense(self):
        """V x V float64: the lightest arc's weight, inf where there is none."""
        w = np.full((self.n, self.n), np.inf)
        w.ravel()[self.keys] = self.weight
        return w


def _arc_arrays(inp):
    """(src, dst, float64 weight) of a scanned input: every arc as given, duplicates kept."""
    if inp.n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    if inp.kind == "dense":
        a = np.asarray(inp.obj)
        src, dst = np.nonzero(a)
        return src.astype(np.int64), dst.astype(np.int64), a[src, dst].astype(np.float64)
    g, _ = inputs.to_graph(inp, True, False, False, inp.n)
    if g.is_dense:
        raise ValueError("a dense apsp.Graph holds no arc list: pass its matrix instead")
    return (np.asarray(g.src, dtype=np.int64), np.asarray(g.dst, dtype=np.int64),
            np.asarray(g.weight, dtype=np.float64))


def _predecessors(pred, shape, name):
    """pred as an int64 array of `shape`: whole numbers, each in 0..V-1 or negative (none)."""
    p = np.asarray(_dlpack.as_numpy(pred, name, device_ok=True))
    if p.shape != shape:
        want = " x ".join(map(str, shape)) if len(shape) > 1 else f"{shape[0]} entries (1-D)"
        raise ValueError(f"{name} must have shape {shape} ({want}) for a graph of {shape[-1]} "
                         f"vertices, got shape {p.shape}")
    if p.dtype.kind == "f":
        if p.size and not np.all(np.isfinite(p) & (p == np.floor(p))):
            raise ValueError(f"{name} must hold whole numbers (vertex ids, negative for none)")
    elif p.dtype.kind not in "biu":
        raise ValueError(f"{name} must hold integers (vertex ids, negative for none), got dtype {p.dtype}")
    p = p.astype(np.int64)
    n = shape[-1]
    if p.size and p.max() >= n:
        at = np.unravel_index(int(np.argmax(p)), p.shape)
        raise ValueError(f"{name}[{', '.join(map(str, at))}] = {p[at]} is not a vertex "
                         f"(the graph has {n}: 0..{n - 1}, negative for none)")
    return p


def _no_arc(name, at, tail, head, directed):
    if tail == head:
        return ValueError(f"{name}[{', '.join(map(str, at))}] = {tail}: a vertex cannot be its own predecessor")
    hint = "" if not directed else " (directed=True: pass directed=False if they came from an undirected solve)"
    arc = f"{tail} -> {head}" if directed else f"{tail} - {head}"
    return ValueError(f"{name}[{', '.join(map(str, at))}] = {tail}, but the graph has no edge {arc}{hint}")


def reconstruct_path(csgraph, predecessors, directed=True):
    template = _dlpack.first_tensor(csgraph)
    arcs = _Arcs(_dlpack.as_numpy(csgraph, device_ok=True) if template is not None else csgraph,
                 inputs.flag(directed, "directed"), "reconstruct_path")
    n = arcs.n
    pred = _predecessors(predecessors, (n,), "predecessors")
    heads = np.flatnonzero(pred >= 0)
    tails = pred[heads]
    w, found = arcs.lookup(tails, heads)
    if not found.all():
        k = int(np.argmin(found))
        raise _no_arc("predecessors", (int(heads[k]),), int(tails[k]), int(heads[k]), directed)
    import scipy.sparse as sp
    tree = sp.coo_matrix((w, (tails, heads)), shape=(n, n)).tocsr()
    tree.sort_indices()
    return tree


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    template = _dlpack.first_tensor(graph, predecessors)
    arcs = _Arcs(_dlpack.as_numpy(graph, device_ok=True) if template is not None else graph,
                 inputs.flag(directed, "directed"), "construct_dist_matrix")
    n = arcs.n
    inputs.check_memory(n * n * 24, f"V = {n}: the distance, weight and predecessor matrices")
    pred = _predecessors(predecessors, (n, n), "predecessors")
    null = float(null_value)
    dist = np.zeros((n, n))
    weight = arcs.dense()
    step = max(1, _CHUNK_PAIRS // max(n, 1))
    for first in range(0, n, step):
        _walk_rows(weight, pred, dist, first, min(first + step, n), null, directed)
    return dist if template is None else _dlpack.like(template, dist)


def _walk_rows(weight, pred, dist, first, last, null, directed):
    """dist[first:last] from the predecessors: every pair (i, j), i != j, walks from j back to i,
    all in step. Per pair still walking: `row` = i * n, `pos` = i * n + j (its place in dist),
    `at` where it has got to, `acc` its sum so far (SciPy's order: the last arc first)."""
    n = dist.shape[1]
    predf, weightf, distf = pred.reshape(-1), weight.reshape(-1), dist.reshape(-1)
    pos = np.arange(first * n, last * n, dtype=np.int64)
    row = pos - pos % n
    pos = pos[pos - row != np.arange(first, last).repeat(n)]  # not the diagonal
    row = pos - pos % n
    at, acc = pos - row, np.zeros(pos.size)
    for _ in range(n):
        if not pos.size:
            return
        prev = predf[row + at]
        lost = prev < 0
        if lost.any():
            distf[pos[lost]] = null
            walk = ~lost
            row, pos, at, acc, prev = row[walk], pos[walk], at[walk], acc[walk], prev[walk]
        w = weightf[prev * n + at]
        if np.isinf(w).any():
            k = int(np.argmax(np.isinf(w)))
            i, j = divmod(int(row[k] + at[k]), n)
            raise _no_arc("predecessors", (i, j), int(prev[k]), j, directed)
        acc += w
        done = prev * n == row
        distf[pos[done]] = acc[done]
        walk = ~done
        row, pos, at, acc = row[walk], pos[walk], prev[walk], acc[walk]
    if pos.size:
        i, j = divmod(int(pos[0]), n)
        raise ValueError(f"predecessors[{i}, :] has a cycle: following them back from {j} never reaches {i}")
