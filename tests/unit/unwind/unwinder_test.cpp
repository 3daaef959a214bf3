// The unwinder on the real fixture_deep_nofp binary (-O2
// -fomit-frame-pointer) with synthetic registers and a synthetic stack, frame
// by frame. The stack is laid out from binutils' view of the same binary:
// `readelf -wF` gives each pc's CFA (rsp + N) and `objdump -d` the return
// address of each call, so the test does not share the unwinder's reading
// of the CFI.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <sstream>

#include "../symbolize/fixture_tools.hpp"
#include "unwind/unwinder.hpp"

namespace strobe::unwind {
namespace {

using symbolize::testing::LoadRow;
using symbolize::testing::nmSymbols;
using symbolize::testing::readelfLoads;
using symbolize::testing::runCommand;

const std::string kNoFp = STROBE_BINARY_DIR "/tests/fixtures/fixture_deep_nofp";
const std::string kWithFp = STROBE_BINARY_DIR "/tests/fixtures/fixture_shares";
constexpr uint64_t kBase = 0x555555554000;  // where the test "maps" the PIE
constexpr uint64_t kStackBase = 0x7ffc00010000;
constexpr int kRip = 16, kRsp = 7, kRbp = 6;

// One row of readelf's CFI table: from `loc` on, CFA = reg + off.
struct CfiRow {
  uint64_t loc = 0;
  std::string cfa;  // e.g. "rsp+16"
  std::string ra;   // e.g. "c-8", "u"
};

struct Fde {
  uint64_t start = 0, end = 0;
  std::vector<CfiRow> rows;  // an FDE without instructions keeps its CIE's row
};

std::vector<Fde> readelfFdes(const std::string& bin) {
  std::vector<Fde> out;
  std::map<std::string, Fde> cies;  // by offset: their initial rows
  std::istringstream in(runCommand("readelf -wF '" + bin + "'"));
  std::string line;
  std::vector<std::string> columns;
  Fde* current = nullptr;
  while (std::getline(in, line)) {
    if (line.find(" CIE ") != std::string::npos) {
      current = &cies[line.substr(0, line.find(' '))];
      columns.clear();
      continue;
    }
    auto pc = line.find(" FDE ");
    if (pc != std::string::npos) {
      auto eq = line.find("pc=");
      auto dots = line.find("..", eq);
      auto cie = line.find("cie=");
      Fde f;
      f.start = std::strtoull(line.c_str() + eq + 3, nullptr, 16);
      f.end = std::strtoull(line.c_str() + dots + 2, nullptr, 16);
      if (cie != std::string::npos) {
        for (CfiRow r : cies[line.substr(cie + 4, line.find(' ', cie) - cie - 4)].rows) {
          r.loc = f.start;
          f.rows.push_back(r);
        }
      }
      out.push_back(f);
      current = &out.back();
      columns.clear();
      continue;
    }
    std::istringstream row(line);
    std::vector<std::string> cells;
    std::string c;
    while (row >> c) cells.push_back(c);
    if (cells.size() >= 2 && cells[0] == "LOC") {
      columns = cells;
      continue;
    }
    if (current == nullptr || columns.empty() || cells.size() != columns.size()) continue;
    CfiRow r;
    r.loc = std::strtoull(cells[0].c_str(), nullptr, 16);
    r.cfa = cells[1];
    r.ra = cells.back();  // readelf puts the return address column last
    current->rows.push_back(r);
  }
  return out;
}

// readelf's CFA offset from rsp at `pc`; -1 when not "rsp+N".
int64_t cfaOffsetAt(const std::vector<Fde>& fdes, uint64_t pc, std::string* ra = nullptr) {
  for (const Fde& f : fdes) {
    if (pc < f.start || pc >= f.end) continue;
    const CfiRow* at = nullptr;
    for (const CfiRow& r : f.rows) {
      if (r.loc <= pc) at = &r;  // the last row at or before pc (an FDE's own rows win)
    }
    if (at == nullptr) return -1;
    if (ra != nullptr) *ra = at->ra;
    if (at->cfa.rfind("rsp+", 0) != 0) return -1;
    return std::strtoll(at->cfa.c_str() + 4, nullptr, 10);
  }
  return -1;
}

// Return addresses of the calls from function `caller` to `callee`
// (mangled names), from objdump: the address of the next instruction.
std::vector<uint64_t> returnAddresses(const std::string& bin, const std::string& caller,
                                      const std::string& callee) {
  std::istringstream in(runCommand("objdump -d --no-show-raw-insn '" + bin + "'"));
  std::string line;
  bool inside = false;
  bool take_next = false;
  std::vector<uint64_t> out;
  while (std::getline(in, line)) {
    if (line.find(">:") != std::string::npos) {
      inside = line.find("<" + caller + ">:") != std::string::npos;
      continue;
    }
    if (!inside) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    uint64_t addr = std::strtoull(line.c_str(), nullptr, 16);
    if (take_next) {
      out.push_back(addr);
      take_next = false;
    }
    if (line.find("call") != std::string::npos &&
        line.find("<" + callee + ">") != std::string::npos) {
      take_next = true;
    }
  }
  return out;
}

// The fixture mapped at kBase (AVMA = kBase + SVMA), module 0.
class FixtureMap : public AddressMap {
 public:
  explicit FixtureMap(std::string path) : path_(std::move(path)), loads_(readelfLoads(path_)) {}
  bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const override {
    if (avma < kBase) return false;
    const uint64_t svma = avma - kBase;
    for (const LoadRow& l : loads_) {
      if (svma >= l.vaddr && svma - l.vaddr < l.file_size) {
        module = 0;
        file_offset = svma - l.vaddr + l.offset;
        return true;
      }
    }
    return false;
  }
  std::string modulePath(uint32_t) const override { return path_; }

