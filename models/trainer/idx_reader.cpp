#include "models/trainer/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>

#include "core/config_error.h"

namespace kp {

namespace {

// gzread reads plain files transparently too; its errors are reported with the file name.
class GzFile {
 public:
  explicit GzFile(const std::string& path) : m_path(path) {
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
      std::fclose(f);
    } else {
      throw ConfigError(path, "cannot open IDX file (missing or unreadable)");
    }
    m_gz = gzopen(path.c_str(), "rb");
    if (!m_gz) throw ConfigError(path, "cannot open IDX file");
    gzbuffer(m_gz, 1 << 18);
  }
  ~GzFile() {
    if (m_gz) gzclose(m_gz);
  }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Reads exactly n bytes or throws, saying how many were missing.
  // `before` and `whole` only make the message count from the start of a part read in chunks.
  void read_exact(void* dst, size_t n, const char* what, size_t before = 0, size_t whole = 0) {
    auto* out = static_cast<unsigned char*>(dst);
    size_t got = 0;
    while (got < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
      const int r = gzread(m_gz, out + got, chunk);
      if (r < 0) fail(what);
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    if (got < n) {
      check_error(what);
      throw ConfigError(m_path, std::string("truncated IDX file: ") + what + " needs " +
                                    std::to_string(whole ? whole : n) + " bytes, only " +
                                    std::to_string(before + got) + " present");
    }
  }
  bool at_end() {
    unsigned char c;
    const int r = gzread(m_gz, &c, 1);
    if (r < 0) fail("trailing data");
    return r == 0;
  }
  void check_error(const char* what) {
    int code = Z_OK;
    gzerror(m_gz, &code);
    if (code != Z_OK && code != Z_STREAM_END) fail(what);
  }

 private:
  [[noreturn]] void fail(const char* what) {
    int code = 0;
    const char* msg = gzerror(m_gz, &code);
    throw ConfigError(m_path, std::string("corrupt gzip data while reading ") + what + ": " +
                                  (msg ? msg : "unknown zlib error"));
  }
  std::string m_path;
  gzFile m_gz = nullptr;
};

}  // namespace

IdxArray read_idx(const std::string& path) {
  GzFile f(path);
  unsigned char magic[4];
  f.read_exact(magic, 4, "the header");
  if (magic[0] != 0 || magic[1] != 0 || magic[3] < 1 || magic[3] > 4)
    throw ConfigError(path, "not an IDX file (bad magic number)");
  if (magic[2] != 0x08)
    throw ConfigError(path, "IDX element type " + std::to_string(magic[2]) +
                                " is not supported (only 0x08, unsigned byte)");
  IdxArray a;
  int64_t total = 1;
  for (int i = 0; i < magic[3]; ++i) {
    unsigned char d[4];
    f.read_exact(d, 4, "the dimensions");
    const int64_t dim = (int64_t{d[0]} << 24) | (int64_t{d[1]} << 16) | (int64_t{d[2]} << 8) | d[3];
    if (dim <= 0 || dim > (int64_t{1} << 28))
      throw ConfigError(path, "IDX dimension " + std::to_string(i) + " is " + std::to_string(dim));
    a.dims.push_back(dim);
    total *= dim;
    if (total > (int64_t{1} << 34)) throw ConfigError(path, "IDX file is implausibly large");
  }
  // Grown as the data arrives: a corrupt or truncated header that claims gigabytes fails on the
  // bytes that are missing, not on allocating memory for them.
  constexpr size_t kChunk = size_t{1} << 24;
  const size_t want = static_cast<size_t>(total);
  while (a.data.size() < want) {
    const size_t have = a.data.size(), n = std::min(kChunk, want - have);
    a.data.resize(have + n);
    f.read_exact(a.data.data() + have, n, "the data", have, want);
  }
  if (!f.at_end()) throw ConfigError(path, "IDX file has trailing data after its last element");
  f.check_error("the end of the file");
  return a;
}

}  // namespace kp
