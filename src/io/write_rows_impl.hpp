// src/io/write_rows_impl.hpp — the chunked parallel row writer declared in output_common.hpp.
//
// A chunk of rows is formatted by all threads into one buffer (about 64 MiB), then written with
// one OutputFile::write() (which splits it over threads into a regular file); the next chunk
// reuses the buffer. Formatting runs far above disk speed, so a second buffer to overlap the two
// would buy little (measured in bench/results/io-*.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

namespace apsp::io {

template <class Fill, class OnBad>
void write_rows(OutputFile& f, std::int64_t rows, std::size_t row_bytes, Fill&& fill,
                OnBad&& on_bad) {
  if (rows <= 0 || row_bytes == 0) return;
  constexpr std::size_t kChunkBytes = std::size_t{64} << 20;
  const std::int64_t rows_per_chunk = std::max<std::int64_t>(
      1, std::min<std::int64_t>(rows, std::int64_t(kChunkBytes / row_bytes)));
  std::unique_ptr<char[]> buf(new char[std::size_t(rows_per_chunk) * row_bytes]);
  for (std::int64_t r0 = 0; r0 < rows; r0 += rows_per_chunk) {
    const std::int64_t r1 = std::min(rows, r0 + rows_per_chunk);
    std::int64_t first_bad = r1;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
    for (std::int64_t i = r0; i < r1; ++i)
      if (!fill(i, buf.get() + std::size_t(i - r0) * row_bytes)) first_bad = std::min(first_bad, i);
    if (first_bad < r1) on_bad(first_bad);
    f.write(buf.get(), std::size_t(r1 - r0) * row_bytes);
  }
}

}  // namespace apsp::io
