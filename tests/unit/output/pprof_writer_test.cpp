// The pprof writer, checked by decoding its output back with protozero.
#include "output/pprof_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../model/sample_profile.hpp"
#include "output/format.hpp"
#include "pprof_decode.hpp"
#include "render.hpp"

namespace strobe::output {
namespace {

std::string renderPprof(const model::Profile& p, const ReportOptions& opt = {}) {
  return test::render(p, Format::kPprof, opt);
}

const test::PbFunction* findFunction(const test::PbProfile& pb, const std::string& name) {
  for (const auto& [id, f] : pb.functions) {
    if (pb.s(f.name) == name) return &f;
  }
  return nullptr;
}

// Weights beyond int64 (which the recording reader refuses, but a Profile
// built otherwise may hold) saturate pprof's int64 values: no overflow
// (UBSan), never a negative or wrapped sum.
TEST(Pprof, HugeWeightsSaturateInsteadOfOverflowing) {
  model::Profile p = test::sampleProfile();
  for (model::Sample& x : p.mutableSamples()) x.weight = INT64_MAX;
  p.mutableSamples()[0].weight = UINT64_MAX;
  test::PbProfile pb = test::decodePprof(renderPprof(p));
  ASSERT_FALSE(pb.samples.empty());
  for (const auto& s : pb.samples) {
    ASSERT_EQ(s.values.size(), 2u);
    EXPECT_EQ(s.values[1], INT64_MAX) << "samples " << s.values[0];
  }
}

TEST(Pprof, GzippedWithMagic) {
  std::string out = renderPprof(test::sampleProfile());
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(out[1]), 0x8b);
}

TEST(Pprof, SampleTypesPeriodAndDuration) {
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile()));
  ASSERT_FALSE(pb.strings.empty());
  EXPECT_EQ(pb.strings[0], "");
  ASSERT_EQ(pb.sample_types.size(), 2u);
  EXPECT_EQ(pb.s(pb.sample_types[0].type), "samples");
  EXPECT_EQ(pb.s(pb.sample_types[0].unit), "count");
  EXPECT_EQ(pb.s(pb.sample_types[1].type), "cpu");
  EXPECT_EQ(pb.s(pb.sample_types[1].unit), "nanoseconds");
  EXPECT_EQ(pb.s(pb.period_type.type), "cpu");
  EXPECT_EQ(pb.s(pb.period_type.unit), "nanoseconds");
  EXPECT_EQ(pb.period, 1'000'000'000 / 999);
  EXPECT_EQ(pb.duration_nanos, 2'500'000'000);
  EXPECT_EQ(pb.s(pb.default_sample_type), "cpu");
}

TEST(Pprof, ValuesSumToTheProfile) {
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile()));
  int64_t count = 0, cpu = 0;
  for (const auto& s : pb.samples) {
    ASSERT_EQ(s.values.size(), 2u);
    count += s.values[0];
    cpu += s.values[1];
    for (uint64_t lid : s.locations) EXPECT_TRUE(pb.locations.count(lid)) << lid;
  }
  EXPECT_EQ(count, 100);
  EXPECT_EQ(cpu, 100'000'000);
}

TEST(Pprof, ThreadLabelPerSample) {
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile()));
  std::map<std::string, int64_t> per_thread;
  for (const auto& s : pb.samples) {
    std::string thread;
    int64_t tid = 0;
    for (const auto& l : s.labels) {
      if (pb.s(l.key) == "thread") thread = pb.s(l.str);
      if (pb.s(l.key) == "tid") tid = l.num;
    }
    EXPECT_FALSE(thread.empty());
    EXPECT_TRUE(tid == 100 || tid == 101) << tid;
    per_thread[thread] += s.values[0];
  }
  EXPECT_EQ(per_thread["app"], 54);
  EXPECT_EQ(per_thread["worker-1"], 46);
}

TEST(Pprof, MappingsCarryBuildIdsAndFunctionsSystemNames) {
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile()));
  bool found_app = false;
  for (const auto& [id, m] : pb.mappings) {
    if (pb.s(m.filename) == "/opt/app/bin/app") {
      found_app = true;
      EXPECT_EQ(pb.s(m.build_id), "abcd");
      EXPECT_TRUE(m.has_functions);
      EXPECT_LE(m.start, 0x555555555100u);
      EXPECT_GT(m.limit, 0x555555555400u);
    }
  }
  EXPECT_TRUE(found_app);
  const test::PbFunction* f = findFunction(pb, "app::compute(int)");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(pb.s(f->system_name), "_ZN3app7computeEi");
  EXPECT_EQ(pb.s(f->filename), "/src/app/compute.cpp");
  EXPECT_EQ(f->start_line, 20);
}

