// src/io/output_policy.cpp — how an output is written on this file system: threads, mapping,
// preallocation, prefill method and limit (APSP_WRITE_* settings, else by statfs type; the
// measurements behind the defaults: docs/io.md "Why these defaults").
#include "io/output_common.hpp"

#include <omp.h>
#include <sys/statfs.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/config.hpp"

namespace apsp::io {

namespace {
/// statfs() f_type of the file system holding `dir` (0 if unknown).
unsigned long fs_type(const std::string& dir) {
  struct statfs fs {};
  return ::statfs(dir.empty() ? "." : dir.c_str(), &fs) == 0 ? static_cast<unsigned long>(fs.f_type)
                                                             : 0;
}
constexpr unsigned long kExt4 = 0xEF53, kXfs = 0x58465342, kBtrfs = 0x9123683E, kTmpfs = 0x01021994,
                        kF2fs = 0xF2F52010;
}  // namespace

bool output_write_mapped() { return config::get_choice(config::Knob::WriteMethod) == "mmap"; }

int output_write_threads(const std::string& dir, bool mapped) {
  if (const auto v = config::get_int(config::Knob::WriteThreads))  // 0 or 1: one write at a time
    return int(std::clamp<std::int64_t>(*v, 1, 1024));
  // These file systems hold the inode lock for the whole of a buffered write() (ext4, xfs, btrfs,
  // tmpfs, f2fs in Linux 6.x), so writes into one file from several threads take turns: measured
  // no faster on ext4 (dev/io/write_probe, docs/io.md). One thread there; elsewhere, up to 16.
  // (Page faults on a shared mapping are not serialised that way: mapped, up to 16 threads.)
  const int many = std::min(std::max(1, omp_get_num_procs()), 16);
  if (mapped) return many;
  switch (fs_type(dir)) {
    case kExt4:
    case kXfs:
    case kBtrfs:
    case kTmpfs:
    case kF2fs:
      return 1;
    default:
      return many;
  }
}

bool output_preallocates(const std::string& dir) {
  if (const auto on = config::get_switch(config::Knob::WritePreallocate)) return *on;
  // ext4 (same magic as ext2/3): a write into preallocated blocks skips the per-block delayed-
  // allocation bookkeeping (1.5x faster into the page cache), and rename() over an old output no
  // longer starts writeback of the whole new file first (ext4's auto_da_alloc). Elsewhere
  // unmeasured (and on tmpfs fallocate would zero every page before the copy), so off.
  return fs_type(dir) == kExt4;
}

int output_prefill_method(const std::string& dir) {
  const std::string how = config::get_choice(config::Knob::WritePrefill);
  if (how != "auto") return how == "mmap" ? 2 : how == "write" ? 1 : 0;
  // ext4 (where files are preallocated: output_preallocates): a buffered write() into a new file
  // runs at 3.3-3.9 GB/s on the H200 host and at 4.4-5.2 GB/s over prefilled pages, so the write
  // path, not getting pages, is its cost; copying into a mapping whose pages were touched first
  // runs at 24-35 GB/s from 8-14 threads (dev/io/write_probe --only prefill; docs/io.md). The
  // blocks are allocated (fallocate) and every page is dirtied by the prefill, so the copy's page
  // faults do no I/O and cannot run out of space: no SIGBUS that write() would have reported.
  return fs_type(dir) == kExt4 ? 2 : 0;
}

std::uint64_t prefill_limit() {
  if (const auto v = config::get_int(config::Knob::WritePrefillLimit)) return std::uint64_t(*v);
  auto number = [](const char* path) -> std::uint64_t {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    const int got = std::fscanf(f, "%llu", &v);
    std::fclose(f);
    return got == 1 ? std::uint64_t(v) : 0;
  };
  if (const std::uint64_t b = number("/proc/sys/vm/dirty_background_bytes")) return b / 2;
  const std::uint64_t ratio = number("/proc/sys/vm/dirty_background_ratio");
  std::uint64_t avail_kb = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        avail_kb = kb;
        break;
      }
    std::fclose(f);
  }
  return avail_kb * 1024 / 100 * ratio / 2;
}

}  // namespace apsp::io
