#include "synth_profile.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace strobe::test {
namespace {

// The meta every synthetic profile shares: a cpu-clock, frame-pointer
// recording of `command` (pid, frequency) on host "synth".
void synthMeta(model::Meta& m, std::vector<std::string> command, int32_t pid, uint32_t frequency) {
  m.command = std::move(command);
  m.pid = pid;
  m.frequency = frequency;
  m.event = "cpu-clock";
  m.call_graph = "fp";
  m.start_realtime_ns = 1'700'000'000'000'000'000ULL;
  m.start_monotonic_ns = 5'000'000'000ULL;
  m.hostname = "synth";
  m.strobe_version = "synthetic";
}

}  // namespace

model::Profile synthProfile(size_t samples, bool wide, bool uneven, uint64_t seed) {
  using namespace strobe::model;
  Profile p;
  Meta& m = p.meta();
  synthMeta(m, {"/opt/synth/bin/synth", "--work", "1"}, 1000, 999);

  ModuleId app = p.internModule("/opt/synth/bin/synth", "0123456789abcdef0123456789abcdef01234567");
  ModuleId libc = p.internModule("/usr/lib/x86_64-linux-gnu/libc.so.6", "");
  FunctionId f_main = p.internFunction("main", "main", "/src/synth/main.cpp", 10);
  FunctionId f_worker =
      p.internFunction("worker_main(void*)", "_Z11worker_mainPv", "/src/synth/main.cpp", 30);
  FunctionId f_compute =
      p.internFunction("synth::compute(int)", "_ZN5synth7computeEi", "/src/synth/compute.cpp", 20);
  FunctionId f_hot =
      p.internFunction("synth::hot_loop()", "_ZN5synth8hot_loopEv", "/src/synth/compute.cpp", 40);
  FunctionId f_helper =
      p.internFunction("synth::helper(int)", "_ZN5synth6helperEi", "/src/synth/helper.hpp", 5);
  FunctionId f_hostile = p.internFunction(kHostileName, "hostile", "/src/synth/<odd>&\"'.cpp", 1);

  uint64_t next_offset = 0x1000;
  auto loc = [&](ModuleId mod, std::vector<Line> lines) {
    uint64_t off = next_offset;
    next_offset += 0x10;
    LocationId l = p.internLocation(mod, off, 0x555555554000 + off);
    p.mutableLocations()[l].lines = std::move(lines);
    return l;
  };
  LocationId l_main = loc(app, {{f_main, 12}});
  LocationId l_worker = loc(app, {{f_worker, 33}});
  LocationId l_compute = loc(app, {{f_compute, 25}});
  LocationId l_compute_self = loc(app, {{f_compute, 26}});
  LocationId l_hot = loc(app, {{f_hot, 42}});
  LocationId l_inl = loc(app, {{f_helper, 7}, {f_compute, 27}});
  LocationId l_hostile = loc(app, {{f_hostile, 2}});
  LocationId l_libc = p.internLocation(libc, 0x9a0f0, 0x7ffff7c9a0f0);

  std::vector<StackId> roots;  // per thread: main or worker_main
  p.setThread({1000, 1000, "main"});
  p.setThread({1001, 1000, "worker-1"});
  p.setThread({1002, 1000, "worker-2"});
  StackId s_main = p.internStack(kNone, l_main);
  StackId s_worker = p.internStack(kNone, l_worker);
  // Stacks below compute, by share (out of 20 slots of 5% each).
  auto below = [&](StackId root) {
    StackId c = p.internStack(root, l_compute);
    std::vector<StackId> v;
    for (int i = 0; i < 10; ++i) v.push_back(p.internStack(c, l_hot));
    for (int i = 0; i < 4; ++i) v.push_back(p.internStack(root, l_inl));
    for (int i = 0; i < 2; ++i) v.push_back(p.internStack(root, l_compute_self));
    v.push_back(p.internStack(c, l_hostile));
    v.push_back(p.internStack(c, l_libc));
    v.push_back(root);
    v.push_back(root);
    return v;
  };
  std::vector<StackId> main_stacks = below(s_main);
  std::vector<StackId> worker_stacks = below(s_worker);
  // main's own two slots are worker_main's in the share table: keep main a
  // caller only by giving its thread worker-like roots too.
  main_stacks[18] = s_worker;
  main_stacks[19] = s_worker;

  // Generated functions for wide profiles.
  std::vector<LocationId> wide_locs;
  if (wide) {
    for (int i = 0; i < 2000; ++i) {
      std::string name = "synth::gen::fn_" + std::to_string(i) + "(int)";
      FunctionId f = p.internFunction(name, "_ZN5synth3gen3fn_" + std::to_string(i) + "Ei",
                                      "/src/synth/gen_" + std::to_string(i % 50) + ".cpp",
                                      static_cast<uint32_t>(i));
      wide_locs.push_back(loc(app, {{f, static_cast<uint32_t>(i + 3)}}));
    }
  }

  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  auto next = [&] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  // Wide profiles draw from a pool of distinct call paths, 1..32 deep, the
  // first ones far more often (as real programs repeat their hot paths).
  constexpr size_t kPaths = 20'000;
  std::vector<StackId> paths[2];  // [0] under main, [1] under worker_main
  if (wide) {
    for (int root = 0; root < 2; ++root) {
      for (size_t i = 0; i < kPaths; ++i) {
        StackId s = root == 0 ? s_main : s_worker;
        uint64_t depth = 1 + next() % 32;
        uint64_t at = next() % wide_locs.size();
        for (uint64_t d = 0; d < depth; ++d) {
          s = p.internStack(s, wide_locs[at]);
          at = (at * 7 + 1 + next() % 3) % wide_locs.size();
        }
        paths[root].push_back(s);
      }
    }
  }
  // Another seed draws other samples from the same call paths.
  if (seed != 0) rng ^= seed * 0xD1B54A32D192ED03ULL;
  const uint64_t period = 1'001'001;  // ns at 999 Hz
  uint64_t t = 0;
  for (size_t i = 0; i < samples; ++i) {
    auto tid = static_cast<int32_t>(1000 + i % 3);
    StackId s;
    if (wide && i % 2 == 1) {
      uint64_t r = next() % kPaths;
      s = paths[tid == 1000 ? 0 : 1][r * r / kPaths];
    } else {
      const std::vector<StackId>& v = tid == 1000 ? main_stacks : worker_stacks;
      s = v[(i / 3) % 20];
    }
    t += period / 3;
    if (uneven && ((tid == 1000 && (i / 3) % 4 != 0) || (tid == 1001 && (i / 3) % 2 != 0))) {
      continue;
    }
    p.addSample({t, tid, static_cast<uint32_t>(i % 2), s, period});
  }
  m.duration_ns = t + period;
  return p;
}

