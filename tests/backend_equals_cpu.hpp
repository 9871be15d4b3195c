// tests/backend_equals_cpu.hpp — one parametrised check, "backend X equals the cpu backend", for
// the backends that distribute the tiles (mpi with CPU or GPU ranks, multi-gpu). It solves a
// random graph with X (streamed through the sinks, or whole), then compares with `--backend cpu`
// on the same graph (and with `--backend cuda` where asked and usable): distances bit for bit; next
// hops bit for bit, except streamed next hops of a graph with zero-weight edges (the distributed
// backends' hop-count tie rule): there every walk must end at its target with the shortest length.
// The input must be non-trivial (some finite off-diagonal distance). Under MPI only world rank 0
// receives the result and compares; every rank solves (the solves are collective).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apsp/solve.hpp"
#include "cpu/blocked_fw.hpp"
#include "support.hpp"

namespace apsp::test {

/// One graph and how to solve it.
struct EqualsCpuCase {
  RandomGraphSpec spec;
  Dtype dtype = Dtype::Int32;
  int block = 0;  ///< --block for the backend under test (0: its default)
  bool paths = false;
  bool streamed = true;      ///< through the sinks (the CLI's way); else Result::dist / next
  std::vector<int> devices;  ///< --devices
};

/// The backend under test and what its results must show.
struct BackendUnderTest {
  Backend backend = Backend::Cpu;
  std::string name;         ///< Result::backend
  int reported_block = -1;  ///< Result::block (-1: not checked)
  int ref_block = -1;       ///< the cpu reference's --block (-1: the case's block)
  bool vs_cuda = false;     ///< distances also equal to --backend cuda where usable
  std::int64_t cpu_up_to =
      -1;  ///< with vs_cuda and cuda usable: the cpu reference only up to this V
  std::function<bool()> is_root;  ///< this process receives the result (unset: always)
};


inline std::string describe(const EqualsCpuCase& c) {
  std::ostringstream os;
  os << "V=" << c.spec.V << " E=" << c.spec.E << " seed=" << c.spec.seed
     << " dtype=" << dtype_name(c.dtype) << " w=" << c.spec.wmin << ".." << c.spec.wmax
     << " block=" << c.block << (c.paths ? " paths" : "") << (c.streamed ? " streamed" : " whole")
     << (c.spec.directed ? "" : " undirected");
  if (!c.devices.empty()) os << " devices=" << c.devices.size();
  return os.str();
}

/// Solves `c` on `b` and checks it against the cpu backend (see the file comment).
inline void expect_equals_cpu(const BackendUnderTest& b, const EqualsCpuCase& c) {
  SCOPED_TRACE(b.name + ": " + describe(c));
  const Graph g = random_graph(c.spec);
  SolveOptions o;
  o.dtype = c.dtype;
  o.block = c.block;
  o.paths = c.paths;
  o.devices = c.devices;
  o.backend = b.backend;
  StripeCollector dist, next;
  if (c.streamed) {
    o.dist_sink = dist.sink();
    if (c.paths) o.next_sink = next.sink();
  }
  Result r = solve(g, o);
  EXPECT_EQ(r.backend, b.name);
  if (b.reported_block >= 0) {
    EXPECT_EQ(r.block, b.reported_block);
  }
  if (b.is_root && !b.is_root()) {
    EXPECT_TRUE(r.dist.empty()) << "only rank 0 receives the result";
    EXPECT_TRUE(dist.m.empty()) << "only rank 0 may call the sink";
    return;
  }
  if (c.streamed) {
    EXPECT_TRUE(r.dist.empty()) << "a streaming backend must leave Result::dist empty";
    EXPECT_TRUE(r.next.empty());
    ASSERT_EQ(dist.check(), "");
    if (c.paths) {
      ASSERT_EQ(next.check(), "");
    }
  } else {
    dist.m = std::move(r.dist);
    next.m = std::move(r.next);
  }
  SolveOptions ref;
  ref.dtype = c.dtype;
  ref.paths = c.paths;
  ref.block = b.ref_block >= 0 ? b.ref_block : c.block;
  ref.backend = Backend::Cuda;
  const bool cuda = b.vs_cuda && !c.paths && backend_usable("cuda");
  if (cuda) {
    ref.block = 0;
    const Result want = solve(g, ref);
    if (c.spec.V > 1) {
      ASSERT_GT(finite_off_diagonal(want.dist), 0) << "trivial test input";
    }
    EXPECT_EQ(compare(dist.m, want.dist), "") << "vs --backend cuda";
    if (b.cpu_up_to >= 0 && c.spec.V > b.cpu_up_to) return;
    ref.block = b.ref_block >= 0 ? b.ref_block : c.block;
  }
  ref.backend = Backend::Cpu;
  const Result want = solve(g, ref);
  if (c.spec.V > 1) {
    ASSERT_GT(finite_off_diagonal(want.dist), 0) << "trivial test input";
  }
  EXPECT_EQ(compare(dist.m, want.dist), "") << "vs --backend cpu --block " << ref.block;
  if (!c.paths) return;
  if (c.streamed && !detail::cpu::positive_weights(g, c.dtype)) {
    EXPECT_EQ(check_next_hop_walks(g, dist.m, next.m), "");
  } else {
    EXPECT_EQ(compare(next.m, want.next), "") << "next hops vs --backend cpu --block " << ref.block;
  }
}

}  // namespace apsp::test
