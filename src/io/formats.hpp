// src/io/formats.hpp — what the format files share beyond input_common.hpp: the bytes a reader
// parses (InputBytes: a whole InputFile, or a buffer inflated from a .gz), the readers on them,
// gzip (gzip.cpp), content sniffing for names that do not say the format (sniff.cpp), and the
// graph writers' name check and output (io.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/io.hpp"
#include "io/input_common.hpp"

namespace apsp::io {

/// A non-owning view of an input's bytes plus the name errors should give.
class InputBytes {
 public:
  InputBytes(const std::string& path, const unsigned char* data, std::size_t size)
      : path_(&path), data_(data), size_(size) {}
  explicit InputBytes(const InputFile& f) : InputBytes(f.path(), f.bytes(), f.size()) {}

  const std::string& path() const { return *path_; }
  const unsigned char* bytes() const { return data_; }
  const char* chars() const { return reinterpret_cast<const char*>(data_); }
  std::size_t size() const { return size_; }

 private:
  const std::string* path_;
  const unsigned char* data_;
  std::size_t size_;
};

// ---- the readers (one file each; input_common.hpp's InputFile overloads forward here) -----------

Graph read_nthu(const InputBytes& in);
Graph read_dimacs(const InputBytes& in);
Graph read_mtx(const InputBytes& in);
/// Reads ids or names (options.names), V from options.num_vertices or the file, SNAP headers
/// (options.directed, options.warning); format, undirected and unweighted are read_graph()'s.
Graph read_edgelist(const InputBytes& in, const ReadOptions& options = {});
Matrix read_matrix_nthu(const InputBytes& in);
Matrix read_matrix_npy(const InputBytes& in);
Matrix read_matrix_text(const InputBytes& in);

// ---- input bytes read piece by piece (streams, gzip) --------------------------------------------

/// Bytes that arrive piece by piece (a pipe, an inflating .gz), held in chunks that grow from
/// 64 KiB to 64 MiB, so that growing never copies (or holds twice) what came before; take()
/// joins them once, freeing each chunk as it is copied: the peak is the data plus one chunk.
class ByteChunks {
 public:
  static constexpr std::size_t kFirst = std::size_t{1} << 16, kLast = std::size_t{1} << 26;
  /// Room for more bytes (a new chunk when the last is full): at most `most` (>= 1) new bytes
  /// are allocated.
  unsigned char* room(std::size_t& avail, std::size_t most) {
    if (chunks_.empty() || used_ == chunks_.back().size()) {
      const std::size_t next =
          chunks_.empty() ? kFirst : std::min(kLast, 2 * chunks_.back().size());
      chunks_.emplace_back(std::max<std::size_t>(1, std::min(next, most)));
      used_ = 0;
    }
    avail = chunks_.back().size() - used_;
    return chunks_.back().data() + used_;
  }
  void added(std::size_t k) {
    used_ += k;
    size_ += k;
  }
  std::size_t size() const { return size_; }
  /// The first bytes (the first chunk holds at least kFirst of them, or all there are).
  const unsigned char* front() const { return chunks_.empty() ? nullptr : chunks_[0].data(); }
  /// All the bytes, the first `keep` of them at most, as one vector.
  std::vector<unsigned char> take(std::size_t keep = SIZE_MAX) {
    const std::size_t total = std::min(size_, keep);
    std::vector<unsigned char> out;
    if (chunks_.size() == 1) {
      out = std::move(chunks_[0]);
      out.resize(total);
    } else {
      out.reserve(total);  // pages are touched only as the chunks are copied in and freed
      for (auto& c : chunks_) {
        const std::size_t k = std::min(c.size(), total - out.size());
        out.insert(out.end(), c.begin(), c.begin() + std::ptrdiff_t(k));
        std::vector<unsigned char>().swap(c);
      }
    }
    chunks_.clear();
    size_ = used_ = 0;
    return out;
  }