TEST(Pprof, InlineChainsAreSeveralLinesInnermostFirst) {
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile()));
  const test::PbFunction* helper = findFunction(pb, "app::helper(int)");
  const test::PbFunction* compute = findFunction(pb, "app::compute(int)");
  ASSERT_TRUE(helper && compute);
  bool found = false;
  for (const auto& [id, l] : pb.locations) {
    if (l.address != 0x555555555400) continue;
    found = true;
    ASSERT_EQ(l.lines.size(), 2u);
    EXPECT_EQ(l.lines[0].function, helper->id);
    EXPECT_EQ(l.lines[0].line, 7);
    EXPECT_EQ(l.lines[1].function, compute->id);
    EXPECT_EQ(l.lines[1].line, 27);
  }
  EXPECT_TRUE(found);

  ReportOptions opt;
  opt.no_inline = true;
  test::PbProfile folded = test::decodePprof(renderPprof(test::sampleProfile(), opt));
  for (const auto& [id, l] : folded.locations) {
    if (l.address == 0x555555555400) {
      ASSERT_EQ(l.lines.size(), 1u);
      EXPECT_EQ(folded.s(folded.functions.at(l.lines[0].function).name), "app::compute(int)");
    }
  }
}

// malloc with tcache_init's head inlined calls tcache_init.part.0 (glibc):
// the caller's location holds the lines tcache_init <- malloc. pprof keys
// functions by identity, so that location as it is would show tcache_init
// twice in one stack; it is written without its tcache_init line.
TEST(Pprof, ACloneCalledFromItsInlinedHeadIsOneFrame) {
  model::Profile p;
  const model::ModuleId libc = p.internModule("/lib/libc.so.6", "");
  const model::FunctionId main_fn = p.internFunction("main", "main", "/src/app.c", 1);
  const model::FunctionId malloc_fn = p.internFunction("malloc", "malloc", "malloc.c", 3287);
  const model::FunctionId head = p.internFunction("tcache_init", "tcache_init", "malloc.c", 3230);
  const model::FunctionId part =
      p.internFunction("tcache_init", "tcache_init.part.0", "malloc.c", 3230);
  const model::FunctionId leaf = p.internFunction("_int_malloc", "_int_malloc", "malloc.c", 3765);
  auto loc = [&](uint64_t off, std::vector<model::Line> lines) {
    const model::LocationId l = p.internLocation(libc, off, 0x7f0000000000 + off);
    p.mutableLocations()[l].lines = std::move(lines);
    return l;
  };
  const model::LocationId l_main = loc(0x100, {{main_fn, 5}});
  const model::LocationId l_malloc = loc(0x200, {{head, 3240}, {malloc_fn, 3295}});
  const model::LocationId l_part = loc(0x300, {{part, 3250}});
  const model::LocationId l_leaf = loc(0x400, {{leaf, 3800}});
  const model::StackId s_malloc = p.internStack(p.internStack(model::kNone, l_main), l_malloc);
  const model::StackId s_part = p.internStack(s_malloc, l_part);
  p.addSample({1, 1, 0, p.internStack(s_part, l_leaf), 10});
  p.addSample({2, 1, 0, s_part, 10});
  p.addSample({3, 1, 0, s_malloc, 10});

  test::PbProfile pb = test::decodePprof(renderPprof(p));
  ASSERT_EQ(pb.samples.size(), 3u);
  size_t malloc_seen = 0;
  for (const auto& s : pb.samples) {
    std::vector<std::string> names;
    for (uint64_t id : s.locations) {
      for (const auto& line : pb.locations.at(id).lines) {
        names.push_back(pb.s(pb.functions.at(line.function).name));
      }
    }
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
        << "a function twice in one stack: " << ::testing::PrintToString(names);
    malloc_seen += std::count(names.begin(), names.end(), "malloc");
  }
  // Every stack still passes through malloc; its own samples keep the
  // inline line (nothing is called there).
  EXPECT_EQ(malloc_seen, 3u);
  bool head_kept = false;
  for (const auto& s : pb.samples) {
    if (s.locations.size() != 2) continue;
    const auto& lines = pb.locations.at(s.locations[0]).lines;
    head_kept = lines.size() == 2 && pb.s(pb.functions.at(lines[0].function).name) == "tcache_init";
  }
  EXPECT_TRUE(head_kept);
}

TEST(Pprof, FiltersApply) {
  ReportOptions opt;
  opt.filter.tids = {101};
  test::PbProfile pb = test::decodePprof(renderPprof(test::sampleProfile(), opt));
  int64_t count = 0;
  for (const auto& s : pb.samples) count += s.values[0];
  EXPECT_EQ(count, 46);
}

TEST(Pprof, EmptyProfileIsValid) {
  model::Profile p;
  test::PbProfile pb = test::decodePprof(renderPprof(p));
  EXPECT_TRUE(pb.samples.empty());
  EXPECT_EQ(pb.sample_types.size(), 2u);
}

}  // namespace
}  // namespace strobe::output
