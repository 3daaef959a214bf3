#include "unwind/unwinder.hpp"

#include <cstring>

namespace strobe::unwind {
namespace {

constexpr size_t kInitialSlots = 4096;
constexpr int kOffsetBits = 40;
constexpr uint64_t kMaxMemoModule = (uint64_t{1} << (64 - kOffsetBits)) - 2;
constexpr uint64_t kMaxMemoOffset = (uint64_t{1} << kOffsetBits) - 1;

enum class Load { kOk, kPastCopy, kBelowCopy };

// One u64 from the stack copy, bounds-checked.
inline Load load(const StackCopy& stack, uint64_t addr, uint64_t& out) {
  if (addr < stack.base) return Load::kBelowCopy;
  const uint64_t off = addr - stack.base;
  if (off > stack.size || stack.size - off < sizeof(uint64_t)) return Load::kPastCopy;
  std::memcpy(&out, stack.data + off, sizeof out);
  return Load::kOk;
}

inline StopReason failedLoad(Load l) {
  return l == Load::kPastCopy ? StopReason::kStackCopy : StopReason::kBadFrame;
}

inline size_t slotOf(uint64_t key, size_t mask) {
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

}  // namespace

Unwinder::Unwinder(UnwindMode mode) : mode_(mode), slots_(kInitialSlots) {}
Unwinder::~Unwinder() = default;

ModuleCfi* Unwinder::moduleCfi(const AddressMap& map, uint32_t module) {
  if (module >= modules_.size()) modules_.resize(module + 1);
  ModuleState& m = modules_[module];
  m.used = true;
  if (!m.tried) {
    m.tried = true;
    std::string path = map.modulePath(module);
    if (!path.empty() && path[0] != '[') {
      auto cfi = ModuleCfi::open(path);
      if (cfi.ok()) {
        m.cfi = std::move(*cfi);
        ++stats_.modules;
      } else {
        ++stats_.module_errors;
      }
    }
  }
  return m.cfi.get();
}

std::optional<bool> Unwinder::framePointerSetUp(const AddressMap& map, uint64_t pc) {
  uint32_t module = 0;
  uint64_t offset = 0;
  if (!map.find(pc, module, offset)) return std::nullopt;
  // Read from the FDE alone where that can tell: a rule from libdw would
  // first check the whole .eh_frame (module_cfi.cpp).
  if (ModuleCfi* cfi = moduleCfi(map, module); cfi != nullptr) {
    const CfaAt at = cfi->cfaAt(offset);
    if (at.kind == CfaAt::kRegister) return at.reg == static_cast<uint32_t>(archRegs().fp);
    if (at.kind == CfaAt::kNone) return std::nullopt;
  }
  const Rule& r = ruleFor(map, module, offset);
  if (r.cfa_kind == Rule::kCfaNone) return std::nullopt;
  return r.cfa_reg == archRegs().fp;
}

bool Unwinder::moduleUsesFramePointers(const AddressMap& map, uint32_t module) {
  if (module < modules_.size() && modules_[module].uses_fp >= 0) {
    return modules_[module].uses_fp == 1;
  }
  ModuleCfi* cfi = moduleCfi(map, module);
  const bool uses_fp = cfi != nullptr && cfi->usesFramePointers();
  modules_[module].uses_fp = uses_fp ? 1 : 0;
  return uses_fp;
}

size_t Unwinder::closeIdleModules() {
  size_t closed = 0;
  for (ModuleState& m : modules_) {
    if (m.cfi != nullptr && !m.used) {
      m.cfi.reset();
      m.tried = false;
      ++closed;
    } else if (m.cfi != nullptr) {
      m.cfi->releasePages();
    }
    m.used = false;
  }
  stats_.modules_closed += closed;
  return closed;
}

void Unwinder::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key == 0) continue;
    size_t i = slotOf(s.key, mask);
    while (slots_[i].key != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

const Rule& Unwinder::ruleFor(const AddressMap& map, uint32_t module, uint64_t offset) {
  static const Rule kNoRule{};
  if (module > kMaxMemoModule || offset > kMaxMemoOffset) {
    // Outside what a key encodes (files over 1 TiB): no memo, no CFI.
    return kNoRule;
  }
  const uint64_t key = ((uint64_t{module} + 1) << kOffsetBits) | offset;
  size_t mask = slots_.size() - 1;
  size_t i = slotOf(key, mask);
  while (slots_[i].key != 0) {
    if (slots_[i].key == key) return slots_[i].rule;
    i = (i + 1) & mask;
  }
  ++stats_.rule_misses;
  ModuleCfi* cfi = moduleCfi(map, module);
  Rule rule = cfi != nullptr ? cfi->ruleAt(offset) : Rule{};
  if ((used_ + 1) * 2 > slots_.size()) {
    grow();
    mask = slots_.size() - 1;
    i = slotOf(key, mask);
    while (slots_[i].key != 0) i = (i + 1) & mask;
  }
  slots_[i] = Slot{key, rule};
  ++used_;
  return slots_[i].rule;
}

UnwindResult Unwinder::unwind(const AddressMap& map, const Registers& initial,
                              const StackCopy& stack, const uint64_t* fp_chain, size_t fp_chain_len,
                              uint64_t* frames, size_t max) {
  const ArchRegs& a = archRegs();
  UnwindResult res;
  if (max == 0 || !initial.has(a.ip) || !initial.has(a.sp)) return res;
  Registers regs = initial;
  size_t n = 0;
  frames[n++] = regs.r[a.ip];
  StopReason reason = StopReason::kBadFrame;
  // Whether the frame where the walk stopped keeps its frame pointer in fp
  // (its CFA is fp-based, or it was stepped by frame pointer), or has no CFI
  // at all (then the frame-pointer chain is the only guess, as in -g fp).
  // Only then is fp a link of the kernel's chain; in code without frame
  // pointers it may hold an outer frame's pointer, and a splice would skip
  // the frames in between.
  bool fp_frame = false;
  for (;;) {
    if (n >= max) {
      reason = StopReason::kDepthLimit;
      break;
    }
    fp_frame = false;
    const uint64_t pc = regs.r[a.ip];
    // A caller's pc is a return address: look up the call instruction.
    const uint64_t lookup = n == 1 ? pc : pc - 1;
    uint32_t module = 0;
    uint64_t offset = 0;
    if (!map.find(lookup, module, offset)) {
      reason = StopReason::kBadFrame;
      break;
    }
    const uint64_t sp = regs.r[a.sp];
    uint64_t cfa = 0;
    uint64_t ra = 0;
    bool fp_known = regs.has(a.fp);
    uint64_t fp = regs.r[a.fp];
    if (mode_ == UnwindMode::kAuto && n > 1 && moduleUsesFramePointers(map, module)) {
      // A caller in a module that keeps frame pointers: its frame is set up
      // (it made a call), so the frame record at fp is valid.
      fp_frame = true;
      // The outermost frame's frame pointer is 0 (the psABI asks _start to
      // clear it; its CFI marks the return address undefined too).
      if (fp_known && fp == 0) {
        reason = StopReason::kEntry;
        break;
      }
      if (!fp_known || fp < sp) {
        reason = StopReason::kBadFrame;
        break;
      }
      Load l = load(stack, fp + 8, ra);
      if (l == Load::kOk) l = load(stack, fp, fp);
      if (l != Load::kOk) {
        reason = failedLoad(l);
        break;
      }
      cfa = regs.r[a.fp] + 16;
    } else {
      Rule known;
      const Rule* rule = &ruleFor(map, module, offset);
      if (rule->cfa_kind == Rule::kCfaNone) {
        // No CFI: a stub the map knows (CPython's perf trampolines)?
        known = map.knownCodeRule(pc, n > 1);
        rule = &known;
      }
      const Rule& r = *rule;
      if (r.cfa_kind == Rule::kCfaNone) {
        fp_frame = true;
        reason = StopReason::kNoCfi;
        break;
      }
      fp_frame = r.cfa_kind == Rule::kCfaReg && r.cfa_reg == a.fp;
      if (!regs.has(r.cfa_reg)) {
        reason = StopReason::kBadFrame;
        break;
      }
      cfa = regs.r[r.cfa_reg] + static_cast<uint64_t>(static_cast<int64_t>(r.cfa_off));
      if (r.cfa_kind == Rule::kCfaRegDeref) {
        if (Load l = load(stack, cfa, cfa); l != Load::kOk) {
          reason = failedLoad(l);
          break;
        }
      }
      if (r.ra == Rule::kUndefined) {
        reason = StopReason::kEntry;
        break;
      }
      const uint64_t ra_at = cfa + static_cast<uint64_t>(static_cast<int64_t>(r.ra_off));
      if (r.ra == Rule::kAtCfa) {
        if (Load l = load(stack, ra_at, ra); l != Load::kOk) {
          reason = failedLoad(l);
          break;
        }
      } else if (r.ra == Rule::kValCfa) {
        ra = ra_at;
      } else {
        reason = StopReason::kNoCfi;
        break;
      }
      const uint64_t fp_at = cfa + static_cast<uint64_t>(static_cast<int64_t>(r.fp_off));
      switch (r.fp) {
        case Rule::kSame:
          break;
        case Rule::kAtCfa:
          fp_known = load(stack, fp_at, fp) == Load::kOk;
          break;
        case Rule::kValCfa:
          fp = fp_at;
          break;
        default:
          fp_known = false;
          break;
      }
    }
    if (cfa <= sp) {  // the stack grows down: a caller's frame lies above
      reason = StopReason::kBadFrame;
      break;
    }
    // Commit the caller's registers. Only sp, ip and fp are tracked across
    // frames; the other registers' CFI rules are not evaluated.
    regs.valid = 0;
    regs.set(a.sp, cfa);
    regs.set(a.ip, ra);
    if (fp_known) regs.set(a.fp, fp);
    if (ra == 0) {
      reason = StopReason::kEntry;
      break;
    }
    frames[n++] = ra;
    ++stats_.frames;
  }
  res.reason = reason;

  // Splice: find the link of the kernel's frame-pointer walk whose frame
  // pointer is this frame's, and take the return addresses after it.
  if (reason != StopReason::kEntry && reason != StopReason::kDepthLimit && fp_frame &&
      fp_chain != nullptr && fp_chain_len > 1 && regs.has(a.fp) && initial.has(a.fp)) {
    const uint64_t target = regs.r[a.fp];
    uint64_t link = initial.r[a.fp];
    for (size_t i = 0; i + 1 < fp_chain_len; ++i) {
      if (link == target) {
        for (size_t j = i + 1; j < fp_chain_len && n < max && fp_chain[j] != 0; ++j) {
          frames[n++] = fp_chain[j];
          res.spliced = true;
        }
        break;
      }
      if (load(stack, link, link) != Load::kOk) break;
    }
  }
  res.frames = n;
  return res;
}

}  // namespace strobe::unwind