 private:
  std::string path_;
  std::vector<LoadRow> loads_;
};

// A stack image being laid out: 8-byte slots from kStackBase up.
struct SyntheticStack {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0xa5);  // junk, never 0
  void put(uint64_t addr, uint64_t v) {
    ASSERT_GE(addr, kStackBase);
    ASSERT_LE(addr + 8 - kStackBase, bytes.size());
    std::memcpy(&bytes[addr - kStackBase], &v, 8);
  }
  StackCopy copy(size_t size) const { return StackCopy{kStackBase, bytes.data(), size}; }
};

class UnwinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    syms_ = nmSymbols(kNoFp);
    fdes_ = readelfFdes(kNoFp);
    ASSERT_FALSE(fdes_.empty()) << "readelf -wF found no FDEs in " << kNoFp;
    ASSERT_TRUE(syms_.count("_Z8leaf_sixv") && syms_.count("_Z7recursei") &&
                syms_.count("_Z6workeri") && syms_.count("_start"));
    after_leaf_ = returnAddresses(kNoFp, "_Z7recursei", "_Z8leaf_sixv");
    after_recurse_ = returnAddresses(kNoFp, "_Z7recursei", "_Z7recursei");
    after_worker_call_ = returnAddresses(kNoFp, "_Z6workeri", "_Z7recursei");
    ASSERT_EQ(after_leaf_.size(), 1u);
    ASSERT_EQ(after_recurse_.size(), 1u);
    ASSERT_EQ(after_worker_call_.size(), 1u);
  }

  // Lays out leaf_six <- recurse x30 <- worker: `pcs` (SVMAs, leaf first,
  // return addresses for callers) and their frames; returns the sp and
  // fills `end` with the address of worker's return-address slot.
  uint64_t layOut(SyntheticStack& s, std::vector<uint64_t>& pcs, uint64_t& end) {
    pcs.clear();
    pcs.push_back(syms_["_Z8leaf_sixv"] + 0x3c);  // inside the loop
    pcs.push_back(after_leaf_[0]);
    for (int i = 0; i < 29; ++i) pcs.push_back(after_recurse_[0]);
    pcs.push_back(after_worker_call_[0]);
    uint64_t sp = kStackBase + 64;
    const uint64_t first_sp = sp;
    for (size_t i = 0; i < pcs.size(); ++i) {
      const uint64_t lookup = i == 0 ? pcs[i] : pcs[i] - 1;
      std::string ra;
      const int64_t off = cfaOffsetAt(fdes_, lookup, &ra);
      EXPECT_GT(off, 0) << "no rsp-based CFA at 0x" << std::hex << lookup;
      EXPECT_EQ(ra, "c-8") << "at 0x" << std::hex << lookup;
      const uint64_t cfa = sp + static_cast<uint64_t>(off);
      end = cfa - 8;
      if (i + 1 < pcs.size()) s.put(cfa - 8, kBase + pcs[i + 1]);
      sp = cfa;
    }
    return first_sp;
  }

  // layOut()'s stack, and the registers at its leaf (rip, rsp).
  Registers leafRegisters(SyntheticStack& s, std::vector<uint64_t>& pcs, uint64_t& end) {
    const uint64_t sp = layOut(s, pcs, end);
    Registers regs;
    regs.set(kRip, kBase + pcs[0]);
    regs.set(kRsp, sp);
    return regs;
  }

  std::map<std::string, uint64_t> syms_;
  std::vector<Fde> fdes_;
  std::vector<uint64_t> after_leaf_, after_recurse_, after_worker_call_;
};

