// src/io/output_prefill.cpp — OutputFile's page-cache fill ahead of the data: prefill() before
// the first write (pages touched, or zeros written, up to prefill_limit()), populate_ahead() from
// the first write on (the mapped pages past that limit faulted in a window ahead of the copies).
// docs/io.md: "How a write goes".
#include "io/output_common.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "core/config.hpp"
#include "core/host_copy.hpp"
#include "core/trace.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14 (uapi asm-generic/mman-common.h); older C libraries
#endif

namespace apsp::io {

void OutputFile::prefill() {
  if (!preallocated_ || !prefill_threads_.empty() || write_at_end_.load() > 0 || direct_) return;
  const std::string dir = std::filesystem::path(tmp_).parent_path().string();
  const int method = output_prefill_method(dir);
  // From the first whole page past what was appended (an .npy header) to the reservation's end
  // or the limit, whichever comes first.
  const std::uint64_t first = (written_ + 4095) / 4096 * 4096;
  const std::uint64_t n = std::min(reserved_, first + prefill_limit()) / 4096 * 4096;
  if (method == 0 || n <= first) return;
  int touchers = 1;
  if (method == 2) {
    if (!map_ && reserved_ <= SIZE_MAX) {
      void* p = ::mmap(nullptr, std::size_t(reserved_), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
      if (p == MAP_FAILED) return;
      map_ = static_cast<char*>(p);
    }
    if (!map_) return;
    threads_ = output_write_threads(dir, true);  // the copies into the mapping may run in parallel
    // Leave two cores to the caller (the GPU context's creation, the solve's own host work);
    // APSP_WRITE_PREFILL_THREADS sets the count.
    touchers = std::clamp(omp_get_num_procs() - 2, 1, threads_);
    if (const auto v = config::get_int(config::Knob::WritePrefillThreads))
      touchers = int(std::min<std::int64_t>(*v, 64));
  }
  prefill_method_ = method;
  prefill_start_ = std::chrono::steady_clock::now();
  if (method == 2 && n < reserved_) {
    // The rest of the file is faulted in once the data flows, a window ahead of it
    // (populate_ahead): with half the cores (the copies have the others).
    ahead_from_ = n;
    ahead_window_ = n - first;
    ahead_threads_wanted_ = std::max(1, touchers / 2);
  }
  // A backend's host threads moving data the GPU waits for come first (detail::HostBusy).
  // Returns false once the prefill is to stop.
  auto wait_while_host_busy = [this] {
    while (detail::host_busy() && !prefill_stop_.load(std::memory_order_relaxed))
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    return !prefill_stop_.load(std::memory_order_relaxed);
  };
  auto mark_end = [this] {
    const std::int64_t t = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count();
    std::int64_t seen = prefill_end_ns_.load();
    while (seen < t && !prefill_end_ns_.compare_exchange_weak(seen, t)) {
    }
  };
  try {
    if (method == 1) {
      prefill_threads_.emplace_back([this, first, n, mark_end, wait_while_host_busy] {
        static const std::vector<char> zeros(kPrefillStep, 0);
        for (std::uint64_t at = first; at < n && !prefill_stop_.load(std::memory_order_relaxed);
             at += kPrefillStep) {
          if (!wait_while_host_busy()) break;
          int err = 0;
          const std::size_t len = std::size_t(std::min(kPrefillStep, n - at));
          const std::uint64_t done =
              put_rows(fd_, std::int64_t(at), zeros.data(), 1, len, len, err);
          prefilled_ += done;
          if (err) break;  // the data's own write will meet (and report) the problem, if it lasts
        }
        mark_end();
      });
    } else {
      for (int i = 0; i < touchers; ++i)
        prefill_threads_.emplace_back(
            [this, first, n, i, touchers, mark_end, wait_while_host_busy] {
              const std::uint64_t span = n - first;
              const std::uint64_t a =
                  first + span * std::uint64_t(i) / std::uint64_t(touchers) / 4096 * 4096;
              const std::uint64_t b =
                  first + span * std::uint64_t(i + 1) / std::uint64_t(touchers) / 4096 * 4096;
              volatile char* m = map_;
              for (std::uint64_t at = a; at < b && !prefill_stop_.load(std::memory_order_relaxed);
                   at += kPrefillStep) {
                if (!wait_while_host_busy()) break;
                const std::uint64_t end = std::min(b, at + kPrefillStep);
                for (std::uint64_t k = at; k < end; k += 4096)
                  m[k] = 0;  // a write fault: page cached, dirty
                prefilled_ += end - at;
              }
              mark_end();
            });
    }
  } catch (const std::system_error&) {
    stop_prefill();  // no more threads to be had: the ones started are stopped, writes go on as
                     // usual
  }
}

void OutputFile::populate_ahead() {
  if (ahead_from_ == 0 || !map_ || !ahead_threads_.empty() || ahead_stop_.load()) return;
  ahead_next_ = ahead_from_;
  ahead_start_ = std::chrono::steady_clock::now();
  // Each thread takes the next 2 MiB piece, waits until it is within the window of the data's
  // end, and faults it in writable (dirty, in the page cache) without changing a byte, so the
  // copies into the mapping that reach it later meet no page fault. Racing a copy into the same
  // page is harmless. A failure (a kernel older than 5.14: EINVAL) ends the populating: the
  // copies fault the pages in themselves, as without it.
  try {
    for (int i = 0; i < ahead_threads_wanted_; ++i)
      ahead_threads_.emplace_back([this] {
        while (!ahead_stop_.load(std::memory_order_relaxed)) {
          const std::uint64_t at = ahead_next_.fetch_add(kPrefillStep);
          if (at >= reserved_) break;
          while (at > ahead_data_end_.load(std::memory_order_relaxed) + ahead_window_ &&
                 !ahead_stop_.load(std::memory_order_relaxed))
            std::this_thread::sleep_for(std::chrono::microseconds(200));
          if (ahead_stop_.load(std::memory_order_relaxed)) break;
          const std::size_t len = std::size_t(std::min(kPrefillStep, reserved_ - at));
          if (::madvise(map_ + at, len, MADV_POPULATE_WRITE) != 0) {
            ahead_stop_ = true;
            break;
          }
          populated_ += len;
        }
      });
  } catch (const std::system_error&) {
    stop_ahead();  // no more threads to be had: the copies fault the pages in themselves
  }
}

void OutputFile::stop_ahead() {
  if (ahead_threads_.empty()) return;
  ahead_stop_ = true;
  for (auto& t : ahead_threads_) t.join();
  ahead_threads_.clear();
  if (detail::tracing()) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - ahead_start_).count();
    const std::string line =
        "output " + path_ + ": populated " + std::to_string(populated_.load()) +
        " bytes ahead of the copies (stopped after " + std::to_string(s) + " s)";
    detail::trace(line.c_str());
  }
}

void OutputFile::stop_prefill() {
  const std::lock_guard<std::mutex> lock(prefill_m_);
  if (prefill_threads_.empty()) return;
  prefill_stop_ = true;
  for (auto& t : prefill_threads_) t.join();
  prefill_threads_.clear();
  if (detail::tracing()) {
    const double s =
        double(prefill_end_ns_.load() - std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            prefill_start_.time_since_epoch())
                                            .count()) /
        1e9;
    const std::string line =
        "output " + path_ + ": prefilled " + std::to_string(prefilled_.load()) + " of " +
        std::to_string(reserved_) + " bytes (" + (prefill_method_ == 1 ? "write" : "mmap") +
        ") in " + std::to_string(s) + " s";
    detail::trace(line.c_str());
  }
}

}  // namespace apsp::io
