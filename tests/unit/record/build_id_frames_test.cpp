// User frames named by build-id and file offset (the BPF engine's
// BPF_F_USER_BUILD_ID stacks): where a mapping of the file is known they are
// the same locations as plain addresses; where it is not, they still name
// the module (by a path seen for that build-id elsewhere, or by the
// build-id alone) and the file offset.
#include "record/build_id_frames.hpp"

#include <gtest/gtest.h>

#include <array>

#include "record/converter.hpp"

namespace strobe::record {
namespace {

constexpr std::array<uint8_t, 20> kAppId = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                            0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
                                            0xff, 0x01, 0x02, 0x03, 0x04, 0x05};
constexpr const char* kAppHex = "112233445566778899aabbccddeeff0102030405";

void mapApp(Converter& c, int32_t pid) {
  c.addMapping(pid, 0x400000, 0x410000, 0x1000, "/bin/app", kAppHex);
}

perf::SampleRecord sample(uint32_t pid, uint64_t ip) {
  perf::SampleRecord r{};
  r.pid = pid;
  r.tid = pid;
  r.time = 1000;
  r.period = 5;
  r.ip = ip;
  return r;
}

std::vector<model::Location> frames(const model::Profile& p, const model::Sample& s) {
  std::vector<model::Location> out;
  p.forEachFrame(s.stack, [&](model::LocationId l) { out.push_back(p.locations()[l]); });
  return out;
}

TEST(BuildIdFrames, AKnownMappingGivesTheAddressesLocations) {
  model::Profile p;
  Converter c(p, 0);
  mapApp(c, 7);
  // File offsets 0x1234 (the leaf) and 0x5678 (a return address).
  const BuildIdFrame user[] = {{kAppId.data(), 0x1234}, {kAppId.data(), 0x5678}};
  c.onSample(sample(7, 0x400234), SampleExtras{user});
  ASSERT_EQ(p.samples().size(), 1u);
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].address, 0x400234u);
  EXPECT_EQ(f[0].offset, 0x1234u);
  EXPECT_EQ(f[1].address, 0x404677u);  // the return address - 1
  EXPECT_EQ(f[1].offset, 0x5677u);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "/bin/app");
}

TEST(BuildIdFrames, AProcessWithoutKnownMappingsIsStillNamed) {
  model::Profile p;
  Converter c(p, 0);
  mapApp(c, 7);  // another process runs the same file
  const std::array<uint8_t, 20> unknown = {0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89,
                                           0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89};
  const BuildIdFrame user[] = {
      {kAppId.data(), 0x1234}, {unknown.data(), 0x9000}, {nullptr, 0x7f0000001000}};
  c.onSample(sample(8, 0x400234), SampleExtras{user});  // pid 8: no mapping known
  ASSERT_EQ(p.samples().size(), 1u);
  auto f = frames(p, p.samples()[0]);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(p.str(p.modules()[f[0].module].path), "/bin/app");
  EXPECT_EQ(p.str(p.modules()[f[0].module].build_id), kAppHex);
  EXPECT_EQ(f[0].offset, 0x1234u);
  // Never mapped anywhere: the module is its build-id (128-bit here).
  ASSERT_NE(f[1].module, model::kNone);
  EXPECT_EQ(p.str(p.modules()[f[1].module].path), "");
  EXPECT_EQ(p.str(p.modules()[f[1].module].build_id), "abcdef0123456789abcdef0123456789");
  EXPECT_EQ(f[1].offset, 0x8fffu);
  // The kernel could not tell the file: an address, unmapped here.
  EXPECT_EQ(f[2].module, model::kNone);
  EXPECT_EQ(f[2].address, 0x7f0000000fffu);
  // The same frames again: the same stack.
  c.onSample(sample(8, 0x400234), SampleExtras{user});
  EXPECT_EQ(p.samples()[1].stack, p.samples()[0].stack);
}

TEST(BuildIdFrames, AModuleKnownByItsBuildIdGetsItsPathOnceMapped) {
  model::Profile p;
  Converter c(p, 0);
  const BuildIdFrame user[] = {{kAppId.data(), 0x1234}};
  c.onSample(sample(8, 0x400234), SampleExtras{user});
  EXPECT_EQ(p.str(p.modules()[frames(p, p.samples()[0])[0].module].path), "");
  mapApp(c, 9);
  c.onSample(sample(8, 0x400234), SampleExtras{user});
  EXPECT_EQ(p.str(p.modules()[frames(p, p.samples()[1])[0].module].path), "/bin/app");
}

TEST(BuildIdFrames, HexOfShortAndLongBuildIds) {
  EXPECT_EQ(BuildIdFrames::hex(kAppId.data()), kAppHex);
  std::array<uint8_t, 20> md5{};
  md5[0] = 0xff;
  EXPECT_EQ(BuildIdFrames::hex(md5.data()), "ff000000000000000000000000000000");
}

}  // namespace
}  // namespace strobe::record
