#pragma once
// Image-classification data for the trainer. Contract: a Split holds n samples of `sample` shape
// as bytes (channels-last, HWC) plus labels in [0, classes); a sample's float value is
// byte * scale + shift, applied when a batch is gathered, so the data stays 1 byte per pixel and a
// Dataset can be shared read-only by concurrent trials.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "models/trainer/aligned_vector.h"

namespace kp {

struct Split {
  Shape sample;
  int64_t n = 0;
  // n * sample.elements(). On huge pages (aligned_vector.h): a batch reads random rows of
  // Fashion-MNIST's 47 MB, each on its own 4 KiB page, and the gather's loads waited on page
  // walks (perf, MLP b=16 on Fashion-MNIST: gather 2.6% of a training run, 1.6% on huge pages).
  AlignedVector<uint8_t> pixels;
  std::vector<int32_t> labels;   // n
  float scale = 1.0f / 255.0f;
  float shift = 0.0f;
};

struct Dataset {
  std::string name;
  int64_t classes = 0;
  Split train, validation, test;
};

// Copies samples idx[0..count) of the split into x (one sample after another, as floats
// byte * scale + shift) and their labels into labels.
void gather(const Split& split, const int64_t* idx, int64_t count, float* x, int32_t* labels);

// Fashion-MNIST from the four IDX .gz files in `dir`; the last `validation_size` training images
// are held out as the validation split (Shallue et al. 2019). Pixels are standardised with the
// training-set mean/std. Throws ConfigError naming the file if one is missing, truncated or corrupt.
// A validation_size outside [0, training images) is reported at `validation_size_at` (the YAML
// key), or at the images file where that is empty.
Dataset load_fashion_mnist(const std::string& dir, int64_t validation_size = 10000,
                           const Diagnostic& validation_size_at = {});

// A small learnable problem for unit tests: each class is a fixed random template plus noise.
Dataset make_synthetic_dataset(Shape sample, int64_t classes, int64_t train, int64_t validation,
                               uint64_t seed);

// The data a workload names: Fashion-MNIST from `data_override`, else dataset.path, else Debian's
// folder; or the synthetic set. A dataset the trainer cannot read is a ConfigError naming the file.
Dataset load_workload_dataset(const WorkloadSpec& workload, const std::string& data_override, uint64_t seed);

}  // namespace kp