model::Profile synthOffCpuProfile(size_t samples) {
  model::Profile p = synthProfile(samples, false);
  p.meta().off_cpu = 1;
  p.meta().off_cpu_min_ns = 100'000;
  const uint64_t half = p.meta().duration_ns / 2;
  size_t n = 0;
  for (model::Sample& s : p.mutableSamples()) {
    if (s.tid != 1002 || s.time_ns < half) continue;
    s.kind = model::SampleKind::kOffCpu;
    s.off_cpu_reason = n++ % 2 == 0 ? model::OffCpuReason::kLock : model::OffCpuReason::kIo;
  }
  // The command's own CPU, as record puts it beside the CPU samples: theirs
  // plus 10% (what a sampler misses), so a header adding off-CPU time to
  // it would show.
  uint64_t cpu_ns = 0;
  for (const model::Sample& s : p.samples()) {
    if (s.kind == model::SampleKind::kCpu) cpu_ns += s.weight;
  }
  p.meta().target = "command";
  p.meta().target_cpu_ns = cpu_ns + cpu_ns / 10;
  return p;
}

}  // namespace strobe::test

namespace strobe::test {

void addSynthSpans(model::Profile& p) {
  using namespace strobe::model;
  constexpr uint64_t kMs = 1'000'000;
  StringId request = p.internString("request");
  StringId parse = p.internString("parse");
  for (int32_t tid : {1001, 1002}) {
    Thread t = *p.findThread(tid);
    t.role = tid == 1001 ? "worker 1" : "worker 2";
    p.setThread(t);
    uint64_t at = 10 * kMs;
    for (int k = 0;; ++k) {
      uint64_t dur = 20 * kMs;
      if (tid == 1001 && k == 7) dur = 200 * kMs;
      if (tid == 1002 && k == 11) dur = 150 * kMs;
      if (at + dur > p.meta().duration_ns) break;
      p.addSpan(Span{tid, 0, at, at + dur, request});
      p.addSpan(Span{tid, 1, at, at + 2 * kMs, parse});
      at += dur + 30 * kMs;
    }
  }
}

}  // namespace strobe::test

