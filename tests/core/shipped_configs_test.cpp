// Every shipped YAML file loads, resolves and lowers.
#include <gtest/gtest.h>

#include <dirent.h>

#include <string>
#include <vector>

#include "core/config_doc.h"
#include "core/hw_spec.h"
#include "core/lowering.h"
#include "core/workload_spec.h"

namespace kp {
namespace {

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() > 5 && n.substr(n.size() - 5) == ".yaml") out.push_back(dir + "/" + n);
  }
  closedir(d);
  return out;
}

}  // namespace

TEST(ShippedConfigs, EveryHardwareFileLoads) {
  const auto files = yaml_files(std::string(KP_SOURCE_DIR) + "/hw_configs");
  ASSERT_GE(files.size(), 4u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const HardwareSpec hw = parse_hardware(ConfigDoc::load(f));
    EXPECT_FALSE(hw.name.empty());
    EXPECT_GT(hw.clock_hz, 0);
  }
}

TEST(ShippedConfigs, EveryWorkloadLoadsAndLowers) {
  const auto files = yaml_files(std::string(KP_SOURCE_DIR) + "/workloads");
  ASSERT_GE(files.size(), 4u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const WorkloadSpec w = parse_workload(ConfigDoc::load(f));
    const LoweredStep step = lower_training_step(resolve_network(w.network));
    EXPECT_GT(step.params, 0);
    EXPECT_FALSE(step.ops.empty());
  }
}

// Parameter counts against the published figures of each network.
TEST(ShippedConfigs, ParameterCountsMatchTheLiterature) {
  auto params = [](const char* name) {
    return resolve_network(parse_workload(ConfigDoc::load(std::string(KP_SOURCE_DIR) + "/workloads/" + name)).network)
        .params;
  };
  // 784*256+256 + 256*256+256 + 256*10+10
  EXPECT_EQ(params("fmnist_mlp.yaml"), 269322);
  // conv1 5*5*1*32+32, conv2 5*5*32*64+64, fc1 7*7*64*1024+1024, fc2 1024*10+10
  EXPECT_EQ(params("fmnist_simple_cnn.yaml"), 832 + 51264 + 3212288 + 10250);
  // torchvision ResNet-50: 25,557,032 parameters (batch-norm scale+shift counted as parameters).
  EXPECT_EQ(params("resnet50_imagenet.yaml"), 25557032);
  // kuangliu CIFAR ResNet-18: 11,173,962 parameters.
  EXPECT_EQ(params("resnet18_cifar10.yaml"), 11173962);
}

}  // namespace kp
