// src/core/memory_limit.cpp — host_memory_limit(): RAM, MemAvailable and the cgroup limits (v1
// and v2, every level up to the root), so that a solve in a container is refused with a message
// instead of being killed by the OOM killer halfway through; check_host_memory() (core/backend.hpp)
// measures a result against it.
#include "core/memory_limit.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>

#include "apsp/errors.hpp"
#include "apsp/types.hpp"
#include "core/backend.hpp"
#include "core/config.hpp"

namespace apsp::detail {

namespace {

/// The first number in a file, or nullopt-like false ("max" and missing files: false).
bool read_number(const std::string& path, std::uint64_t& v) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty() || s == "max") return false;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (!end || *end != '\0') return false;
  v = x;
  return true;
}

/// "key value" lines (memory.stat) or "Key: value kB" lines (meminfo): the value of `key`.
bool read_key(const std::string& path, const std::string& key, std::uint64_t& v) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size()) continue;
    const char c = line[key.size()];
    if (c != ' ' && c != ':' && c != '\t') continue;
    std::istringstream is(line.substr(key.size() + 1));
    unsigned long long x = 0;
    if (!(is >> x)) return false;
    std::string unit;
    is >> unit;
    v = unit == "kB" ? x * 1024 : x;
    return true;
  }
  return false;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

/// The folders of `cg` (a cgroup path from /proc/self/cgroup) and its ancestors under `mount`.
/// In a container the path is often the host's while the mount shows the container's own cgroup
/// at its root: levels that do not exist are skipped, the mount's root always counts.
std::vector<std::pair<std::string, std::string>> levels(const std::string& mount, std::string cg) {
  std::vector<std::pair<std::string, std::string>> v;  // (folder, cgroup path for messages)
  while (!cg.empty() && cg != "/") {
    if (exists(mount + cg)) v.emplace_back(mount + cg, cg);
    const auto slash = cg.rfind('/');
    cg = slash == std::string::npos ? std::string() : cg.substr(0, slash);
  }
  v.emplace_back(mount, "/");
  return v;
}

void take(MemoryLimit& m, std::uint64_t bytes, const std::string& source) {
  if (bytes < m.bytes) m = MemoryLimit{bytes, source};
}

}  // namespace

MemoryLimit memory_limit_from(const MemoryFiles& files, std::uint64_t physical) {
  MemoryLimit m;
  if (physical > 0) take(m, physical, "physical RAM");
  std::uint64_t avail = 0;
  if (read_key(files.meminfo, "MemAvailable", avail)) take(m, avail, "MemAvailable");

  std::ifstream f(files.self_cgroup);
  std::string line;
  while (std::getline(f, line)) {
    // "0::/path" (v2), "N:memory:/path" or "N:cpu,memory:/path" (v1).
    const auto a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    const bool v2 = controllers.empty();
    bool v1 = false;
    std::istringstream cs(controllers);
    for (std::string c; std::getline(cs, c, ',');) v1 |= c == "memory";
    if (!v1 && !v2) continue;
    const std::string mount = v2 ? files.cgroup_root : files.cgroup_root + "/memory";
    const char* limit_file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
    const char* usage_file = v2 ? "/memory.current" : "/memory.usage_in_bytes";
    const char* inactive_key = v2 ? "inactive_file" : "total_inactive_file";
    for (const auto& [dir, name] : levels(mount, path)) {
      std::uint64_t limit = 0, usage = 0, inactive = 0;
      if (!read_number(dir + limit_file, limit)) continue;
      if (!read_number(dir + usage_file, usage)) usage = 0;
      if (!read_key(dir + "/memory.stat", inactive_key, inactive)) inactive = 0;
      const std::uint64_t used = usage > inactive ? usage - inactive : 0;
      take(m, limit > used ? limit - used : 0, "cgroup " + name + limit_file);
    }
  }
  return m;
}

MemoryLimit machine_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return memory_limit_from(MemoryFiles{},
                           pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0);
}

MemoryLimit host_memory_limit() {
  if (const auto bytes = config::get_int(config::Knob::HostMemory))
    return {std::uint64_t(*bytes), "APSP_HOST_MEMORY"};
  return machine_memory_limit();
}

void check_host_memory(std::int64_t n, std::int64_t n_pad, Dtype t, bool paths,
                       std::int64_t copy_pad) {
  const double need = (double(n_pad) * double(n_pad) + double(copy_pad) * double(copy_pad)) *
                      double(dtype_size(t) + (paths ? 4 : 0));
  const MemoryLimit have = host_memory_limit();
  if (need > double(have.bytes)) {
    std::ostringstream os;
    os.precision(0);
    const bool gib = need >= double(1 << 30);
    os << std::fixed << "V = " << n << " needs " << need << " bytes (" << std::setprecision(1)
       << need / double(gib ? 1 << 30 : 1 << 20) << (gib ? " GiB" : " MiB") << std::setprecision(0)
       << ") for the " << dtype_name(t) << " distance matrix"
       << (paths ? " and next-hop matrix" : "")
       << (copy_pad > 0 ? " in the ordered layout and in the user's vertex order" : "")
       << ", more than the " << have.bytes << " bytes available (" << have.source
       << "; set APSP_HOST_MEMORY to override)";
    throw ResourceError(os.str());
  }
}

std::string early_host_problem(std::int64_t n, Dtype t, const SolveOptions& o,
                               const Capabilities& caps) {
  const bool streamed =
      caps.builds_matrix && o.dist_sink && (!o.paths || (o.next_sink && caps.streams_paths));
  if (streamed || (caps.builds_matrix && !caps.receives_result)) return "";
  try {
    check_host_memory(n, n, t, o.paths);
  } catch (const ResourceError& e) {
    return e.what();
  }
  return "";
}

std::string BackendImpl::early_memory_problem(std::int64_t n, Dtype t,
                                              const SolveOptions& o) const {
  return early_host_problem(n, t, o, capabilities());
}

namespace {

/// The backend whose memory the early check asks about, or null where none is asked: the one
/// asked for when it can run here (otherwise solve() says it is unavailable), and for auto the
/// cuda backend when a GPU is usable, else the cpu backend (an AMD GPU: no early check).
std::unique_ptr<BackendImpl> early_backend(const SolveOptions& o) {
  const bool gpu_usable = cuda_backend_info().usable;
  switch (o.backend) {
    case Backend::Cpu:
      return make_cpu_backend();
    case Backend::Auto:
      if (gpu_usable) return make_cuda_backend();
      return hip_backend_info().usable ? nullptr : make_cpu_backend();
    case Backend::Cuda:
      return gpu_usable ? make_cuda_backend() : nullptr;
    case Backend::MultiGpu:
      return multigpu_backend_info().usable ? make_multigpu_backend() : nullptr;
    case Backend::Mpi:
      return mpi_backend_info().usable ? make_mpi_backend() : nullptr;
    case Backend::Hip:
      break;
  }
  return nullptr;
}

}  // namespace

void check_host_memory_early(std::int64_t n, const SolveOptions& o) {
  if (n <= 0) return;
  if (const std::unique_ptr<BackendImpl> b = early_backend(o))
    b->agree_on(b->early_memory_problem(n, o.dtype.value_or(Dtype::Int32), o));
}

}  // namespace apsp::detail