TEST_F(UnwinderTest, FixtureIsBuiltWithoutFramePointers) {
  // No function of the fixture's own code computes its CFA from rbp.
  for (const Fde& f : fdes_) {
    for (const CfiRow& r : f.rows) EXPECT_EQ(r.cfa.find("rbp"), std::string::npos) << r.cfa;
  }
  auto nofp = ModuleCfi::open(kNoFp);
  ASSERT_TRUE(nofp.ok()) << nofp.error().describe();
  EXPECT_FALSE((*nofp)->usesFramePointers());
  auto withfp = ModuleCfi::open(kWithFp);
  ASSERT_TRUE(withfp.ok()) << withfp.error().describe();
  EXPECT_TRUE((*withfp)->usesFramePointers());
}

TEST_F(UnwinderTest, WalksThirtyRecursiveFramesFrameByFrame) {
  SyntheticStack s;
  std::vector<uint64_t> pcs;
  uint64_t end = 0;
  Registers regs = leafRegisters(s, pcs, end);
  ASSERT_EQ(pcs.size(), 32u);
  regs.set(kRbp, 0x1234);  // rbp is a general register here
  FixtureMap map(kNoFp);
  Unwinder u;
  std::vector<uint64_t> frames(64, 0);
  // The copy ends right before worker's return-address slot.
  UnwindResult r =
      u.unwind(map, regs, s.copy(end - kStackBase), nullptr, 0, frames.data(), frames.size());
  ASSERT_EQ(r.frames, pcs.size());
  for (size_t i = 0; i < pcs.size(); ++i) {
    EXPECT_EQ(frames[i], kBase + pcs[i]) << "frame " << i;
  }
  EXPECT_EQ(r.reason, StopReason::kStackCopy);
  EXPECT_FALSE(r.spliced);

  // Memoized: the same walk again compiles no new rule and gives the same frames.
  const uint64_t misses = u.stats().rule_misses;
  EXPECT_LE(misses, 4u);  // leaf_six, recurse (two call sites), worker
  std::vector<uint64_t> again(64, 0);
  r = u.unwind(map, regs, s.copy(end - kStackBase), nullptr, 0, again.data(), again.size());
  EXPECT_EQ(u.stats().rule_misses, misses);
  EXPECT_EQ(again, frames);
}

TEST_F(UnwinderTest, EveryLoadStaysInsideTheCopy) {
  SyntheticStack s;
  std::vector<uint64_t> pcs;
  uint64_t end = 0;
  Registers regs = leafRegisters(s, pcs, end);
  FixtureMap map(kNoFp);
  Unwinder u;
  std::vector<uint64_t> frames(64, 0);
  // A copy of 0 bytes: only the leaf, then the copy ends.
  UnwindResult r = u.unwind(map, regs, s.copy(0), nullptr, 0, frames.data(), frames.size());
  EXPECT_EQ(r.frames, 1u);
  EXPECT_EQ(r.reason, StopReason::kStackCopy);
  // A copy that ends inside the 10th frame's return-address slot.
  r = u.unwind(map, regs, s.copy(200), nullptr, 0, frames.data(), frames.size());
  EXPECT_GT(r.frames, 1u);
  EXPECT_LT(r.frames, pcs.size());
  EXPECT_EQ(r.reason, StopReason::kStackCopy);
  // A frames buffer too small.
  r = u.unwind(map, regs, s.copy(end - kStackBase), nullptr, 0, frames.data(), 5);
  EXPECT_EQ(r.frames, 5u);
  EXPECT_EQ(r.reason, StopReason::kDepthLimit);
  // No stack pointer: nothing to unwind.
  Registers no_sp;
  no_sp.set(kRip, kBase + pcs[0]);
  r = u.unwind(map, no_sp, s.copy(end - kStackBase), nullptr, 0, frames.data(), frames.size());
  EXPECT_EQ(r.frames, 0u);
}

TEST_F(UnwinderTest, StartIsTheOutermostFrame) {
  // _start's CFI marks the return address undefined: a complete stack.
  std::string ra;
  cfaOffsetAt(fdes_, syms_["_start"] + 4, &ra);
  EXPECT_EQ(ra, "u");
  SyntheticStack s;
  Registers regs;
  regs.set(kRip, kBase + syms_["_start"] + 4);
  regs.set(kRsp, kStackBase + 64);
  FixtureMap map(kNoFp);
  Unwinder u;
  std::vector<uint64_t> frames(8, 0);
  UnwindResult r = u.unwind(map, regs, s.copy(1024), nullptr, 0, frames.data(), frames.size());
  EXPECT_EQ(r.frames, 1u);
  EXPECT_EQ(r.reason, StopReason::kEntry);
}

// The descriptors this process has open, read in-process (a child's `ls`
// may see a pipe popen() has not closed yet).
size_t openDescriptors() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return 0;
  size_t n = 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(d);
  return n - 1;  // the directory's own descriptor
}

