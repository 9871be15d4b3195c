// src/io/gzip.cpp — gzip-compressed inputs (NAME.gz, or gzip content under any name) and outputs,
// through zlib (Debian zlib1g-dev). An input is inflated into memory as a whole, member after
// member (as gunzip reads concatenated files), and then parsed like any other input; its errors
// name the decompressed line or offset. Built without zlib, a gzip input or output is a clear
// error instead.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <new>

#include "apsp/errors.hpp"
#include "core/memory_limit.hpp"
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

constexpr std::size_t kStep = std::size_t{1} << 30;  // zlib counts in 32-bit uInt
/// The most bytes deflate makes of one compressed byte (a 258-byte match in about two bits).
constexpr std::uint64_t kMaxRatio = 1032;

/// A lower bound of the inflated size from the trailer, or 0 when the trailer is not to be
/// trusted. The last 4 bytes (ISIZE) are the last member's size mod 2^32: for a well-formed file
/// the whole data (every member; a member of 4 GiB or more has wrapped) holds at least that many
/// bytes. A truncated, damaged or zero-padded file makes them garbage, so they are taken only
/// when deflate could have made that much of the bytes there; they size nothing (no allocation
/// trusts them), they may only refuse early what inflating would refuse later.
std::uint64_t trailer_lower_bound(const InputBytes& in) {
  constexpr std::size_t kFraming = 18;  // a 10-byte header and an 8-byte trailer
  const std::size_t n = in.size();
  if (n < kFraming + 2) return 0;
  const unsigned char* t = in.bytes() + n - 4;
  const std::uint64_t isize = std::uint64_t(t[0]) | std::uint64_t(t[1]) << 8 |
                              std::uint64_t(t[2]) << 16 | std::uint64_t(t[3]) << 24;
  return isize <= kMaxRatio * (n - kFraming) ? isize : 0;
}

}  // namespace

std::vector<unsigned char> gunzip(const InputBytes& in) {
  // The inflated bytes may take no more than the host memory available (core/memory_limit: a
  // gzip bomb stops here with a message instead of the kernel's OOM killer). They are inflated
  // into chunks (ByteChunks: growing never holds two copies), with no allocation sized from the
  // trailer's ISIZE (a damaged or truncated file makes it garbage); a plausible ISIZE beyond the
  // memory refuses at once (trailer_lower_bound). Graph data whose first 8
  // inflated bytes are a binary NTHU header stop as soon as they are known to be invalid (V < 1,
  // E < 0: read_nthu says why), to promise more than the memory holds, or to run past the size
  // the header gives.
  const std::string& file = in.path();
  const std::size_t n = in.size();
  // Half of it, as docs/io.md says: the edges parsed from the bytes need memory too
  // (check_edge_memory).
  detail::MemoryLimit mem = detail::host_memory_limit();
  const std::string whole_source = mem.source;
  mem.source = "half of " + mem.source;
  const std::uint64_t limit = mem.bytes / 2;
  ByteChunks out;
  std::uint64_t stop = UINT64_MAX;  // the size an NTHU header promises, once known
  bool sniffed = false;
  // Text (no NUL in its first 8 bytes, not NumPy's magic): its lines so far, counted as
  // check_edge_memory counts them, so that text whose edges cannot fit beside it stops as soon as
  // that is known instead of after the last byte.
  bool text = false;
  std::uint64_t lines = 1;
  auto count_lines = [&lines](const unsigned char* p, std::size_t k) {
    for (const unsigned char* end = p + k;
         (p = static_cast<const unsigned char*>(std::memchr(p, '\n', std::size_t(end - p)))); ++p)
      ++lines;
  };
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw std::bad_alloc();
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  std::size_t in_pos = 0, out_pos = 0;
  bool member_done = false;
  for (;;) {
    if (!sniffed && out_pos >= 8) {
      sniffed = true;
      const std::uint64_t want = nthu_stream_size(file, out.front(), limit, mem.source);
      if (want == 1) return out.take(8);  // read_nthu rejects the header
      if (want > 1) stop = want;
      const unsigned char* head = out.front();
      text =
          stop == UINT64_MAX && !std::memchr(head, 0, 8) && std::memcmp(head, "\x93NUMPY", 6) != 0;
      if (text) count_lines(head, 8);
      // Not NTHU (whose header bounds the data): a trailer promising more than the memory
      // refuses now, not after inflating `limit` bytes.
      const std::uint64_t least = stop == UINT64_MAX ? trailer_lower_bound(in) : 0;
      if (least > limit)
        throw ResourceError(file + ": the gzip trailer says the data decompresses to at least " +
                            std::to_string(least) + " bytes, more than the " +
                            std::to_string(limit) + " bytes of memory available for it (" +
                            mem.source + "; if the file may be damaged, check it with gzip -t)");
    }
    if (out_pos > stop)
      fail_at_offset(file, std::size_t(stop),
                     "more decompressed data than the NTHU header promises (" +
                         std::to_string(stop) + " bytes)");
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
    if (out_pos >= limit)
      throw ResourceError(file + ": decompressed offset " + std::to_string(out_pos) +
                          ": the decompressed data is larger than the " + std::to_string(limit) +
                          " bytes of memory available for it (" + mem.source + ")");
    std::uint64_t most = limit - out_pos;
    if (!sniffed) most = std::min<std::uint64_t>(most, 8 - out_pos);
    if (stop != UINT64_MAX) most = std::min<std::uint64_t>(most, stop + 1 - out_pos);
    std::size_t avail = 0;
    unsigned char* at = out.room(avail, std::size_t(std::min<std::uint64_t>(most, SIZE_MAX)));
    zs.next_in = const_cast<unsigned char*>(in.bytes() + in_pos);
    zs.avail_in = uInt(std::min(kStep, n - in_pos));
    zs.next_out = at;
    zs.avail_out = uInt(std::min<std::uint64_t>({kStep, avail, most}));
    const uInt had_in = zs.avail_in, had_out = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += had_in - zs.avail_in;
    out.added(had_out - zs.avail_out);
    out_pos += had_out - zs.avail_out;
    if (text) {
      count_lines(at, had_out - zs.avail_out);
      const std::uint64_t need = out_pos + lines * kEdgeLineBytes;
      if (need > mem.bytes)
        throw ResourceError(file + ": decompressed offset " + std::to_string(out_pos) + ": " +
                            std::to_string(lines) + " lines of edges so far may need " +
                            std::to_string(need) + " bytes with the input held in memory, " +
                            "more than the " + std::to_string(mem.bytes) + " bytes available (" +
                            whole_source + "; set APSP_HOST_MEMORY to override)");
    }
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
  return out.take();
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
