// src/io/gzip.cpp — gzip-compressed inputs (NAME.gz, or gzip content under any name) and outputs,
// through zlib (Debian zlib1g-dev). An input is inflated into memory as a whole, member after
// member (as gunzip reads concatenated files), and then parsed like any other input; its errors
// name the decompressed line or offset. Built without zlib, a gzip input or output is a clear
// error instead.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <new>

#include "apsp/errors.hpp"
#include "io/formats.hpp"

#if defined(APSP_HAVE_ZLIB)
#include <zlib.h>
#endif

namespace apsp::io {

bool is_gzip(const InputBytes& in) {
  return in.size() >= 2 && in.bytes()[0] == 0x1f && in.bytes()[1] == 0x8b;
}

bool has_gz_suffix(const std::string& path) {
  if (path.size() < 4) return false;
  const std::string_view tail(path.data() + path.size() - 3, 3);
  return tail[0] == '.' && std::tolower(static_cast<unsigned char>(tail[1])) == 'g' &&
         std::tolower(static_cast<unsigned char>(tail[2])) == 'z' && path[path.size() - 4] != '/';
}

std::string strip_gz_suffix(const std::string& path) {
  return has_gz_suffix(path) ? path.substr(0, path.size() - 3) : path;
}

#if defined(APSP_HAVE_ZLIB)

namespace {

/// The most a decompressed input may take: half the physical memory (a gzip bomb stops here with
/// a message instead of the kernel's OOM killer).
std::size_t inflate_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) / 2
                               : std::numeric_limits<std::size_t>::max();
}

constexpr std::size_t kStep = std::size_t{1} << 30;  // zlib counts in 32-bit uInt

}  // namespace

std::vector<unsigned char> gunzip(const InputBytes& in) {
  const std::string& file = in.path();
  const std::size_t n = in.size();
  const std::size_t limit = inflate_limit();
  std::vector<unsigned char> out;
  // The trailer's ISIZE is the last member's size mod 2^32: a hint for the first allocation.
  if (n >= 18) {
    const unsigned char* t = in.bytes() + n - 4;
    const std::size_t hint = std::size_t(t[0]) | std::size_t(t[1]) << 8 | std::size_t(t[2]) << 16 |
                             std::size_t(t[3]) << 24;
    // Deflate expands at most ~1032:1, so a damaged trailer cannot ask for more than that.
    const std::size_t most = n > limit / 1032 ? limit : n * 1032;
    out.resize(
        std::min({hint + 1, most, limit}));  // one byte more: a full buffer means "more to come"
  }
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw std::bad_alloc();
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  std::size_t in_pos = 0, out_pos = 0;
  bool member_done = false;
  for (;;) {
    if (member_done) {
      // Another member follows (concatenated .gz files), or zero padding (some tape tools), or
      // the data is complete.
      if (in_pos == n) break;
      const unsigned char* rest = in.bytes() + in_pos;
      if (n - in_pos >= 2 && rest[0] == 0x1f && rest[1] == 0x8b) {
        inflateReset(&zs);
        member_done = false;
      } else if (std::all_of(rest, rest + (n - in_pos), [](unsigned char c) { return c == 0; })) {
        break;
      } else {
        fail_at_offset(file, in_pos, "unexpected bytes after the end of the gzip data");
      }
    }
    if (out_pos == out.size()) {
      if (out.size() >= limit)
        throw ResourceError(file + ": decompressed data exceeds " + std::to_string(limit) +
                            " bytes (half of this machine's memory)");
      out.resize(std::min(limit, std::max<std::size_t>(out.size() * 2, std::size_t{1} << 20)));
    }
    zs.next_in = const_cast<unsigned char*>(in.bytes() + in_pos);
    zs.avail_in = uInt(std::min(kStep, n - in_pos));
    zs.next_out = out.data() + out_pos;
    zs.avail_out = uInt(std::min(kStep, out.size() - out_pos));
    const uInt had_in = zs.avail_in, had_out = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += had_in - zs.avail_in;
    out_pos += had_out - zs.avail_out;
    if (rc == Z_STREAM_END) {
      member_done = true;
      continue;
    }
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
      fail_at_offset(file, in_pos,
                     std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "inflate failed"));
    if (in_pos == n && zs.avail_out > 0)  // inflate stopped for want of input
      fail_at_offset(file, n,
                     "the gzip data ends early (truncated file) after " + std::to_string(out_pos) +
                         " decompressed bytes");
    if (had_in == zs.avail_in && had_out == zs.avail_out)
      fail_at_offset(file, in_pos, "corrupt gzip data: inflate makes no progress");
  }
  out.resize(out_pos);
  out.shrink_to_fit();
  return out;
}

std::vector<unsigned char> gzip_compress(const void* data, std::size_t n, const std::string& path) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
  struct End {
    z_stream* z;
    ~End() { deflateEnd(z); }
  } end{&zs};
  std::vector<unsigned char> out(std::max<std::size_t>(n / 4, 4096));
  std::size_t in_pos = 0, out_pos = 0;
  for (;;) {
    if (out.size() - out_pos < 4096) out.resize(out.size() * 2);
    zs.next_in = const_cast<unsigned char*>(static_cast<const unsigned char*>(data) + in_pos);
    zs.avail_in = uInt(std::min(kStep, n - in_pos));
    zs.next_out = out.data() + out_pos;
    zs.avail_out = uInt(std::min(kStep, out.size() - out_pos));
    const uInt had_in = zs.avail_in, had_out = zs.avail_out;
    const bool last = n - in_pos == zs.avail_in;
    const int rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
    in_pos += had_in - zs.avail_in;
    out_pos += had_out - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) throw Error(path + ": gzip compression failed");
  }
  out.resize(out_pos);
  return out;
}

#else  // built without zlib

std::vector<unsigned char> gunzip(const InputBytes& in) {
  fail_at_offset(in.path(), 0,
                 "the file is gzip-compressed, but this apsp was built without zlib "
                 "(apt-get install zlib1g-dev and rebuild, or gunzip it first)");
}

std::vector<unsigned char> gzip_compress(const void*, std::size_t, const std::string& path) {
  throw UsageError(path +
                   ": cannot write .gz: this apsp was built without zlib (apt-get install "
                   "zlib1g-dev and rebuild)");
}

#endif

}  // namespace apsp::io
