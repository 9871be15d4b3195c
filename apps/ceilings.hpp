// apps/ceilings.hpp — the min-plus ceilings `apsp bench` measured on this machine, kept for
// `apsp info`: one tab-separated line per (machine, subject, dtype) in
// $XDG_CACHE_HOME/apsp/ceilings.tsv (~/.cache when unset), dated. A machine is its host name
// and CPU model; `apsp info` shows only this machine's lines, never figures from elsewhere.
#pragma once

#include <ostream>
#include <string>

namespace apsp_cli {

/// The cache file's path.
std::string ceilings_path();
/// Records `value` (`unit`: "G" or "T" updates/s) for `subject` ("cpu avx512, 2 threads",
/// "cuda NVIDIA H200") and `dtype` with today's date, replacing this machine's older line.
/// Best effort: a cache that cannot be written is left as it is.
void record_ceiling(const std::string& subject, const std::string& dtype, double value,
                    const std::string& unit);
/// `apsp info`'s section: this machine's cached ceilings, or how to measure them.
void print_ceilings(std::ostream& out);

}  // namespace apsp_cli