namespace strobe::test {

model::Profile synthPhasesProfile(size_t samples, const std::string& source, size_t idle_threads) {
  using namespace strobe::model;
  Profile p;
  Meta& m = p.meta();
  synthMeta(m, {"/opt/phases/bin/phases"}, 2000, 1000);
  ModuleId app = p.internModule("/opt/phases/bin/phases", "");
  FunctionId f_main = p.internFunction("main", "main", source, 60);
  FunctionId f_one = p.internFunction("phase_one()", "_Z9phase_onev", source, 40);
  FunctionId f_two = p.internFunction("phase_two()", "_Z9phase_twov", source, 50);
  FunctionId f_hot = p.internFunction("hot_a()", "_Z5hot_av", source, 10);
  FunctionId f_warm = p.internFunction("warm_b()", "_Z6warm_bv", source, 20);
  FunctionId f_cold = p.internFunction("cold_c()", "_Z6cold_cv", source, 30);
  uint64_t next_offset = 0x1000;
  auto loc = [&](std::vector<Line> lines) {
    uint64_t off = next_offset;
    next_offset += 0x10;
    LocationId l = p.internLocation(app, off, 0x555555554000 + off);
    p.mutableLocations()[l].lines = std::move(lines);
    return l;
  };
  StackId s_main_one = p.internStack(kNone, loc({{f_main, 62}}));
  StackId s_main_two = p.internStack(kNone, loc({{f_main, 63}}));
  StackId s_one = p.internStack(s_main_one, loc({{f_one, 42}}));
  StackId s_two = p.internStack(s_main_two, loc({{f_two, 52}}));
  StackId s_hot11 = p.internStack(s_one, loc({{f_hot, 11}}));
  StackId s_hot12 = p.internStack(s_one, loc({{f_hot, 12}}));
  StackId s_hot13 = p.internStack(s_one, loc({{f_hot, 13}}));
  StackId s_warm = p.internStack(s_two, loc({{f_warm, 21}}));
  StackId s_cold = p.internStack(s_main_two, loc({{f_cold, 31}, {f_two, 53}}));
  p.setThread({2000, 2000, "main"});
  const uint64_t period = 1'000'000;
  const size_t one = samples * 6 / 10;  // phase one: 60% of the time
  for (size_t i = 0; i < samples; ++i) {
    StackId s;
    if (i < one) {
      size_t r = i % 12;  // lines 11, 13 and 12: 2, 1 and 9 in 12
      s = r < 2 ? s_hot11 : r == 2 ? s_hot13 : s_hot12;
    } else {
      s = i % 4 == 3 ? s_cold : s_warm;
    }
    p.addSample({i * period, 2000, 0, s, period});
  }
  m.duration_ns = samples * period;
  p.addSpan(Span{2000, 0, 0, one * period, p.internString("phase one")});
  for (size_t k = 0; k < idle_threads; ++k) {
    auto tid = static_cast<int32_t>(3000 + k);
    char name[16];
    std::snprintf(name, sizeof name, "idle-%02zu", k);
    Thread t{tid, 2000, name};
    if (k + 1 == idle_threads) t.role = "io worker";
    p.setThread(t);
    for (size_t i = 0; i <= k; ++i) p.addSample({(k + i) * period, tid, 1, s_cold, period});
  }
  return p;
}

model::Profile synthChangedProfile(size_t samples) {
  model::Profile p = synthProfile(samples, false);
  const uint64_t half_period = 1'001'001 / 2;
  // The function of a stack's leaf (its innermost line's), by name.
  auto leafName = [&](model::StackId s) -> std::string {
    if (s == model::kNone) return {};
    const model::Location& loc = p.locations()[p.stacks()[s].location];
    if (loc.lines.empty()) return {};
    return p.str(p.functions()[loc.lines.front().function].name);
  };
  std::vector<model::Sample> out;
  size_t hot = 0;
  size_t helper = 0;
  for (const model::Sample& s : p.samples()) {
    const std::string name = leafName(s.stack);
    if (name == kHostileName) continue;
    if (name == "synth::helper(int)" && helper++ % 2 == 1) continue;
    out.push_back(s);
    if (name == "synth::hot_loop()" && hot++ % 2 == 1) {
      model::Sample more = s;
      more.time_ns += half_period;
      out.push_back(more);
    }
  }
  p.mutableSamples() = std::move(out);
  return p;
}

}  // namespace strobe::test
