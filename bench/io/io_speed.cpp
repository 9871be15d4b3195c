// bench/io/io_speed.cpp — apsp's NTHU read and write speed next to raw read()/write() of the same
// bytes on the same file system (what `dd bs=64M` does), so "disk speed" is a measured claim.
//
//   io_speed DIR [V] [E] [TRIALS]   (defaults: V = 30000, E = 5000000, TRIALS = 3)
//
// Raw and apsp trials alternate (raw, apsp, raw, apsp, ...) so both see the same disk weather;
// each line gives the median over the trials as "name | MB | median s | MB/s | all trials".
//   read-graph-{warm,cold}: read_graph of an NTHU file with E edges vs one read() of the whole
//     file into a buffer; cold = the file's cached pages dropped first (posix_fadvise DONTNEED).
//   write-nthu: write_matrix of an unpadded V x V int32 matrix vs one write() pass of its bytes;
//     "+sync" adds fdatasync, i.e. until the bytes are on the disk rather than in the page cache.
//   write-nthu-padded: the matrix has stride round_up(V, 128) (what a backend hands back), so
//     write_matrix gathers rows; write-npy: .npy of the unpadded matrix.
// sync() runs before every timed write so one trial's dirty pages do not slow the next.
// Every big file is deleted as soon as it has been measured.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/io.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double time_it(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void report(const std::string& name, double bytes, std::vector<double> t) {
  std::vector<double> s = t;
  std::sort(s.begin(), s.end());
  const double med = s[s.size() / 2];
  std::printf("%-24s | %8.1f MB | %7.3f s | %8.1f MB/s |", name.c_str(), bytes / 1e6, med,
              bytes / 1e6 / med);
  for (double x : t) std::printf(" %.3f", x);
  std::printf("\n");
  std::fflush(stdout);
}

void drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::close(fd);
}

/// What dd does: write() of 64 MiB blocks into a new file.
void raw_write(const std::string& path, const void* data, std::size_t n) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t r = ::write(fd, p, std::min<std::size_t>(n, std::size_t{64} << 20));
    if (r <= 0) {
      std::perror("write");
      std::exit(1);
    }
    p += r;
    n -= std::size_t(r);
  }
  ::close(fd);
}

/// One read() pass of a whole file into a buffer.
std::size_t raw_read(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  const auto n = std::size_t(std::filesystem::file_size(path));
  std::unique_ptr<char[]> buf(new char[n]);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, buf.get() + got, n - got);
    if (r <= 0) break;
    got += std::size_t(r);
  }
  ::close(fd);
  return got;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: io_speed DIR [V] [E] [TRIALS]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::int64_t V = argc > 2 ? std::stoll(argv[2]) : 30000;
  const std::int64_t E = argc > 3 ? std::stoll(argv[3]) : 5000000;
  const int trials = argc > 4 ? std::stoi(argv[4]) : 3;
  const std::string graph = dir + "/io_speed_graph.bin", out = dir + "/io_speed_out.bin",
                    raw = dir + "/io_speed_raw.bin", npy = dir + "/io_speed_out.npy";
  std::printf("V = %lld, E = %lld, trials = %d, dir = %s\n", (long long)V, (long long)E, trials,
              dir.c_str());
  std::printf("%-24s | %11s | %9s | %13s | trials (s)\n", "step", "size", "median", "speed");

  // ---- read an E-edge NTHU graph ----
  {
    apsp::Graph g;
    const double tg = time_it([&] { g = apsp::generate_uniform(V, E, 0, 1000, 1); });
    report("generate_uniform", double(E) * 12, {tg});
    apsp::write_graph_nthu(graph, g);
  }
  const double gbytes = double(8 + 12 * E);
  for (const bool cold : {false, true}) {
    std::vector<double> t_raw, t_apsp;
    for (int i = 0; i < trials; ++i) {
      if (cold)
        drop_cache(graph);
      else
        (void)raw_read(graph);
      t_raw.push_back(time_it([&] { (void)raw_read(graph); }));
      if (cold) drop_cache(graph);
      t_apsp.push_back(time_it([&] {
        const apsp::Graph r = apsp::read_graph(graph);
        if (std::int64_t(r.num_edges()) != E) std::exit(1);
      }));
    }
    report(std::string("raw read() ") + (cold ? "cold" : "warm"), gbytes, t_raw);
    report(std::string("read_graph ") + (cold ? "cold" : "warm"), gbytes, t_apsp);
  }
  std::filesystem::remove(graph);

  // ---- write a V x V int32 result ----
  const double bytes = double(V) * double(V) * 4;
  {
    apsp::Matrix m(V, V, apsp::Dtype::Int32);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < V; ++i)
      for (std::int64_t j = 0; j < V; ++j)
        m.at<std::int32_t>(i, j) = std::int32_t((i * 31 + j) % 1000);
    for (const bool with_sync : {false, true}) {
      std::vector<double> t_raw, t_apsp;
      for (int i = 0; i < trials; ++i) {
        ::sync();
        t_raw.push_back(time_it([&] {
          raw_write(raw, m.raw(), std::size_t(bytes));
          if (with_sync) sync_file(raw);
        }));
        std::filesystem::remove(raw);
        ::sync();
        t_apsp.push_back(time_it([&] {
          apsp::write_matrix(out, m);
          if (with_sync) sync_file(out);
        }));
        std::filesystem::remove(out);
      }
      report(std::string("raw write()") + (with_sync ? "+sync" : ""), bytes, t_raw);
      report(std::string("write_matrix nthu") + (with_sync ? "+sync" : ""), bytes, t_apsp);
    }
    std::vector<double> t_npy;
    for (int i = 0; i < trials; ++i) {
      ::sync();
      t_npy.push_back(time_it([&] { apsp::write_matrix(npy, m); }));
      std::filesystem::remove(npy);
    }
    report("write_matrix npy", bytes, t_npy);
  }
  {
    const std::int64_t stride = (V + 127) / 128 * 128;
    apsp::Matrix m(V, V, stride, stride, apsp::Dtype::Int32);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < V; ++i)
      for (std::int64_t j = 0; j < stride; ++j)
        m.at<std::int32_t>(i, j) = std::int32_t((i * 31 + j) % 1000);
    std::vector<double> t_pad;
    for (int i = 0; i < trials; ++i) {
      ::sync();
      t_pad.push_back(time_it([&] { apsp::write_matrix(out, m); }));
      std::filesystem::remove(out);
    }
    report("write_matrix nthu padded", bytes, t_pad);
  }
  return 0;
}
