// strobe diff's comparison (model/diff.hpp, diff_tree.hpp) on synthetic
// profiles whose truth is known: the work each function does per run is
// set by the test, samples are drawn at random (1 ms each) in proportion
// to it, so noise is real sampling noise and a change is exactly what the
// test made.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "model/diff.hpp"
#include "model/diff_tree.hpp"

namespace strobe::model {
namespace {

constexpr uint64_t kMs = 1'000'000;

// A call path, root first, and the ms of CPU it uses in every 0.1 s.
struct Path {
  std::vector<std::string> functions;
  double work;
};

// The program of the tests: main -> run -> {parse 30, transform 20, encode
// 10}, main -> checksum 40 (ms per 0.1 s of CPU), on one thread.
std::vector<Path> program(double transform = 20, double parse = 30) {
  return {{{"main", "run", "parse"}, parse},
          {{"main", "run", "transform"}, transform},
          {{"main", "run", "encode"}, 10},
          {{"main", "checksum"}, 40}};
}

struct SynthOptions {
  double seconds = 4;
  uint64_t seed = 1;
  bool reverse_interning = false;  // intern functions in another order
  int32_t tid = 100;
  size_t spans_per_second = 0;  // "request" spans, back to back
};

// One run: 10 * seconds * sum(work) samples of 1 ms, each on a path drawn
// with probability proportional to its work.
Profile synth(const std::vector<Path>& paths, const SynthOptions& o) {
  Profile p;
  p.meta().event = "cpu-clock";
  p.meta().frequency = 1000;
  const ModuleId m = p.internModule("/opt/app/app", o.reverse_interning ? "bb" : "aa");
  std::map<std::string, FunctionId> fns;
  std::vector<std::string> names;
  for (const Path& path : paths) {
    for (const std::string& f : path.functions) {
      if (!fns.count(f)) {
        fns[f] = 0;
        names.push_back(f);
      }
    }
  }
  if (o.reverse_interning) std::reverse(names.begin(), names.end());
  for (const std::string& f : names) fns[f] = p.internFunction(f, f, "/src/app.cpp", 1);
  std::vector<StackId> leaves;
  std::vector<double> weights;
  uint64_t offset = o.reverse_interning ? 0x9000 : 0x1000;
  for (const Path& path : paths) {
    StackId s = kNone;
    for (const std::string& f : path.functions) {
      offset += 16;
      const LocationId l = p.internLocation(m, offset, 0x400000 + offset);
      p.mutableLocations()[l].lines = {{fns[f], 10}};
      s = p.internStack(s, l);
    }
    leaves.push_back(s);
    weights.push_back(path.work);
  }
  double per_second = 0;  // per 0.1 s
  for (double w : weights) per_second += w;
  const auto n = static_cast<size_t>(std::llround(10 * per_second * o.seconds));
  std::mt19937_64 rng(o.seed);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  p.setThread({o.tid, o.tid, "app"});
  for (size_t i = 0; i < n; ++i) {
    p.addSample({i * kMs + kMs / 2, o.tid, 0, leaves[pick(rng)], kMs});
  }
  p.meta().duration_ns = n * kMs;
  if (o.spans_per_second != 0) {
    const auto count = static_cast<size_t>(static_cast<double>(o.spans_per_second) * o.seconds);
    const uint64_t each = n * kMs / count;
    for (size_t i = 0; i < count; ++i) {
      p.addSpan({o.tid, 0, i * each, (i + 1) * each, p.internString("request")});
    }
  }
  return p;
}

std::vector<DiffRun> runsOf(const std::vector<Profile>& profiles, const std::string& side) {
  std::vector<DiffRun> runs;
  for (size_t i = 0; i < profiles.size(); ++i) {
    runs.push_back({&profiles[i], profiles[i].samples(), side + std::to_string(i + 1) + ".db", {}});
  }
  return runs;
}

ProfileDiff compare(const std::vector<Profile>& base, const std::vector<Profile>& next,
                    const DiffOptions& opt = {}) {
  auto d = diffProfiles(runsOf(base, "a"), runsOf(next, "b"), opt);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().describe());
  return d.ok() ? std::move(*d) : ProfileDiff{};
}

const DiffRow* row(const ProfileDiff& d, const std::string& name) {
  for (const DiffRow& r : d.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// Names of the rows with a verdict other than same, and the total's.
std::string changed(const ProfileDiff& d) {
  std::string s;
  if (d.total.verdict != Verdict::kSame) s += "total:" + std::string(verdictName(d.total.verdict));
  for (const DiffRow& r : d.rows) {
    if (r.verdict != Verdict::kSame) s += " " + r.name + ":" + std::string(verdictName(r.verdict));
  }
  return s;
}

TEST(Diff, SameAgainstSameFindsNothing) {
  int pairs_with_verdicts = 0;
  for (uint64_t i = 0; i < 30; ++i) {
    ProfileDiff d = compare({synth(program(), {.seed = 100 + i})},
                            {synth(program(), {.seed = 200 + i, .reverse_interning = true})});
    ASSERT_EQ(d.rows.size(), 6u);
    if (!changed(d).empty()) {
      ++pairs_with_verdicts;
      ADD_FAILURE() << "pair " << i << ": " << changed(d);
    }
  }
  EXPECT_EQ(pairs_with_verdicts, 0);
}

TEST(Diff, OneFunctionFiftyPercentSlower) {
  ProfileDiff d = compare({synth(program(), {.seed = 1})}, {synth(program(30), {.seed = 2})});
  const DiffRow* t = row(d, "transform");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, Verdict::kSlower);
  EXPECT_EQ(t->self.verdict, Verdict::kSlower);
  EXPECT_NEAR(t->self.changePct(), 50, 8);  // 800 samples against 1,200
  EXPECT_NEAR(t->self.base, 800.0 * kMs, 120.0 * kMs);
  // Its callers' totals, and the whole.
  for (const char* caller : {"run", "main"}) {
    ASSERT_NE(row(d, caller), nullptr);
    EXPECT_EQ(row(d, caller)->total.verdict, Verdict::kSlower) << caller;
    EXPECT_EQ(row(d, caller)->verdict, Verdict::kSlower) << caller;
  }
  EXPECT_EQ(d.total.verdict, Verdict::kSlower);
  for (const char* other : {"parse", "encode", "checksum"}) {
    ASSERT_NE(row(d, other), nullptr);
    EXPECT_EQ(row(d, other)->verdict, Verdict::kSame) << other;
  }
  // Rows by the size of their self change: transform first.
  EXPECT_EQ(d.rows.front().name, "transform");
  EXPECT_EQ(d.base.method, NoiseMethod::kBatchMeans);
  EXPECT_GT(d.tests, 5u);
  EXPECT_NEAR(d.min_change, 0.01 * d.total.base, 1e-6);
}

TEST(Diff, FasterAndVanished) {
  // parse does a third of its work; encode is gone.
  std::vector<Path> after = program(20, 10);
  after.erase(after.begin() + 2);
  ProfileDiff d = compare({synth(program(), {.seed = 3})}, {synth(after, {.seed = 4})});
  ASSERT_NE(row(d, "parse"), nullptr);
  EXPECT_EQ(row(d, "parse")->verdict, Verdict::kFaster);
  ASSERT_NE(row(d, "encode"), nullptr);
  EXPECT_EQ(row(d, "encode")->verdict, Verdict::kFaster);
  EXPECT_EQ(row(d, "encode")->self.next, 0);
  EXPECT_EQ(row(d, "encode")->self.changePct(), -100);
  EXPECT_EQ(row(d, "transform")->verdict, Verdict::kSame);
  EXPECT_EQ(row(d, "checksum")->verdict, Verdict::kSame);
}

TEST(Diff, ThreeRunsASide) {
  // 1,200 samples of transform a run against 1,800: the change's
  // standard error is 1.5 * sqrt(1/3600 + 1/5400) = 3.2 points.
  std::vector<Profile> base, next;
  for (uint64_t i = 0; i < 3; ++i) {
    base.push_back(synth(program(), {.seconds = 6, .seed = 10 + i}));
    next.push_back(synth(program(30), {.seconds = 6, .seed = 20 + i}));
  }
  ProfileDiff d = compare(base, next);
  EXPECT_EQ(d.base.method, NoiseMethod::kAcrossRuns);
  EXPECT_EQ(noiseMethodText(d.base), "the spread across its 3 runs");
  const DiffRow* t = row(d, "transform");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, Verdict::kSlower);
  EXPECT_NEAR(t->self.changePct(), 50, 10);
  ASSERT_EQ(t->self.base_runs.size(), 3u);
  // Per run averaged: each run did about 1.2 s of transform.
  EXPECT_NEAR(t->self.base, 1200.0 * kMs, 105.0 * kMs);
  for (const char* other : {"parse", "encode", "checksum"}) {
    EXPECT_EQ(row(d, other)->verdict, Verdict::kSame) << other;
  }
  // The same three against three: nothing.
  std::vector<Profile> again;
  for (uint64_t i = 0; i < 3; ++i) {
    again.push_back(synth(program(), {.seconds = 6, .seed = 30 + i}));
  }
  EXPECT_EQ(changed(compare(base, again)), "");
}

// The runs of one machine differ in how much CPU the same work takes (a
// run 4% faster is faster everywhere): here the new build's three runs got
// 100%, 98.5% and 94.5% of the base's CPU for the same work, the base's
// three agreed, and transform() does 50% more. strobe diff called it same:
// the new side's spread alone set Welch's degrees of freedom to about 2,
// too few for its t of 17 to pass among the comparisons (seen in the e2e
// three-runs case). Both sides' spreads pooled, it is slower.
TEST(Diff, ThreeRunsASideWhoseNewRunsSpreadFindTheSlowerFunction) {
  std::vector<Profile> base, next;
  for (uint64_t i = 0; i < 3; ++i) {
    base.push_back(synth(program(), {.seconds = 40, .seed = 40 + i}));
  }
  for (uint64_t i = 0; i < 3; ++i) {
    const double machine = std::vector<double>{1.0, 0.985, 0.945}[i];
    next.push_back(synth(program(30), {.seconds = 40 * machine, .seed = 50 + i}));
  }
  ProfileDiff d = compare(base, next);
  const DiffRow* t = row(d, "transform");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->self.verdict, Verdict::kSlower)
      << "t = " << t->self.change / t->self.se << " on " << t->self.df << " df, p " << t->self.p;
  EXPECT_NEAR(t->self.df, 4, 1e-9) << "3 + 3 runs pooled";
  EXPECT_EQ(row(d, "encode")->verdict, Verdict::kSame);
}

