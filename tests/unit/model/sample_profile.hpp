// A small hand-built Profile shared by unit tests of the model and the
// writers: two threads, a main → compute → {hot, inlined helper} tree, one
// unresolved frame in libc, and one location outside any module.
#pragma once

#include "model/profile.hpp"

namespace strobe::test {

inline model::Profile sampleProfile() {
  using namespace strobe::model;
  Profile p;
  Meta& m = p.meta();
  m.command = {"./app", "--input", "big file.txt"};
  m.pid = 100;
  m.duration_ns = 2'500'000'000;
  m.frequency = 999;
  m.event = "cpu-clock";
  m.call_graph = "fp";
  m.lost_samples = 3;

  ModuleId app = p.internModule("/opt/app/bin/app", "abcd");
  ModuleId libc = p.internModule("/usr/lib/x86_64-linux-gnu/libc.so.6", "");
  FunctionId f_main = p.internFunction("main", "main", "/src/app/main.cpp", 10);
  FunctionId f_compute =
      p.internFunction("app::compute(int)", "_ZN3app7computeEi", "/src/app/compute.cpp", 20);
  FunctionId f_hot =
      p.internFunction("app::hot_loop()", "_ZN3app8hot_loopEv", "/src/app/compute.cpp", 40);
  FunctionId f_helper =
      p.internFunction("app::helper(int)", "_ZN3app6helperEi", "/src/app/helper.hpp", 5);

  LocationId l_main = p.internLocation(app, 0x1100, 0x555555555100);
  p.mutableLocations()[l_main].lines = {{f_main, 12}};
  LocationId l_compute = p.internLocation(app, 0x1200, 0x555555555200);
  p.mutableLocations()[l_compute].lines = {{f_compute, 25}};
  LocationId l_hot = p.internLocation(app, 0x1300, 0x555555555300);
  p.mutableLocations()[l_hot].lines = {{f_hot, 42}};
  LocationId l_hot2 = p.internLocation(app, 0x1310, 0x555555555310);
  p.mutableLocations()[l_hot2].lines = {{f_hot, 43}};
  // An inline chain: helper inlined into compute at compute.cpp:27.
  LocationId l_inl = p.internLocation(app, 0x1400, 0x555555555400);
  p.mutableLocations()[l_inl].lines = {{f_helper, 7}, {f_compute, 27}};
  LocationId l_libc = p.internLocation(libc, 0x9a0f0, 0x7ffff7c9a0f0);
  LocationId l_nowhere = p.internLocation(kNone, 0, 0xdeadbeef);

  StackId s_main = p.internStack(kNone, l_main);
  StackId s_compute = p.internStack(s_main, l_compute);
  StackId s_hot = p.internStack(s_compute, l_hot);
  StackId s_hot2 = p.internStack(s_compute, l_hot2);
  StackId s_inl = p.internStack(s_main, l_inl);
  StackId s_libc = p.internStack(s_compute, l_libc);
  StackId s_nowhere = p.internStack(kNone, l_nowhere);

  p.setThread({100, 100, "app"});
  p.setThread({101, 100, "worker-1"});
  const uint64_t ms = 1'000'000;
  uint64_t t = 0;
  auto add = [&](StackId s, int tid, int n) {
    for (int i = 0; i < n; ++i) p.addSample({t += ms, tid, 0, s, ms});
  };
  add(s_hot, 100, 40);
  add(s_hot2, 101, 20);
  add(s_inl, 101, 25);
  add(s_libc, 100, 10);
  add(s_compute, 100, 4);
  add(s_nowhere, 101, 1);
  return p;
}

}  // namespace strobe::test
