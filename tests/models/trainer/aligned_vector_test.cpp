// AlignedVector's allocation: 64-byte alignment, whole 2 MiB huge pages from 256 KiB on, and
// (where the kernel offers transparent huge pages) those pages really backed by huge pages.
#include "models/trainer/aligned_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace kp {
namespace {

using Alloc = CacheAlignedAllocator<float>;
constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(AlignedVector, ReservesWholeHugePagesFrom256KiB) {
  EXPECT_EQ(Alloc::reserved_bytes(1), 4u);
  EXPECT_EQ(Alloc::reserved_bytes(65535), 262140u);  // 4 bytes under 256 KiB: as asked
  EXPECT_EQ(Alloc::reserved_bytes(65536), 2 * kMiB);  // 256 KiB: one huge page
  EXPECT_EQ(Alloc::reserved_bytes(267018), 2 * kMiB);  // the MLP's parameters, 1.07 MB
  EXPECT_EQ(Alloc::reserved_bytes(524288), 2 * kMiB);  // exactly 2 MiB
  EXPECT_EQ(Alloc::reserved_bytes(524289), 4 * kMiB);  // 4 bytes over
  EXPECT_EQ(CacheAlignedAllocator<double>::reserved_bytes(32768), 2 * kMiB);
}

TEST(AlignedVector, SmallBuffersOnACacheLineLargeOnesOnAHugePage) {
  for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{65535}}) {
    AlignedVector<float> v(n, 1.0f);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u) << n;
  }
  for (std::size_t n : {std::size_t{65536}, std::size_t{267018}, std::size_t{600000}}) {
    AlignedVector<float> v(n, 1.0f);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % (2 * kMiB), 0u) << n;
    EXPECT_EQ(v.back(), 1.0f);
  }
}

// The AnonHugePages (kB) of the mapping that holds `p`, from /proc/self/smaps; -1 if not found.
long anon_huge_kb_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line
      inside = addr >= lo && addr < hi;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stol(line.substr(14));
    }
  }
  return -1;
}

TEST(AlignedVector, A256KiBBufferIsBackedByAHugePageWhereTheKernelOffersThem) {
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream mode;
  mode << mode_file.rdbuf();
  if (!mode_file || mode.str().find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off on this kernel: '" << mode.str() << "'";
  AlignedVector<float> v(267018, 0.5f);  // the MLP's weights: first touch here
  EXPECT_GE(anon_huge_kb_at(v.data()), 2048) << "THP mode: " << mode.str();
}

}  // namespace
}  // namespace kp
