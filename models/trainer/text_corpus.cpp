#include "models/trainer/text_corpus.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "core/config_error.h"

namespace kp {

namespace {

std::vector<uint8_t> read_all(const std::string& path) {
  if (std::FILE* f = std::fopen(path.c_str(), "rb"))
    std::fclose(f);
  else
    throw ConfigError(path, "cannot open the text corpus (missing or unreadable); Debian's "
                            "dict-gcide package installs the default one: apt-get install "
                            "dict-gcide");
  std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzopen(path.c_str(), "rb"), gzclose);
  if (!gz) throw ConfigError(path, "cannot open the text corpus");
  gzbuffer(gz.get(), 1 << 18);
  std::vector<uint8_t> out;
  constexpr unsigned kChunk = 1u << 20;
  for (;;) {
    const size_t at = out.size();
    out.resize(at + kChunk);
    const int r = gzread(gz.get(), out.data() + at, kChunk);
    int code = Z_OK;
    const char* msg = gzerror(gz.get(), &code);
    if (r < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      if (code == Z_BUF_ERROR)
        throw ConfigError(path, "truncated text corpus: the gzip stream ends early after " +
                                    std::to_string(at + size_t(std::max(r, 0))) + " bytes");
      throw ConfigError(path, std::string("corrupt text corpus: ") + msg);
    }
    out.resize(at + size_t(r));
    if (r == 0) break;
  }
  return out;
}

}  // namespace

TextCorpus load_text_corpus(const std::string& path, int64_t block_bytes, int every) {
  if (block_bytes < 1 || every < 2)
    throw ConfigError(path, "internal: block_bytes must be >= 1 and every >= 2");
  TextCorpus c;
  c.path = path;
  const std::vector<uint8_t> all = read_all(path);
  const int64_t n = static_cast<int64_t>(all.size());
  if (n < block_bytes * every)
    throw ConfigError(path, "expected a text corpus of at least " +
                                std::to_string(block_bytes * every) + " bytes (" +
                                std::to_string(every) + " blocks of " +
                                std::to_string(block_bytes) + "), got " + std::to_string(n));
  for (int64_t b = 0; b * block_bytes < n; ++b) {
    std::vector<uint8_t>& to = b % every == every - 1 ? c.validation : c.train;
    const int64_t lo = b * block_bytes, hi = std::min(n, lo + block_bytes);
    to.insert(to.end(), all.begin() + lo, all.begin() + hi);
  }
  double count[256] = {};
  for (uint8_t v : c.train) count[v] += 1;
  for (double k : count)
    if (k > 0) {
      const double p = k / double(c.train.size());
      c.unigram_bits -= p * std::log2(p);
    }
  return c;
}

}  // namespace kp
