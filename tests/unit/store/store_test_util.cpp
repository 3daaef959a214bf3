#include "store_test_util.hpp"

#include "model/frames.hpp"

namespace strobe::test {

using namespace strobe::model;

Profile richProfile() {
  Profile p;
  Meta& m = p.meta();
  m.command = {"./app",       "--name", "big file.txt",       "say \"hi\" 'there'",
               "back\\slash", "",       "tab\there\nnewline", "caf\xc3\xa9",
               "ctl\x01"};
  m.pid = 4242;
  m.start_realtime_ns = 1'714'567'890'123'456'789ULL;
  m.start_monotonic_ns = 98'765'432'100ULL;
  m.duration_ns = 2'500'000'000ULL;
  m.frequency = 999;
  m.event = "cpu-clock";
  m.call_graph = "fp";
  m.hostname = "build host";
  m.kernel = "6.1.0-18-amd64";
  m.strobe_version = "0.1.0";
  m.lost_samples = 3;
  m.throttle_events = 2;
  m.throttled_ns = 3'000'000;
  m.throttle_weighted_ns = 2'000'000;
  m.target_cpu_ns = 4'999'000'000ULL;
  m.refused_threads = 7;
  m.refused_reason = "cannot map a 8 KiB perf ring: over kernel.perf_event_mlock_kb";
  m.exit_status = 130;
  m.stopped_reason = "sampling stopped early";
  m.source = "perf.data (perf 6.1): perf record -g -- ./app";
  m.cpu = "AMD EPYC";
  m.engine = "bpf";
  m.off_cpu = 1;
  m.off_cpu_min_ns = 100'000;
  m.off_cpu_short_count = 321;
  m.off_cpu_short_ns = 12'345'678;
  m.switch_records_lost = 4;
  m.switch_unpaired = 5;

  ModuleId app = p.internModule("/opt/app/bin/app", "abcd1234");
  ModuleId libc = p.internModule("/usr/lib/x86_64-linux-gnu/libc.so.6", "");
  ModuleId kernel = p.internModule("[kernel.kallsyms]", "");
  FunctionId f_main = p.internFunction("main", "main", "/src/app/main.cpp", 10);
  FunctionId f_compute =
      p.internFunction("app::compute(int)", "_ZN3app7computeEi", "/src/app/compute.cpp", 20);
  FunctionId f_helper =
      p.internFunction("app::helper(int)", "_ZN3app6helperEi", "/src/app/helper.hpp", 5);
  FunctionId f_memcpy = p.internFunction("__memcpy_avx_unaligned", "__memcpy_avx_unaligned", "", 0);
  FunctionId f_irq = p.internFunction("asm_sysvec_apic_timer_interrupt", "", "", 0);

  LocationId l_main = p.internLocation(app, 0x1100, 0x555555555100);
  p.mutableLocations()[l_main].lines = {{f_main, 12}};
  LocationId l_compute = p.internLocation(app, 0x1200, 0x555555555200);
  // A line of an inlined header that DWARF gave no inline entry.
  p.mutableLocations()[l_compute].lines = {
      {f_compute, 25, p.internString("/usr/include/c++/12/bits/vector.h")}};
  LocationId l_inline = p.internLocation(app, 0x1400, 0x555555555400);  // helper inlined
  p.mutableLocations()[l_inline].lines = {{f_helper, 7}, {f_compute, 27}};
  LocationId l_memcpy = p.internLocation(libc, 0x9a0f0, 0x7ffff7c9a0f0);
  p.mutableLocations()[l_memcpy].lines = {{f_memcpy, 0}};
  LocationId l_libc_raw = p.internLocation(libc, 0x2a1c9, 0x7ffff7c2a1c9);  // unsymbolized
  LocationId l_kernel = p.internLocation(kernel, 0xffffffff81e00c2aULL, 0xffffffff81e00c2aULL);
  p.mutableLocations()[l_kernel].lines = {{f_irq, 0}};
  LocationId l_nowhere = p.internLocation(kNone, 0, 0xdeadbeef);

  StackId s_main = p.internStack(kNone, l_main);
  StackId s_compute = p.internStack(s_main, l_compute);
  StackId s_inline = p.internStack(s_compute, l_inline);
  StackId s_memcpy = p.internStack(s_inline, l_memcpy);
  StackId s_kernel = p.internStack(s_memcpy, l_kernel);
  StackId s_raw = p.internStack(s_main, l_libc_raw);
  StackId s_nowhere = p.internStack(kNone, l_nowhere);

  p.setThread({4243, 4242, "worker 1", "worker 3"});
  p.setThread({4242, 4242, "app"});
  p.setThread({4300, 4242, "\xe7\xba\xbf\xe7\xa8\x8b"});
  p.setThread({4301, 4242, ""});

  p.meta().dropped_spans = 7;
  p.addSpan({4243, 0, 1'000, 90'000, p.internString("request")});
  p.addSpan({4243, 1, 2'000, 3'000, p.internString("parse 'q' \"x\"")});
  p.addSpan({4242, 0, 0xFFFFFFFFFFFFFF00ULL, 0xFFFFFFFFFFFFFFF0ULL, p.internString("")});

  const StackId stacks[] = {s_compute, s_inline, s_memcpy, s_kernel, s_raw, s_nowhere, kNone};
  uint64_t t = 0;
  for (int i = 0; i < 40; ++i) {
    t += 1'000'000 + static_cast<uint64_t>(i);
    int32_t tid = i % 3 == 0 ? 4242 : 4243;
    p.addSample({t, tid, static_cast<uint32_t>(i % 4), stacks[i % 7],
                 1'000'000 + static_cast<uint64_t>(i) * 1000,
                 static_cast<StackEnd>(i % (model::kMaxStackEnd + 1))});
  }
  // Off-CPU intervals, one per reason.
  for (uint8_t r = 0; r <= model::kMaxOffCpuReason; ++r) {
    Sample off{t + 2 + r, 4243, 1, stacks[r % 7], 250'000 + static_cast<uint64_t>(r)};
    off.kind = SampleKind::kOffCpu;
    off.off_cpu_reason = static_cast<OffCpuReason>(r);
    p.addSample(off);
  }
  p.addSample({t + 1, 4300, 7, s_memcpy, 1});  // weights are below 2^63 (docs/FORMAT.md)
  return p;
}

Profile syntheticProfile(size_t samples) {
  Profile p;
  p.meta().command = {"./synthetic"};
  p.meta().event = "cpu-clock";
  ModuleId app = p.internModule("/opt/app/bin/app", "feedface");
  std::vector<StackId> leaves;
  for (uint32_t f = 0; f < 200; ++f) {
    FunctionId fn = p.internFunction("fn" + std::to_string(f) + "()", "_Z2fn" + std::to_string(f),
                                     "/src/app/file" + std::to_string(f % 20) + ".cpp", f);
    StackId parent = kNone;
    for (uint32_t d = 0; d < 8; ++d) {
      LocationId loc = p.internLocation(app, 0x1000 + f * 0x100 + d * 8, 0x400000 + f * 0x100);
      p.mutableLocations()[loc].lines = {{fn, f + d}};
      parent = p.internStack(parent, loc);
    }
    leaves.push_back(parent);
  }
  for (int32_t tid = 100; tid < 108; ++tid) p.setThread({tid, 100, "worker"});
  p.mutableSamples().reserve(samples);
  for (size_t i = 0; i < samples; ++i) {
    p.addSample({i * 10'101, static_cast<int32_t>(100 + i % 8), static_cast<uint32_t>(i % 16),
                 leaves[(i * 7919) % leaves.size()], 10'101'010});
  }
  return p;
}

void expectSameProfile(const Profile& a, const Profile& b) {
  const Meta& x = a.meta();
  const Meta& y = b.meta();
  EXPECT_EQ(x.command, y.command);
  EXPECT_EQ(x.pid, y.pid);
  EXPECT_EQ(x.start_realtime_ns, y.start_realtime_ns);
  EXPECT_EQ(x.start_monotonic_ns, y.start_monotonic_ns);
  EXPECT_EQ(x.duration_ns, y.duration_ns);
  EXPECT_EQ(x.frequency, y.frequency);
  EXPECT_EQ(x.event, y.event);
  EXPECT_EQ(x.call_graph, y.call_graph);
  EXPECT_EQ(x.hostname, y.hostname);
  EXPECT_EQ(x.kernel, y.kernel);
  EXPECT_EQ(x.strobe_version, y.strobe_version);
  EXPECT_EQ(x.lost_samples, y.lost_samples);
  EXPECT_EQ(x.throttle_events, y.throttle_events);
  EXPECT_EQ(x.throttled_ns, y.throttled_ns);
  EXPECT_EQ(x.throttle_weighted_ns, y.throttle_weighted_ns);
  EXPECT_EQ(x.target_cpu_ns, y.target_cpu_ns);
  EXPECT_EQ(x.refused_threads, y.refused_threads);
  EXPECT_EQ(x.refused_reason, y.refused_reason);
  EXPECT_EQ(x.incomplete, y.incomplete);
  EXPECT_EQ(x.stopped_reason, y.stopped_reason);
  EXPECT_EQ(x.source, y.source);
  EXPECT_EQ(x.cpu, y.cpu);
  EXPECT_EQ(x.engine, y.engine);
  EXPECT_EQ(x.exit_status, y.exit_status);
  EXPECT_EQ(x.dropped_spans, y.dropped_spans);
  EXPECT_EQ(x.off_cpu, y.off_cpu);
  EXPECT_EQ(x.off_cpu_min_ns, y.off_cpu_min_ns);
  EXPECT_EQ(x.off_cpu_short_count, y.off_cpu_short_count);
  EXPECT_EQ(x.off_cpu_short_ns, y.off_cpu_short_ns);
  EXPECT_EQ(x.switch_records_lost, y.switch_records_lost);
  EXPECT_EQ(x.switch_unpaired, y.switch_unpaired);

  ASSERT_EQ(a.modules().size(), b.modules().size());
  for (size_t i = 0; i < a.modules().size(); ++i) {
    EXPECT_EQ(a.str(a.modules()[i].path), b.str(b.modules()[i].path)) << "module " << i;
    EXPECT_EQ(a.str(a.modules()[i].build_id), b.str(b.modules()[i].build_id)) << "module " << i;
  }
  ASSERT_EQ(a.functions().size(), b.functions().size());
  for (size_t i = 0; i < a.functions().size(); ++i) {
    const Function& f = a.functions()[i];
    const Function& g = b.functions()[i];
    EXPECT_EQ(a.str(f.name), b.str(g.name)) << "function " << i;
    EXPECT_EQ(a.str(f.system_name), b.str(g.system_name)) << "function " << i;
    EXPECT_EQ(a.str(f.file), b.str(g.file)) << "function " << i;
    EXPECT_EQ(f.start_line, g.start_line) << "function " << i;
  }
  ASSERT_EQ(a.locations().size(), b.locations().size());
  for (size_t i = 0; i < a.locations().size(); ++i) {
    const Location& l = a.locations()[i];
    const Location& m = b.locations()[i];
    EXPECT_EQ(l.module, m.module) << "location " << i;
    EXPECT_EQ(l.address, m.address) << "location " << i;
    EXPECT_EQ(l.offset, m.offset) << "location " << i;
    ASSERT_EQ(l.lines.size(), m.lines.size()) << "location " << i;
    for (size_t k = 0; k < l.lines.size(); ++k) {
      EXPECT_EQ(l.lines[k].function, m.lines[k].function) << "location " << i << " line " << k;
      EXPECT_EQ(l.lines[k].line, m.lines[k].line) << "location " << i << " line " << k;
      EXPECT_EQ(a.str(model::lineFile(a, l.lines[k])), b.str(model::lineFile(b, m.lines[k])))
          << "location " << i << " line " << k;
    }
  }
  ASSERT_EQ(a.stacks().size(), b.stacks().size());
  for (size_t i = 0; i < a.stacks().size(); ++i) {
    EXPECT_EQ(a.stacks()[i].parent, b.stacks()[i].parent) << "stack " << i;
    EXPECT_EQ(a.stacks()[i].location, b.stacks()[i].location) << "stack " << i;
  }
  ASSERT_EQ(a.samples().size(), b.samples().size());
  for (size_t i = 0; i < a.samples().size(); ++i) {
    const Sample& s = a.samples()[i];
    const Sample& t = b.samples()[i];
    EXPECT_EQ(s.time_ns, t.time_ns) << "sample " << i;
    EXPECT_EQ(s.tid, t.tid) << "sample " << i;
    EXPECT_EQ(s.cpu, t.cpu) << "sample " << i;
    EXPECT_EQ(s.stack, t.stack) << "sample " << i;
    EXPECT_EQ(s.weight, t.weight) << "sample " << i;
    EXPECT_EQ(s.stack_end, t.stack_end) << "sample " << i;
    EXPECT_EQ(s.kind, t.kind) << "sample " << i;
    EXPECT_EQ(s.off_cpu_reason, t.off_cpu_reason) << "sample " << i;
  }
  ASSERT_EQ(a.threads().size(), b.threads().size());
  for (size_t i = 0; i < a.threads().size(); ++i) {
    EXPECT_EQ(a.threads()[i].tid, b.threads()[i].tid) << "thread " << i;
    EXPECT_EQ(a.threads()[i].pid, b.threads()[i].pid) << "thread " << i;
    EXPECT_EQ(a.threads()[i].name, b.threads()[i].name) << "thread " << i;
    EXPECT_EQ(a.threads()[i].role, b.threads()[i].role) << "thread " << i;
  }
  ASSERT_EQ(a.spans().size(), b.spans().size());
  for (size_t i = 0; i < a.spans().size(); ++i) {
    const Span& s = a.spans()[i];
    const Span& t = b.spans()[i];
    EXPECT_EQ(s.tid, t.tid) << "span " << i;
    EXPECT_EQ(s.depth, t.depth) << "span " << i;
    EXPECT_EQ(s.start_ns, t.start_ns) << "span " << i;
    EXPECT_EQ(s.end_ns, t.end_ns) << "span " << i;
    EXPECT_EQ(a.str(s.name), b.str(t.name)) << "span " << i;
  }
}

}  // namespace strobe::test
