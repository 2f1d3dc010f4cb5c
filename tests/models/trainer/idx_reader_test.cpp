// The IDX reader on small files written here (gzip and plain), on broken ones, and on the real
// Fashion-MNIST files installed by the dataset-fashion-mnist package (path from CMake).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "models/trainer/dataset.h"
#include "models/trainer/idx_reader.h"

namespace kp {
namespace {

std::vector<uint8_t> idx_bytes(std::vector<uint32_t> dims, uint8_t fill_from = 0) {
  std::vector<uint8_t> b = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  size_t total = 1;
  for (uint32_t d : dims) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(d >> s));
    total *= d;
  }
  for (size_t i = 0; i < total; ++i) b.push_back(static_cast<uint8_t>(fill_from + i));
  return b;
}

std::string write_gz(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = testing::TempDir() + name;
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return path;
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The error must name the file.
void expect_error_naming(const std::string& path, const char* fragment) {
  try {
    read_idx(path);
    FAIL() << "no error for " << path;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(IdxReader, ReadsGzip) {
  const IdxArray a = read_idx(write_gz("idx_ok.gz", idx_bytes({3, 2, 4}, 10)));
  ASSERT_EQ(a.dims, (std::vector<int64_t>{3, 2, 4}));
  ASSERT_EQ(a.data.size(), 24u);
  EXPECT_EQ(a.data[0], 10);
  EXPECT_EQ(a.data[23], 33);
}

TEST(IdxReader, ReadsPlainFile) {
  const std::vector<uint8_t> b = idx_bytes({5});
  const std::string path = testing::TempDir() + "idx_plain";
  spit(path, std::vector<char>(b.begin(), b.end()));
  EXPECT_EQ(read_idx(path).data.size(), 5u);
}

TEST(IdxReader, MissingFile) { expect_error_naming(testing::TempDir() + "no_such.gz", "cannot open"); }

TEST(IdxReader, TruncatedData) {
  std::vector<uint8_t> b = idx_bytes({10, 10});
  b.resize(b.size() - 7);
  expect_error_naming(write_gz("idx_short.gz", b), "truncated");
}

TEST(IdxReader, TruncatedGzipStream) {
  const std::string path = write_gz("idx_cut.gz", idx_bytes({200, 200}));
  std::vector<char> raw = slurp(path);
  raw.resize(raw.size() / 2);
  spit(path, raw);
  expect_error_naming(path, "");
}

TEST(IdxReader, CorruptGzip) {
  const std::string path = write_gz("idx_bad.gz", idx_bytes({100, 100}));
  std::vector<char> raw = slurp(path);
  for (size_t i = 20; i < raw.size() - 10; i += 3) raw[i] = static_cast<char>(raw[i] ^ 0x5a);
  spit(path, raw);
  expect_error_naming(path, "");
}

TEST(IdxReader, BadMagic) {
  std::vector<uint8_t> b = idx_bytes({4});
  b[0] = 7;
  expect_error_naming(write_gz("idx_magic.gz", b), "bad magic");
}

TEST(IdxReader, TrailingData) {
  std::vector<uint8_t> b = idx_bytes({4});
  b.push_back(1);
  expect_error_naming(write_gz("idx_trail.gz", b), "trailing");
}

TEST(FashionMnist, LoadsSplits) {
  const Dataset d = load_fashion_mnist(KP_FMNIST_DIR);
  EXPECT_EQ(d.classes, 10);
  EXPECT_EQ(d.train.n, 50000);
  EXPECT_EQ(d.validation.n, 10000);
  EXPECT_EQ(d.test.n, 10000);
  EXPECT_EQ(d.train.sample, (Shape{1, 28, 28}));
  // Standardised with the training split: its mean is 0 and its variance 1.
  double sum = 0, sq = 0;
  for (uint8_t p : d.train.pixels) {
    const double v = p * d.train.scale + d.train.shift;
    sum += v;
    sq += v * v;
  }
  const double n = static_cast<double>(d.train.pixels.size());
  EXPECT_NEAR(sum / n, 0.0, 1e-3);
  EXPECT_NEAR(sq / n, 1.0, 1e-3);
}

TEST(FashionMnist, MissingFolderNamesTheFile) {
  try {
    load_fashion_mnist("/nonexistent/fmnist");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/fmnist/train-images-idx3-ubyte.gz"),
              std::string::npos) << e.what();
  }
}

// A validation split as large as the training set, reported at the YAML key that asked for it
// (line 2, column 20 of the value), or at the images file without a key.
TEST(FashionMnist, ValidationSizeTooLargeIsReportedAtItsKey) {
  const Diagnostic key{"w.yaml", 2, 20, "dataset.validation_size", ""};
  const std::string images = std::string(KP_FMNIST_DIR) + "/train-images-idx3-ubyte.gz";
  try {
    load_fashion_mnist(KP_FMNIST_DIR, 60000, key);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "w.yaml:2:20: error: dataset.validation_size: expected fewer "
                                     "than the 60000 training images of " + images + ", got 60000");
  }
  try {
    load_fashion_mnist(KP_FMNIST_DIR, 60000);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(images + ": error: validation_size: expected fewer", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(load_fashion_mnist(KP_FMNIST_DIR, 59999, key).train.n, 1);  // the edge passes
}

}  // namespace
}  // namespace kp
