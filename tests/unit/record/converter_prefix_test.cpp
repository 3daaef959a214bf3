// The converter's per-thread stack prefix reuse: identical root-side frames
// give the same stack nodes, and a mapping change in between is honoured.
#include <gtest/gtest.h>

#include "record/converter.hpp"

namespace strobe::record {
namespace {

perf::Mmap2Record mmapOf(uint64_t addr, uint64_t len, std::string_view file) {
  perf::Mmap2Record r{};
  r.pid = 7;
  r.tid = 7;
  r.addr = addr;
  r.len = len;
  r.filename = file;
  return r;
}

perf::SampleRecord sampleOf(uint32_t tid, const std::vector<uint64_t>& chain) {
  perf::SampleRecord r{};
  r.pid = 7;
  r.tid = tid;
  r.time = 1000;
  r.period = 1;
  r.ip = chain[1];
  r.callchain = chain.data();
  r.callchain_len = chain.size();
  return r;
}

std::vector<std::string> modulesOf(const model::Profile& p, const model::Sample& s) {
  std::vector<std::string> out;
  p.forEachFrame(s.stack, [&](model::LocationId l) {
    const model::Location& loc = p.locations()[l];
    out.push_back(loc.module == model::kNone ? "?" : p.str(p.modules()[loc.module].path));
  });
  return out;
}

TEST(ConverterPrefix, SharedRootFramesGiveTheSameNodesAndRemapsAreSeen) {
  model::Profile p;
  Converter c(p, 0);
  c.onMmap(mmapOf(0x400000, 0x10000, "/bin/app"));
  const std::vector<uint64_t> a = {perf::kContextUser, 0x401000, 0x402001, 0x403001, 0x900001};
  const std::vector<uint64_t> b = {perf::kContextUser, 0x401100, 0x402001, 0x403001, 0x900001};
  c.onSample(sampleOf(7, a));
  c.onSample(sampleOf(8, b));  // another thread in between
  c.onSample(sampleOf(7, b));
  ASSERT_EQ(p.samples().size(), 3u);
  // Same parents: the two leaves hang off the same node.
  const auto& st = p.stacks();
  EXPECT_EQ(st[p.samples()[0].stack].parent, st[p.samples()[2].stack].parent);
  EXPECT_EQ(p.samples()[1].stack, p.samples()[2].stack);
  EXPECT_EQ(c.stats().unmapped_frames, 3u);  // 0x900000 once per sample
  EXPECT_EQ(modulesOf(p, p.samples()[2]).back(), "?");

  // A library mapped over the outermost address: the next sample sees it.
  c.onMmap(mmapOf(0x900000, 0x1000, "/lib/late.so"));
  c.onSample(sampleOf(7, b));
  EXPECT_EQ(modulesOf(p, p.samples()[3]).back(), "/lib/late.so");
  EXPECT_EQ(c.stats().unmapped_frames, 3u);
}

}  // namespace
}  // namespace strobe::record