 private:
  std::vector<std::vector<unsigned char>> chunks_;
  std::size_t used_ = 0, size_ = 0;
};

/// The first 8 bytes of a graph input read piece by piece (input_file.cpp): 0 when they are no
/// NTHU header (gzip magic, or no NUL byte: text), 1 when they are one that read_nthu rejects
/// (V < 1 or E < 0: keep these 8 bytes and let it say why), else the size the header promises,
/// 8 + 12 E. Throws ResourceError naming the file and offset 4 when that size and the 16 bytes an
/// edge of the Graph read from it are more than the `cap` bytes of memory available (`source`
/// says what limits them).
std::uint64_t nthu_stream_size(const std::string& file, const unsigned char* head,
                               std::uint64_t cap, const std::string& source);

// ---- gzip (gzip.cpp) ---------------------------------------------------------------------------

/// Memory a line of text may take once read as an edge (16 bytes an edge, twice while the edge
/// list reader joins its pieces): read_graph's check_edge_memory and gunzip count lines so.
inline constexpr std::uint64_t kEdgeLineBytes = 32;

/// True when the bytes start with the gzip magic 1f 8b.
bool is_gzip(const InputBytes& in);
/// The decompressed bytes of a gzip file (several members are concatenated, as gunzip does).
/// Throws InputError naming the file and the compressed offset for corrupt or truncated data, and
/// when apsp was built without zlib. Throws ResourceError once the inflated bytes pass half the
/// memory, or (text) they and their lines read as edges (kEdgeLineBytes each) pass all of it.
std::vector<unsigned char> gunzip(const InputBytes& in);
/// `data` compressed as one gzip member (for writing NAME.gz). Throws Error without zlib.
std::vector<unsigned char> gzip_compress(const void* data, std::size_t n, const std::string& path);
/// True when the path ends in ".gz" (any case).
bool has_gz_suffix(const std::string& path);
/// The path without a final ".gz" (unchanged when there is none).
std::string strip_gz_suffix(const std::string& path);

// ---- content sniffing (sniff.cpp) --------------------------------------------------------------

/// The graph format of decompressed bytes whose name does not say it: NTHU binary when the size
/// is exactly 8 + 12E for the header's E; else, for printable text, DIMACS ('c'/'p sp'/'a' lines),
/// Matrix Market (the %%MatrixMarket banner) or an edge list ('u v [w]' lines, after comments
/// and at most one header line). `nthu_name`: the name looks like an NTHU file (no extension,
/// .bin, a course name like c01.1), so binary content that fails the size test is still given to
/// the NTHU reader for its precise message. Otherwise throws InputError "unknown format".
InputFormat sniff_graph_format(const InputBytes& in, bool nthu_name);
/// Throws InputError when `in` starts with NumPy's magic (a matrix, not a graph), whatever its
/// name or the format asked.
void refuse_npy(const InputBytes& in);
/// True when the first 64 KiB hold only printable ASCII, blanks, line ends and bytes >= 0x80.
bool looks_like_text(const InputBytes& in);
/// looks_like_text, and the bytes >= 0x80 form UTF-8 sequences (checked loosely: lead and
/// continuation bytes). For a result matrix, whose text form is ASCII: an NTHU next-hop matrix of
/// -1 only (no arcs) is all 0xFF bytes, printable for looks_like_text but never UTF-8.
bool looks_like_utf8_text(const InputBytes& in);
/// True when the bytes could be an NTHU graph: V >= 1, E >= 0 and exactly 8 + 12E bytes.
bool has_nthu_size(const InputBytes& in);
/// True when the first line starts with the Matrix Market banner `%%MatrixMarket` (any case).
bool has_mtx_banner(const InputBytes& in);
/// Throws InputError when a `%%MatrixMarket` banner comes before the first data line but not at
/// the very start (after blank lines, comments, blanks, a second byte-order mark): read as an
/// edge list, its size line would become an edge.
void refuse_misplaced_mtx_banner(const InputBytes& in);
/// The bytes after a leading UTF-8 byte-order mark (EF BB BF, which Windows editors put before
/// text), or all of them when there is none.
InputBytes skip_utf8_bom(const InputBytes& in);

// ---- graph writers' shared pieces (io.cpp) -----------------------------------------------------

/// Throws UsageError when `path` names another format than `f` (.gr, .mtx, an edge-list
/// extension) or a matrix (.npy): what is written must read back as the same graph.
void check_graph_path(const std::string& path, GraphFormat f);
/// Writes a whole graph file (gzip-compressed first for NAME.gz), atomically.
void write_graph_file(const std::string& path, const void* data, std::size_t n);
/// The lower-case extension of the file name in `path` (".gr"; "" for none).
std::string lower_extension(const std::string& path);

}  // namespace apsp::io
