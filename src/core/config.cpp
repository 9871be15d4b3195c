// src/core/config.cpp — the table of APSP_* knobs, their parsing and their printed forms.
//
// The only file that reads APSP_* variables. Each access looks the variable up and parses it
// only when its text differs from the last one parsed (one mutex; values are small copies).
#include "core/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "apsp/errors.hpp"

namespace apsp::config {

namespace {

/// One row of the table. `words`: a Choice's accepted words ('|'-separated); `unit`: what an
/// Int or Double counts. A default of "auto" lets the value "auto" be written out too.
struct Entry {
  Knob knob;
  const char* name;
  Type type;
  const char* def;
  const char* doc;
  const char* words = "";
  const char* unit = "";
  std::int64_t min = 0;
};

// clang-format off
const Entry kTable[] = {
  {Knob::HostMemory, "APSP_HOST_MEMORY", Type::Int, "auto",
   "Bytes the host matrices may take (auto: the least of physical RAM, MemAvailable and what the "
   "process's cgroups have left).", "", "bytes", 1},
  {Knob::ProgressDelay, "APSP_PROGRESS_DELAY", Type::Double, "1",
   "CLI: seconds a run lasts before its progress shows (only on a terminal).", "", "seconds"},
  {Knob::Trace, "APSP_TRACE", Type::Bool, "0",
   "Timestamped stage lines on stderr, and one line per committed output file."},
  {Knob::DetachExit, "APSP_DETACH_EXIT", Type::Switch, "auto",
   "CLI: solve in a forked child and exit once the outputs are written, before the CUDA "
   "teardown ends (auto: where a GPU solve can run; never under MPI)."},
  {Knob::CpuIsa, "APSP_CPU_ISA", Type::Choice, "auto",
   "CPU kernel set (auto: the widest this CPU and build run; another is an error where they "
   "cannot).", "auto|avx512|avx2|scalar"},
  {Knob::CpuNext, "APSP_CPU_NEXT", Type::Choice, "auto",
   "How the CPU backend finds next hops for --paths (auto: a cost model; docs/paths.md).",
   "auto|edges|tracked"},
  {Knob::CpuNextTrace, "APSP_CPU_NEXT_TRACE", Type::Bool, "0",
   "One line on stderr per CPU solve with --paths: the next-hop method, why, its timings."},
  {Knob::CudaInt16, "APSP_CUDA_INT16", Type::Switch, "auto",
   "int16x2 GPU rounds: 1 tries them wherever the weights allow, 0 never (auto: at V >= 6144 "
   "when max w < 2^14-1, unless sampled distances reach the cap; kept only when exact)."},
  {Knob::CudaInt16Paths, "APSP_CUDA_INT16_PATHS", Type::Bool, "1",
   "With --paths, int16x2 rounds widened to int32 for the next hops where the GPU has room "
   "(0: --paths stays on int32 rounds)."},
  {Knob::CudaGraph, "APSP_CUDA_GRAPH", Type::Switch, "auto",
   "Launch the rounds as one captured CUDA graph (auto: up to 32 rounds, V <= 4096)."},
  {Knob::NdBatch, "APSP_ND_BATCH", Type::Bool, "1",
   "cuda, sparse order: run the rounds of independent subtrees together, a batch of them a "
   "launch (0: one round after another; docs/sparse.md)."},
  {Knob::SnStream, "APSP_SN_STREAM", Type::Bool, "1",
   "cuda, --order sn: the down sweep streams products of width <= 32, a thread's columns in "
   "registers (0: 16- and 32-row tiles only, for comparison; docs/sparse.md)."},
  {Knob::Grid, "APSP_GRID", Type::Shape, "auto",
   "Worker grid of the multi-gpu and mpi backends; R * C must be the worker count (auto: the "
   "most square)."},
  {Knob::MgProfile, "APSP_MG_PROFILE", Type::Bool, "0",
   "multi-gpu and mpi GPU ranks: per-phase GPU times of every GPU on stderr (distances; with "
   "--paths one line of the next-hop GEMMs' tile counts)."},
  {Knob::MpiGpu, "APSP_MPI_GPU", Type::Switch, "auto",
   "mpi backend: 1 GPU ranks (or an error), 0 CPU ranks (auto: GPU ranks when every rank has "
   "a GPU of its own; docs/distributed.md)."},
  {Knob::GatherStripe, "APSP_GATHER_STRIPE", Type::Int, "auto",
   "multi-gpu and mpi: bytes of output per stripe when a sparse order's result is handed out in "
   "the user's order (auto: 64 MiB multi-gpu, 32 MiB mpi; mpi takes rank 0's; small values for "
   "tests).", "", "bytes",
   1},
  {Knob::WriteThreads, "APSP_WRITE_THREADS", Type::Int, "auto",
   "Threads per large output append, 0 or 1: one write at a time (auto: 1 on ext2/3/4, xfs, "
   "btrfs, tmpfs, f2fs, else up to 16; docs/io.md).", "", "threads", 0},
  {Knob::WritePreallocate, "APSP_WRITE_PREALLOCATE", Type::Switch, "auto",
   "Preallocate output files (fallocate) before writing (auto: on ext2/3/4)."},
  {Knob::WriteMethod, "APSP_WRITE_METHOD", Type::Choice, "write",
   "How output files are written: write() calls, or copies into a shared mapping (mmap always "
   "preallocates; an I/O error is then a SIGBUS).", "write|mmap"},
  {Knob::WritePrefill, "APSP_WRITE_PREFILL", Type::Choice, "auto",
   "Fill a preallocated output's page cache while a GPU solve runs (auto: mmap on ext2/3/4, "
   "else 0).", "auto|0|write|mmap"},
  {Knob::WritePrefillThreads, "APSP_WRITE_PREFILL_THREADS", Type::Int, "auto",
   "Threads touching the mapped output's pages in an mmap prefill, at most 64 (auto: cores - "
   "2, at most the copy's thread count).", "", "threads", 1},
  {Knob::WritePrefillLimit, "APSP_WRITE_PREFILL_LIMIT", Type::Int, "auto",
   "Bytes of a mapped output kept in the page cache ahead of its data: filled before the first "
   "write, then faulted in ahead of the copies (auto: half the kernel's background-writeback "
   "threshold).", "", "bytes", 4096},
  {Knob::BenchPython, "APSP_PYTHON", Type::Text, "/usr/bin/python3",
   "apsp bench --backend cpu: the Python that runs the SciPy baseline."},
  {Knob::BenchScipyScript, "APSP_SCIPY_SCRIPT", Type::Text, "",
   "apsp bench --backend cpu: the SciPy baseline script (unset: bench/cpu/scipy_fw.py of the "
   "source tree)."},
};
// clang-format on
constexpr int kKnobs = static_cast<int>(Knob::kCount);
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kKnobs, "one table row per Knob");

const Entry& entry(Knob k) {
  const Entry& e = kTable[static_cast<int>(k)];
  if (e.knob != k) throw std::logic_error("config: table out of order at " + std::string(e.name));
  return e;
}

/// A parsed value; which members count depends on the knob's type.
struct Value {
  bool is_auto = false;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  Shape shape;
};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_auto(const Entry& e) { return std::string(e.def) == "auto"; }

/// The type column: what values the knob takes.
std::string type_text(const Entry& e) {
  const std::string or_auto = has_auto(e) ? " or auto" : "";
  const std::string unit = *e.unit ? std::string(" (") + e.unit + ")" : "";
  switch (e.type) {
    case Type::Bool:
      return "bool";
    case Type::Switch:
      return "bool or auto";
    case Type::Int:
      return "integer >= " + std::to_string(e.min) + unit + or_auto;
    case Type::Double:
      return "number" + unit;
    case Type::Choice:
      return e.words;
    case Type::Text:
      return "text";
    case Type::Shape:
      return "RxC" + or_auto;
  }
  return "";
}

/// What a usage error says is accepted.
std::string expected_text(const Entry& e) {
  const std::string or_auto = has_auto(e) ? " or auto" : "";
  switch (e.type) {
    case Type::Bool:
      return "1/0/true/false/on/off/yes/no";
    case Type::Switch:
      return "1/0/true/false/on/off/yes/no" + or_auto;
    case Type::Choice:
      return std::string("one of ") + e.words;
    case Type::Shape:
      return "RxC (two positive integers)" + or_auto;
    case Type::Int:
      return "an " + type_text(e);
    default:
      return "a " + type_text(e);
  }
}

bool parse_bool(const std::string& s, bool& out) {
  for (const char* t : {"1", "true", "on", "yes"})
    if (s == t) return out = true, true;
  for (const char* f : {"0", "false", "off", "no"})
    if (s == f) return out = false, true;
  return false;
}

/// Decimal digits only (no sign, no spaces), within int64.
bool parse_digits(const std::string& s, std::int64_t& out) {
  if (s.empty()) return false;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (v > (INT64_MAX - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

/// Whether `s` is one of the '|'-separated `words`.
bool is_word_of(const std::string& s, std::string_view words) {
  while (!words.empty()) {
    const std::size_t bar = std::min(words.find('|'), words.size());
    if (words.substr(0, bar) == s) return true;
    words.remove_prefix(std::min(bar + 1, words.size()));
  }
  return false;
}

bool parse_shape(const std::string& s, Shape& out) {
  const auto x = s.find('x');
  std::int64_t r = 0, c = 0;
  if (x == std::string::npos || !parse_digits(s.substr(0, x), r) ||
      !parse_digits(s.substr(x + 1), c))
    return false;
  if (r < 1 || c < 1 || r > INT32_MAX || c > INT32_MAX) return false;
  out = {int(r), int(c)};
  return true;
}

/// Parses `text` (the default where unset); throws a UsageError naming the variable.
Value parse(const Entry& e, const char* text) {
  const std::string raw = text ? text : e.def;
  const std::string s = lower(raw);
  Value v;
  bool ok = true;
  if (has_auto(e) && s == "auto") {
    v.is_auto = true;
    v.s = "auto";
  } else {
    switch (e.type) {
      case Type::Bool:
      case Type::Switch:
        ok = parse_bool(s, v.b);
        break;
      case Type::Int:
        ok = parse_digits(s, v.i) && v.i >= e.min;
        break;
      case Type::Double: {
        char* end = nullptr;
        errno = 0;
        v.d = std::strtod(s.c_str(), &end);
        ok = !s.empty() && end && *end == '\0' && errno == 0 && std::isfinite(v.d);
        break;
      }
      case Type::Choice:
        ok = is_word_of(s, e.words);
        v.s = s;
        break;
      case Type::Text:
        v.s = raw;
        break;
      case Type::Shape:
        ok = parse_shape(s, v.shape);
        break;
    }
  }
  if (!ok) throw UsageError(std::string(e.name) + "='" + raw + "': expected " + expected_text(e));
  return v;
}

/// The variable's text, or nullptr when unset or empty.
const char* env_text(const Entry& e) {
  const char* t = std::getenv(e.name);
  return t && *t ? t : nullptr;
}

struct Slot {
  bool parsed = false, present = false;
  std::string raw;
  Value value;
};
// Function statics: ready even for a caller in another file's static initialisation.
std::mutex& slots_mutex() {
  static std::mutex m;
  return m;
}
Slot& slot_of(Knob k) {
  static Slot slots[kKnobs];
  return slots[static_cast<int>(k)];
}

Value lookup(Knob k, Type want) {
  const Entry& e = entry(k);
  if (e.type != want)
    throw std::logic_error(std::string("config: ") + e.name + " read as another type");
  const std::lock_guard<std::mutex> lock(slots_mutex());
  const char* text = env_text(e);
  Slot& slot = slot_of(k);
  if (!slot.parsed || slot.present != bool(text) || (text && slot.raw != text)) {
    Value v = parse(e, text);  // a throw leaves the slot as it was
    slot = {true, bool(text), text ? text : "", std::move(v)};
  }
  return slot.value;
}

}  // namespace

bool get_bool(Knob k) { return lookup(k, Type::Bool).b; }

std::optional<bool> get_switch(Knob k) {
  const Value v = lookup(k, Type::Switch);
  return v.is_auto ? std::nullopt : std::optional<bool>(v.b);
}

std::optional<std::int64_t> get_int(Knob k) {
  const Value v = lookup(k, Type::Int);
  return v.is_auto ? std::nullopt : std::optional<std::int64_t>(v.i);
}

double get_double(Knob k) { return lookup(k, Type::Double).d; }

std::string get_choice(Knob k) { return lookup(k, Type::Choice).s; }

std::string get_text(Knob k) { return lookup(k, Type::Text).s; }

std::optional<Shape> get_shape(Knob k) {
  const Value v = lookup(k, Type::Shape);
  return v.is_auto ? std::nullopt : std::optional<Shape>(v.shape);
}

const char* name(Knob k) { return entry(k).name; }

bool is_set(Knob k) { return env_text(entry(k)) != nullptr; }

void check_all() {
  for (const Entry& e : kTable) (void)lookup(e.knob, e.type);
}

std::string describe(bool markdown) {
  std::string out;
  if (markdown) {
    out +=
        "# Configuration (environment variables)\n\n"
        "<!-- Generated by `apsp info --config --markdown` from the table in src/core/config.cpp;\n"
        "     test_config fails when this file differs from that output. -->\n\n"
        "Every `APSP_*` variable the library and the CLI read. Unset or empty means the default.\n"
        "Booleans take 1/0/true/false/on/off/yes/no (any case). A bad value is a usage error\n"
        "(exit code 2) naming the variable, the value and what is accepted; the CLI checks them\n"
        "all before it starts. `apsp info --config` prints the values in effect.\n\n"
        "| variable | type | default | what it does |\n"
        "|---|---|---|---|\n";
    for (const Entry& e : kTable) {
      std::string type;
      for (char c : type_text(e)) type += c == '|' ? std::string("\\|") : std::string(1, c);
      out += std::string("| `") + e.name + "` | " + type + " | " +
             (*e.def ? "`" + std::string(e.def) + "`" : "-") + " | " + e.doc + " |\n";
    }
    return out;
  }
  struct Row {
    std::string name, value, type;
    const char* doc;
  };
  std::vector<Row> rows;
  std::size_t wn = 0, wv = 0, wt = 0;
  for (const Entry& e : kTable) {
    const char* text = env_text(e);
    Row r{e.name,
          text ? std::string(text) + " (env)" : (*e.def ? e.def : std::string("-")) + " (default)",
          type_text(e), e.doc};
    try {
      (void)lookup(e.knob, e.type);
    } catch (const UsageError&) {
      r.value = "'" + std::string(text ? text : e.def) + "' (env, invalid)";
    }
    wn = std::max(wn, r.name.size());
    wv = std::max(wv, r.value.size());
    wt = std::max(wt, r.type.size());
    rows.push_back(std::move(r));
  }
  auto pad = [](const std::string& s, std::size_t w) {
    return s + std::string(w + 2 - s.size(), ' ');
  };
  for (const Row& r : rows)
    out += pad(r.name, wn) + pad(r.value, wv) + pad(r.type, wt) + r.doc + "\n";
  return out;
}

}  // namespace apsp::config