TEST(Diff, NormalizedByTotalComparesShares) {
  // Twice the run, the same shares: absolute time is slower everywhere,
  // shares are the same.
  std::vector<Profile> base{synth(program(), {.seconds = 3, .seed = 5})};
  std::vector<Profile> next{synth(program(), {.seconds = 6, .seed = 6})};
  ProfileDiff abs = compare(base, next);
  EXPECT_EQ(abs.total.verdict, Verdict::kSlower);
  EXPECT_EQ(row(abs, "checksum")->verdict, Verdict::kSlower);
  DiffOptions o;
  o.normalize = Normalize::kTotal;
  ProfileDiff shares = compare(base, next, o);
  EXPECT_EQ(changed(shares), "");
  EXPECT_NEAR(shares.scale, 6000.0 * kMs, 1.0);
  // The base scaled to the new total: checksum's 40% of 6 s.
  EXPECT_NEAR(row(shares, "checksum")->self.base, 2400.0 * kMs, 150.0 * kMs);
  EXPECT_EQ(normalizeName(o), "total");
}

TEST(Diff, NormalizedPerSpan) {
  // The new run serves twice the requests in twice the time.
  std::vector<Profile> base{synth(program(), {.seconds = 3, .seed = 7, .spans_per_second = 50})};
  std::vector<Profile> next{synth(program(), {.seconds = 6, .seed = 8, .spans_per_second = 50})};
  EXPECT_EQ(row(compare(base, next), "transform")->verdict, Verdict::kSlower);
  DiffOptions o;
  o.normalize = Normalize::kSpan;
  o.span = "request";
  ProfileDiff d = compare(base, next, o);
  EXPECT_EQ(changed(d), "");
  EXPECT_EQ(d.base.spans[0], 150u);
  EXPECT_EQ(d.next.spans[0], 300u);
  // 200 ms of transform in each second of 50 requests: 4 ms a request
  // (600 samples: 4% noise).
  EXPECT_NEAR(row(d, "transform")->self.base, 4.0 * kMs, 0.5 * kMs);
  o.span = "nothing";
  auto bad = diffProfiles(runsOf(base, "a"), runsOf(next, "b"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "a1.db has no span named 'nothing'");
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
}

TEST(Diff, MatchesFunctionsNotNames) {
  // Two static functions both named "helper", in two files, and a clone.
  auto make = [](double b_work, uint64_t seed) {
    Profile p;
    p.meta().event = "cpu-clock";
    const ModuleId m = p.internModule("/build-" + std::to_string(seed) + "/app", "");
    const FunctionId main_fn = p.internFunction("main", "main", "/src/main.c", 1);
    const FunctionId a = p.internFunction("helper", "helper", "/src/a.c", 5);
    const FunctionId b = p.internFunction("helper", "helper", "/src/b.c", 5);
    // In the second build the compiler split foo: samples land in foo.part.0.
    const FunctionId foo = p.internFunction("foo", seed == 2 ? "foo.part.0" : "foo", "/src/a.c", 9);
    auto stack = [&](FunctionId f, uint64_t off) {
      const LocationId lm = p.internLocation(m, 0x10, 0x10);
      p.mutableLocations()[lm].lines = {{main_fn, 2}};
      const LocationId l = p.internLocation(m, off, off);
      p.mutableLocations()[l].lines = {{f, 6}};
      return p.internStack(p.internStack(kNone, lm), l);
    };
    const StackId sa = stack(a, 0x100), sb = stack(b, 0x200), sf = stack(foo, 0x300);
    std::mt19937_64 rng(seed);
    std::discrete_distribution<int> pick({40.0, b_work, 30.0});
    const auto n = static_cast<uint64_t>(40 * (70 + b_work));  // samples as the work grows
    for (uint64_t i = 0; i < n; ++i) {
      const int k = pick(rng);
      p.addSample({i * kMs, 1, 0, k == 0 ? sa : k == 1 ? sb : sf, kMs});
    }
    return p;
  };
  ProfileDiff d = compare({make(30, 1)}, {make(60, 2)});
  int helpers = 0;
  for (const DiffRow& r : d.rows) {
    if (r.name != "helper") continue;
    ++helpers;
    EXPECT_EQ(r.verdict, r.file == "/src/b.c" ? Verdict::kSlower : Verdict::kSame) << r.file;
  }
  EXPECT_EQ(helpers, 2);
  ASSERT_NE(row(d, "foo"), nullptr);
  EXPECT_GT(row(d, "foo")->self.base, 0);
  EXPECT_GT(row(d, "foo")->self.next, 0);
  EXPECT_EQ(row(d, "foo")->system_name, "foo");
}

TEST(Diff, ByThreadMatchesNamesNotTids) {
  DiffOptions o;
  o.by = GroupBy::kThread;
  ProfileDiff d = compare({synth(program(), {.seed = 1, .tid = 100})},
                          {synth(program(30), {.seed = 2, .tid = 555})}, o);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].name, "app");
  EXPECT_EQ(d.rows[0].verdict, Verdict::kSlower);
}

