// apps/ceilings.cpp — the cache of `apsp bench`'s ceilings for `apsp info` (ceilings.hpp).
// Lines: date, machine, subject, dtype, value, unit (tab-separated). Written to a temporary file
// beside the cache and renamed, so a reader never sees half a file.
#include "ceilings.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace apsp_cli {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream in(line);
  for (std::string x; std::getline(in, x, '\t');) f.push_back(x);
  return f;
}

/// This machine: host name and CPU model (/proc/cpuinfo), as one field.
std::string machine() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  std::string cpu = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  for (char& c : cpu)
    if (c == '\t') c = ' ';
  return std::string(host) + ", " + cpu;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (split_tabs(line).size() == 6) lines.push_back(line);
  return lines;
}

}  // namespace

std::string ceilings_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string base = xdg && *xdg ? xdg : std::string(home && *home ? home : ".") + "/.cache";
  return base + "/apsp/ceilings.tsv";
}

void record_ceiling(const std::string& subject, const std::string& dtype, double value,
                    const std::string& unit) {
  const std::string path = ceilings_path(), me = machine();
  std::vector<std::string> keep;
  for (const std::string& line : read_lines(path)) {
    const auto f = split_tabs(line);
    if (!(f[1] == me && f[2] == subject && f[3] == dtype)) keep.push_back(line);
  }
  char figure[32];
  std::snprintf(figure, sizeof figure, "%.3g", value);
  keep.push_back(today() + "\t" + me + "\t" + subject + "\t" + dtype + "\t" + figure + "\t" + unit +
                 " updates/s");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    for (const std::string& line : keep) out << line << "\n";
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

void print_ceilings(std::ostream& out) {
  const std::string path = ceilings_path(), me = machine();
  std::vector<std::vector<std::string>> mine;
  for (const std::string& line : read_lines(path))
    if (split_tabs(line)[1] == me) mine.push_back(split_tabs(line));
  if (mine.empty()) {
    out << "\nmin-plus ceilings: none measured on this machine (" << me << ").\n"
        << "  `apsp bench --backend cpu` (and `--backend cuda` where a GPU is) measures them and"
           " keeps\n  them for `apsp info` in "
        << path << "; bench/results/ in the source tree holds figures of other machines.\n";
    return;
  }
  out << "\nmin-plus ceilings measured on this machine (" << me << "; `apsp bench`, " << path
      << "):\n";
  for (const auto& f : mine) {
    char line[160];
    std::snprintf(line, sizeof line, "  %s  %-28s %-8s %s %s\n", f[0].c_str(), f[2].c_str(),
                  f[3].c_str(), f[4].c_str(), f[5].c_str());
    out << line;
  }
}

}  // namespace apsp_cli