TEST_F(UnwinderTest, IdleModulesCloseAndOpenAgainOnTheirNextMiss) {
  SyntheticStack s;
  std::vector<uint64_t> pcs;
  uint64_t end = 0;
  Registers regs = leafRegisters(s, pcs, end);
  FixtureMap map(kNoFp);
  Unwinder u(UnwindMode::kAuto);
  const size_t before = openDescriptors();
  std::vector<uint64_t> frames(64, 0);
  UnwindResult r =
      u.unwind(map, regs, s.copy(end - kStackBase), nullptr, 0, frames.data(), frames.size());
  ASSERT_EQ(r.frames, pcs.size());
  EXPECT_EQ(u.stats().modules, 1u);
  EXPECT_EQ(openDescriptors(), before + 1);  // the fixture's CFI

  // Used since the last call: kept open (its pages let go).
  EXPECT_EQ(u.closeIdleModules(), 0u);
  EXPECT_EQ(openDescriptors(), before + 1);
  // Idle since: closed, its descriptor with it.
  EXPECT_EQ(u.closeIdleModules(), 1u);
  EXPECT_EQ(u.stats().modules_closed, 1u);
  EXPECT_EQ(openDescriptors(), before);

  // The memoized rules and the -g auto judgment outlive the close: the same
  // walk opens nothing.
  const uint64_t misses = u.stats().rule_misses;
  std::vector<uint64_t> again(64, 0);
  r = u.unwind(map, regs, s.copy(end - kStackBase), nullptr, 0, again.data(), again.size());
  EXPECT_EQ(again, frames);
  EXPECT_EQ(u.stats().rule_misses, misses);
  EXPECT_EQ(u.stats().modules, 1u);
  EXPECT_EQ(openDescriptors(), before);

  // A pc no rule was compiled for opens the module again.
  const auto start = u.framePointerSetUp(map, kBase + syms_["_start"] + 4);
  EXPECT_TRUE(start.has_value());
  EXPECT_EQ(u.stats().modules, 2u);
  EXPECT_EQ(openDescriptors(), before + 1);
}

// An address map with one module that has no file (like [vdso] or JIT code).
class NoFileMap : public AddressMap {
 public:
  bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const override {
    module = 0;
    file_offset = avma;
    return true;
  }
  std::string modulePath(uint32_t) const override { return "[anon]"; }
};

TEST_F(UnwinderTest, FramePointerChainIsSplicedWhereCfiIsMissing) {
  SyntheticStack s;
  // The kernel walked rbp: 0x..100 -> 0x..200 -> 0.
  s.put(kStackBase + 0x100, kStackBase + 0x200);
  s.put(kStackBase + 0x200, 0);
  Registers regs;
  regs.set(kRip, 0x1000);
  regs.set(kRsp, kStackBase + 0x40);
  regs.set(kRbp, kStackBase + 0x100);
  const uint64_t chain[] = {0x1000, 0x2005, 0x3005};
  NoFileMap map;
  Unwinder u;
  std::vector<uint64_t> frames(8, 0);
  UnwindResult r = u.unwind(map, regs, s.copy(1024), chain, 3, frames.data(), frames.size());
  EXPECT_EQ(r.reason, StopReason::kNoCfi);
  EXPECT_TRUE(r.spliced);
  ASSERT_EQ(r.frames, 3u);
  EXPECT_EQ(frames[1], 0x2005u);
  EXPECT_EQ(frames[2], 0x3005u);
}

TEST_F(UnwinderTest, HostileStacksNeverEscapeTheCopy) {
  // Random stack contents and registers: every walk ends inside its bounds
  // (ASan builds check the reads), never loops, never overfills frames.
  FixtureMap map(kNoFp);
  Unwinder u;
  std::vector<uint64_t> frames(64, 0);
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const uint64_t text = syms_["_Z8leaf_sixv"];
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(64 + next() % 512);
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      // Mostly plausible return addresses and stack pointers, some junk.
      uint64_t v = next();
      if (v % 3 == 0) v = kBase + text + v % 0x200;
      if (v % 3 == 1) v = kStackBase + v % 1024;
      std::memcpy(&bytes[i], &v, 8);
    }
    Registers regs;
    regs.set(kRip, kBase + text + next() % 0x200);
    regs.set(kRsp, kStackBase + next() % 64);
    regs.set(kRbp, kStackBase + next() % 1024);
    const uint64_t chain[] = {regs.r[kRip], next(), next(), 0, next()};
    StackCopy copy{kStackBase, bytes.data(), bytes.size()};
    UnwindResult r = u.unwind(map, regs, copy, chain, 5, frames.data(), frames.size());
    ASSERT_GE(r.frames, 1u);
    ASSERT_LE(r.frames, frames.size());
  }
}

}  // namespace
}  // namespace strobe::unwind
