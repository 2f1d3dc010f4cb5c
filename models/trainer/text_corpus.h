#pragma once
// Byte-level text for the causal LM (text_trainer.h). Contract: the corpus is read whole (gzip
// or plain: zlib reads both), split into blocks of block_bytes with every `every`-th block
// (index % every == every - 1) held out for validation, the rest, in order, for training: a
// fixed split that samples the whole corpus (a dictionary runs A to Z; an end slice would
// validate on W-Z only). Missing, unreadable, corrupt (bad gzip data or CRC) or truncated
// files, and corpora too small to split, are a ConfigError naming the file.
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

// Debian's dict-gcide: The Collaborative International Dictionary of English 0.48 (dictd
// format, dictzip = gzip): 13,527,370 bytes compressed, 39,952,321 bytes of text.
constexpr const char* kGcidePath = "/usr/share/dictd/gcide.dict.dz";

struct TextCorpus {
  std::string path;
  std::vector<uint8_t> train, validation;
  // The entropy of the training bytes' frequencies, in bits per character: what a model that
  // learnt only the unigram distribution scores on matching text.
  double unigram_bits = 0;
};

TextCorpus load_text_corpus(const std::string& path, int64_t block_bytes = 65536,
                            int every = 20);

}  // namespace kp