TEST(Diff, Refusals) {
  std::vector<Profile> a{synth(program(), {.seed = 1})};
  std::vector<Profile> b{synth(program(), {.seed = 2})};
  DiffOptions o;
  o.by = GroupBy::kAddress;
  auto r = diffProfiles(runsOf(a, "a"), runsOf(b, "b"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "strobe diff has no --by address");
  std::vector<Profile> empty(1);
  r = diffProfiles(runsOf(a, "a"), runsOf(empty, "b"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "b1.db has no samples to compare");
  b[0].meta().event = "page-faults";
  for (Sample& x : b[0].mutableSamples()) x.kind = SampleKind::kCount;
  r = diffProfiles(runsOf(a, "a"), runsOf(b, "b"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "a1.db measures cpu but b1.db measures page-faults");
}

TEST(Diff, MinChangeKeepsSmallChangesSame) {
  // transform +50% is 1% of the base's total: beyond the noise of 20,000
  // samples (200 more of transform's 400, 6 standard errors), above a 0.5%
  // min-change, below a 2% one.
  DiffOptions o;
  o.min_change_pct = 2;
  const std::vector<Path> base = {{{"main", "run", "transform"}, 2}, {{"main", "checksum"}, 98}};
  std::vector<Path> more = base;
  more[0].work = 3;
  std::vector<Profile> a{synth(base, {.seconds = 20, .seed = 1})};
  std::vector<Profile> b{synth(more, {.seconds = 20, .seed = 2})};
  EXPECT_EQ(row(compare(a, b, o), "transform")->verdict, Verdict::kSame);
  o.min_change_pct = 0.5;
  EXPECT_EQ(row(compare(a, b, o), "transform")->verdict, Verdict::kSlower);
}

TEST(DiffTree, MergedShapeWithVanishedWork) {
  std::vector<Path> after = program(30);
  after.erase(after.begin() + 2);  // encode vanished
  std::vector<Profile> base{synth(program(), {.seed = 1})};
  std::vector<Profile> next{synth(after, {.seed = 2})};
  std::vector<DiffRun> b = runsOf(base, "a"), n = runsOf(next, "b");
  auto d = diffProfiles(b, n, {});
  ASSERT_TRUE(d.ok());
  auto t = diffTree(b, n, {}, *d);
  ASSERT_TRUE(t.ok()) << t.error().describe();
  // root, main, run, parse, transform, encode, checksum
  ASSERT_EQ(t->nodes.size(), 7u);
  auto find = [&](const std::string& name) -> const DiffNode* {
    for (const DiffNode& x : t->nodes) {
      if (x.frame != kNone && t->frames[x.frame].name == name) return &x;
    }
    return nullptr;
  };
  const DiffNode* encode = find("encode");
  ASSERT_NE(encode, nullptr);
  EXPECT_EQ(encode->next_total, 0);
  EXPECT_EQ(encode->width, encode->base_total);
  EXPECT_EQ(encode->verdict, Verdict::kFaster);
  EXPECT_EQ(find("transform")->verdict, Verdict::kSlower);
  EXPECT_EQ(find("parse")->verdict, Verdict::kSame);
  // The root is as wide as the new run plus what vanished.
  const DiffNode& root = t->nodes[0];
  EXPECT_NEAR(root.width, root.next_total + encode->base_total, 1e-6 * root.width);
  // transform's 10 more are encode's 10 less: the total is the same.
  EXPECT_EQ(root.verdict, Verdict::kSame);
  // run: the new run's self plus its children, widest first.
  const DiffNode* run = find("run");
  const auto children = t->children(static_cast<uint32_t>(run - t->nodes.data()));
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(t->frames[t->nodes[children[0]].frame].name, "transform");
  EXPECT_EQ(t->frames[t->nodes[children[2]].frame].name, "encode");
  EXPECT_GT(t->tests, 4u);
}

}  // namespace
}  // namespace strobe::model
