#include "models/trainer/dataset.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "core/config_error.h"
#include "models/trainer/idx_reader.h"

namespace kp {

namespace {

Split make_split(const IdxArray& images, const IdxArray& labels, int64_t begin, int64_t end,
                 const std::string& images_path, const std::string& labels_path) {
  if (images.dims.size() != 3)
    throw ConfigError(images_path, "expected a 3-d IDX image array (n, rows, cols)");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw ConfigError(labels_path, "expected " + std::to_string(images.dims[0]) +
                                       " labels to match " + images_path);
  Split s;
  s.sample = Shape{1, images.dims[1], images.dims[2]};
  s.n = end - begin;
  const int64_t per = s.sample.elements();
  s.pixels.assign(images.data.begin() + begin * per, images.data.begin() + end * per);
  s.labels.resize(static_cast<size_t>(s.n));
  for (int64_t i = 0; i < s.n; ++i) {
    const int v = labels.data[static_cast<size_t>(begin + i)];
    if (v > 9) throw ConfigError(labels_path, "label " + std::to_string(v) + " is not in 0..9");
    s.labels[static_cast<size_t>(i)] = v;
  }
  return s;
}

// The error at a workload key's position (`at`, from the spec), or at `origin` with `key` where
// the spec has none (the key was left out, or the caller passed no position).
ConfigError error_at(Diagnostic at, const std::string& origin, const std::string& key,
                     std::string message) {
  if (at.origin.empty()) at = Diagnostic{origin, 0, 0, key, ""};
  at.message = std::move(message);
  return ConfigError({at});
}

}  // namespace

Dataset load_fashion_mnist(const std::string& dir, int64_t validation_size,
                           const Diagnostic& validation_size_at) {
  const std::string p = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  const std::string ti = p + "train-images-idx3-ubyte.gz", tl = p + "train-labels-idx1-ubyte.gz";
  const std::string vi = p + "t10k-images-idx3-ubyte.gz", vl = p + "t10k-labels-idx1-ubyte.gz";
  const IdxArray train_images = read_idx(ti), train_labels = read_idx(tl);
  const IdxArray test_images = read_idx(vi), test_labels = read_idx(vl);
  const int64_t n = train_images.dims.empty() ? 0 : train_images.dims[0];
  if (validation_size < 0 || validation_size >= n) {
    throw error_at(validation_size_at, ti, "validation_size",
                   "expected fewer than the " + std::to_string(n) + " training images of " + ti +
                       ", got " + std::to_string(validation_size));
  }
  Dataset d;
  d.name = "fashion_mnist";
  d.classes = 10;
  d.train = make_split(train_images, train_labels, 0, n - validation_size, ti, tl);
  d.validation = make_split(train_images, train_labels, n - validation_size, n, ti, tl);
  d.test = make_split(test_images, test_labels, 0, test_images.dims[0], vi, vl);
  if (!(d.test.sample == d.train.sample))  // a test image is gathered with the training stride
    throw ConfigError(vi, "test images are " + std::to_string(d.test.sample.h) + "x" +
                              std::to_string(d.test.sample.w) + ", the training images of " + ti + " are " +
                              std::to_string(d.train.sample.h) + "x" + std::to_string(d.train.sample.w));
  // Standardise with the statistics of the training split only (no validation leakage).
  double sum = 0, sq = 0;
  for (uint8_t v : d.train.pixels) {
    sum += v;
    sq += double(v) * v;
  }
  const double count = static_cast<double>(d.train.pixels.size());
  const double mean = sum / count / 255.0;
  const double sd = std::sqrt(std::max(sq / count / (255.0 * 255.0) - mean * mean, 1e-12));
  for (Split* s : {&d.train, &d.validation, &d.test}) {
    s->scale = static_cast<float>(1.0 / (255.0 * sd));
    s->shift = static_cast<float>(-mean / sd);
  }
  return d;
}

Dataset make_synthetic_dataset(Shape sample, int64_t classes, int64_t train, int64_t validation,
                               uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t per = sample.elements();
  std::vector<uint8_t> templates(static_cast<size_t>(classes * per));
  for (auto& t : templates) t = static_cast<uint8_t>(rng() % 256);
  auto fill = [&](Split& s, int64_t n) {
    s.sample = sample;
    s.n = n;
    s.pixels.resize(static_cast<size_t>(n * per));
    s.labels.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = static_cast<int64_t>(rng() % static_cast<uint64_t>(classes));
      s.labels[static_cast<size_t>(i)] = static_cast<int32_t>(c);
      for (int64_t j = 0; j < per; ++j) {
        const int noise = static_cast<int>(rng() % 97) - 48;
        const int v = templates[static_cast<size_t>(c * per + j)] + noise;
        s.pixels[static_cast<size_t>(i * per + j)] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      }
    }
    s.scale = 1.0f / 128.0f;
    s.shift = -1.0f;
  };
  Dataset d;
  d.name = "synthetic";
  d.classes = classes;
  fill(d.train, train);
  fill(d.validation, validation);
  fill(d.test, validation);
  return d;
}

