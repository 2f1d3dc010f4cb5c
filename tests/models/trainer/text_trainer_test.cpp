// The text corpus loader (split, unigram entropy, its errors), the transformer network's
// gradients, and the byte-level LM trial: deterministic, and it learns.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "models/trainer/text_trainer.h"

namespace kp {
namespace {

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "kp_text_trainer_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string write_plain(const std::string& name, const std::string& text) {
  const std::string p = scratch(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string write_gzip(const std::string& name, const std::string& text) {
  const std::string p = scratch(name);
  gzFile gz = gzopen(p.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  return p;
}

std::string error_of(const std::string& path) {
  try {
    load_text_corpus(path, 64, 4);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// 16 blocks of 64 bytes, block b filled with letter 'a' + b: blocks 3, 7, 11, 15 validate.
TEST(TextCorpus, EveryNthBlockValidates) {
  std::string text;
  for (int b = 0; b < 16; ++b) text += std::string(64, char('a' + b));
  const TextCorpus c = load_text_corpus(write_gzip("blocks.gz", text), 64, 4);
  ASSERT_EQ(c.train.size(), 12u * 64);
  ASSERT_EQ(c.validation.size(), 4u * 64);
  EXPECT_EQ(c.validation[0], 'd');
  EXPECT_EQ(c.validation[64], 'h');
  EXPECT_EQ(c.train[3 * 64], 'e');  // training blocks in order: a b c e ...
  EXPECT_NEAR(c.unigram_bits, std::log2(12.0), 1e-12);  // 12 letters, equally often
}

TEST(TextCorpus, PlainTextReadsToo) {
  const TextCorpus c = load_text_corpus(write_plain("plain.txt", std::string(256, 'x')), 64, 4);
  EXPECT_EQ(c.train.size() + c.validation.size(), 256u);
  EXPECT_EQ(c.unigram_bits, 0.0);
}

TEST(TextCorpus, MissingFileGivesTheAptHint) {
  const std::string p = scratch("no_such_corpus.dict.dz");
  EXPECT_EQ(error_of(p), p + ": error: cannot open the text corpus (missing or unreadable); "
                             "Debian's dict-gcide package installs the default one: apt-get "
                             "install dict-gcide");
}

TEST(TextCorpus, TruncatedAndCorruptGzipAreErrors) {
  std::string text;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 4096; ++i) text += char('a' + rng() % 26);
  const std::string whole = write_gzip("whole.gz", text);
  std::ifstream in(whole, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = write_plain("cut.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(error_of(cut).find(cut + ": error: truncated text corpus"), std::string::npos)
      << error_of(cut);
  std::string flipped = bytes;
  flipped[bytes.size() - 6] ^= 0x55;  // inside the CRC-32 trailer
  const std::string bad = write_plain("bad.gz", flipped);
  EXPECT_NE(error_of(bad).find(bad + ": error: corrupt text corpus"), std::string::npos)
      << error_of(bad);
}

TEST(TextCorpus, TooSmallToSplit) {
  const std::string p = write_plain("small.txt", std::string(100, 'x'));
  EXPECT_EQ(error_of(p), p + ": error: expected a text corpus of at least 256 bytes (4 blocks of "
                             "64), got 100");
}

TransformerSpec tiny_model(double dropout = 0) {
  TransformerSpec s;
  s.vocab = 256;
  s.context = 8;
  s.d_model = 16;
  s.heads = 2;
  s.layers = 1;
  s.d_ff = 32;
  s.dropout = dropout;
  return s;
}

// The whole network in double: embedding, both residual blocks, the head and the per-token
// loss, every 7th parameter, by central differences as in gradient_check_test.cpp.
TEST(TextModel, WholeNetworkGradient) {
  TransformerSpec s = tiny_model();
  s.vocab = 11;
  Network<double> net(s, 2, 3);
  std::mt19937_64 rng(2);
  std::vector<int32_t> labels(16);
  for (int i = 0; i < 16; ++i) {
    net.input()[i] = double(rng() % 11);
    labels[size_t(i)] = int32_t(rng() % 11);
  }
  for (int64_t i = 0; i < net.num_params(); ++i) net.params()[i] += 0.05 * std::sin(double(i));
  net.forward_backward(labels.data(), 16);
  const std::vector<double> g(net.grads(), net.grads() + net.num_params());
  const double h = 1e-6;
  for (int64_t i = 0; i < net.num_params(); i += 7) {
    double& w = net.params()[i];
    const double keep = w;
    w = keep + h;
    const double lp = net.forward_backward(labels.data(), 16);
    w = keep - h;
    const double lm = net.forward_backward(labels.data(), 16);
    w = keep;
    const double numeric = (lp - lm) / (2 * h);
    EXPECT_LE(std::abs(numeric - g[size_t(i)]), 1e-8 + 1e-5 * std::abs(g[size_t(i)])) << i;
  }
}

const TextCorpus& sentence_corpus() {
  static const TextCorpus c = [] {
    std::string text;
    while (text.size() < 40000) text += "the quick brown fox jumps over the lazy dog. ";
    return load_text_corpus(write_plain("fox.txt", text), 1024, 10);
  }();
  return c;
}

TextTrialConfig tiny_trial(double dropout = 0) {
  TextTrialConfig c = gcide_char_lm();
  c.model = tiny_model(dropout);
  c.batch = 8;
  c.max_steps = 300;
  c.eval_every = 100;
  c.eval_tokens = 2048;
  c.optimizer.learning_rate = 1e-2;
  c.optimizer.warmup_steps = 20;
  c.target_bits_per_char = 0.5;
  return c;
}

// A repeated sentence: far below its unigram entropy (4.40 bits/char) once the model has learnt
// the sentence.
TEST(TextTrial, LearnsARepeatedSentence) {
  const TextCorpus& c = sentence_corpus();
  EXPECT_NEAR(c.unigram_bits, 4.3965, 1e-4);
  const TrialResult r = train_text_trial(c, tiny_trial());
  ASSERT_FALSE(r.curve.empty());
  EXPECT_FALSE(r.diverged);
  EXPECT_TRUE(r.steps_to_target.has_value()) << r.curve.back().validation_error;
  EXPECT_LE(r.curve.back().validation_error, 0.5);
}

TEST(TextTrial, SameSeedSameBitsWithDropout) {
  TextTrialConfig cfg = tiny_trial(0.1);
  TextTrainer a(sentence_corpus(), cfg), b(sentence_corpus(), cfg);
  cfg.seed = 2;
  TextTrainer other(sentence_corpus(), cfg);
  for (int i = 0; i < 5; ++i) {
    const double la = a.step();
    EXPECT_EQ(la, b.step()) << i;
    EXPECT_NE(la, other.step()) << i;
  }
  EXPECT_EQ(a.validation_bits_per_char(), b.validation_bits_per_char());
}

// Debian's GCIDE, where installed (dict-gcide): its size and the split of 64 KiB blocks.
TEST(TextCorpus, Gcide) {
  if (!std::filesystem::exists(kGcidePath)) GTEST_SKIP() << "apt-get install dict-gcide";
  const TextCorpus c = load_text_corpus(kGcidePath);
  EXPECT_EQ(c.train.size() + c.validation.size(), 39952321u);
  EXPECT_EQ(c.validation.size(), 30u * 65536);  // 610 blocks, the last partial, in training
  EXPECT_GT(c.unigram_bits, 4.0);
  EXPECT_LT(c.unigram_bits, 5.5);
  std::printf("GCIDE unigram entropy %.4f bits/char\n", c.unigram_bits);
}

}  // namespace
}  // namespace kp