Dataset load_workload_dataset(const WorkloadSpec& w, const std::string& data_override, uint64_t seed) {
  const DatasetSpec& d = w.dataset;
  // Adam and AdamW train on the plain update (reference_update.h); LAMB is simulated only.
  if (w.optimizer.kind == OptimizerKind::Lamb)
    throw error_at(Diagnostic{}, w.source_file, "optimizer.kind",
                   "the trainer measures step curves with sgd, momentum, nesterov, adam or adamw; "
                   "lamb is simulated but not trained here");
  // The trainer chains its layers; graphs and the sequence kinds are simulated, not trained here.
  for (const LayerSpec& l : w.network.layers) {
    if (d.kind != "fashion_mnist" && d.kind != "synthetic") break;  // refused below for its data
    static const LayerKind trainable[] = {LayerKind::Dense,   LayerKind::Conv2d,  LayerKind::MaxPool,
                                          LayerKind::Relu,    LayerKind::Flatten, LayerKind::BatchNorm,
                                          LayerKind::SoftmaxCrossEntropy};
    bool ok = l.inputs.empty() && (l.kind != LayerKind::Conv2d || (l.groups == 1 && l.dilation == 1 &&
                                                                    l.kernel_w == 0 && l.stride_w == 0 &&
                                                                    l.padding != Padding::Explicit));
    ok = ok && std::find(std::begin(trainable), std::end(trainable), l.kind) != std::end(trainable);
    if (!ok)
      throw error_at(l.at, w.source_file, "network",
                     std::string("the trainer has no ") + layer_kind_name(l.kind) +
                         (l.inputs.empty() ? "" : " reading inputs:") +
                         " layer of this form (it trains chains of dense, conv2d, maxpool, relu, flatten and "
                         "batchnorm layers); this workload can be simulated but not trained here");
  }
  if (d.kind == "fashion_mnist") {
    const std::string dir = !data_override.empty() ? data_override
                            : !d.path.empty()      ? d.path
                                                   : "/usr/share/datasets/fashion-mnist";
    Dataset data = load_fashion_mnist(dir, d.validation_size, d.validation_size_at);
    const Shape& in = w.network.input;
    if (data.train.sample.elements() != in.elements())  // else the trainer would refuse it (an abort)
      throw ConfigError(dir + "/train-images-idx3-ubyte.gz",
                        "images are " + std::to_string(data.train.sample.h) + "x" +
                            std::to_string(data.train.sample.w) + " pixels, the network of " + w.source_file +
                            " takes " + std::to_string(in.c) + "x" + std::to_string(in.h) + "x" +
                            std::to_string(in.w));
    return data;
  }
  if (d.kind == "synthetic")
    return make_synthetic_dataset(w.network.input, w.network.classes, 4096, 1024, seed);
  throw error_at(d.kind_at, w.source_file, "dataset.kind",
                 "\"" + d.kind + "\" has no data the trainer can read (use fashion_mnist or synthetic)");
}

void gather(const Split& s, const int64_t* idx, int64_t count, float* x, int32_t* labels) {
  const int64_t per = s.sample.elements();
  // The samples are random rows of a 47 MB array (Fashion-MNIST's training set), so each row's
  // first touch waited on memory: 70% of gather's time on the first load of a row. The rows two
  // samples ahead are requested while this one is converted.
  constexpr int64_t kAhead = 2;
  for (int64_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const uint8_t* next = s.pixels.data() + idx[i + kAhead] * per;
      for (int64_t o = 0; o < per; o += 64) __builtin_prefetch(next + o);
    }
    const uint8_t* src = s.pixels.data() + idx[i] * per;
    float* dst = x + i * per;
    for (int64_t j = 0; j < per; ++j) dst[j] = float(src[j]) * s.scale + s.shift;
    labels[i] = s.labels[static_cast<size_t>(idx[i])];
  }
}

}  // namespace kp
