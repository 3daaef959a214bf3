// Unwinder: turns one sample's user registers and stack copy
// (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER) into its call stack, with
// the CFI of each module (ModuleCfi), and splices in the kernel's
// frame-pointer chain where the CFI or the copy ends.
//
// Frames out: frames[0] is the sampled ip; frames[i > 0] are return
// addresses as read from the stack (the caller subtracts 1 to land in the
// call instruction, as it does for frame-pointer chains). Reads nothing but
// the registers and the stack copy: every load is checked against the
// copy's bounds [sp, sp + size) (size = the record's dynamic size).
//
// Memoization: the compiled Rule of each (module, file offset) is kept in an
// open-addressing table; after warm-up a frame costs one table probe and two
// or three loads, and unwinding allocates nothing (the table grows only on a
// miss). Modules are opened lazily, by the path the AddressMap gives; a
// long session (strobe agent) closes the idle ones (closeIdleModules), to be
// opened again on their next miss. Module ids must stay bound to the same
// file for the Unwinder's lifetime.
//
// Thread safety: none; one Unwinder per draining thread.
// Async-signal safety: none (a miss parses CFI with libdw).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "unwind/module_cfi.hpp"
#include "unwind/regs.hpp"

namespace strobe::unwind {

// The process's address space as the unwinder needs it.
class AddressMap {
 public:
  virtual ~AddressMap() = default;
  // The module (a small dense id) and file offset holding `avma`; false
  // when no file mapping holds it.
  virtual bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const = 0;
  // The file holding module's code (asked once per module). "" or a path
  // that cannot be opened ([vdso], a deleted file) means: no CFI.
  virtual std::string modulePath(uint32_t module) const = 0;
  // The unwind rule at `pc` in code that has no unwind information but
  // that the map knows (a runtime's stub copied into anonymous memory:
  // CPython's perf trampolines, stub_rules.hpp); `caller`: pc is a return
  // address. kCfaNone when it knows none.
  virtual Rule knownCodeRule(uint64_t pc, bool caller) const {
    (void)pc;
    (void)caller;
    return Rule{};
  }
};

// The sampled stack: `size` bytes copied from user address `base` (the sp).
struct StackCopy {
  uint64_t base = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Why a walk ended.
enum class StopReason : uint8_t {
  kEntry,       // the CFI says the outermost frame (undefined return address) or it is 0
  kStackCopy,   // the next load lay past the end of the stack copy
  kNoCfi,       // no unwind rule for a pc (no CFI, a rule strobe does not evaluate)
  kBadFrame,    // unmapped pc, a stack pointer that went backwards, an unknown register
  kDepthLimit,  // the frames buffer is full
};

struct UnwindResult {
  size_t frames = 0;
  StopReason reason = StopReason::kBadFrame;  // why the CFI walk ended
  bool spliced = false;  // frames after the CFI walk came from the kernel's fp chain
};

enum class UnwindMode : uint8_t {
  kDwarf,  // CFI for every frame
  kAuto,   // CFI for the leaf and for modules without a frame-pointer chain;
           // the frame-pointer chain for callers in modules that keep one
};

struct UnwinderStats {
  uint64_t frames = 0;          // frames produced by CFI or fp steps
  uint64_t rule_misses = 0;     // rules compiled from CFI (each a libdw parse)
  uint64_t modules = 0;         // modules opened (again after closeIdleModules)
  uint64_t module_errors = 0;   // modules that could not be opened
  uint64_t modules_closed = 0;  // by closeIdleModules
};

class Unwinder {
 public:
  explicit Unwinder(UnwindMode mode = UnwindMode::kDwarf);
  ~Unwinder();
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  // Unwinds into frames[0 .. max). fp_chain (may be null) is the user part
  // of the kernel's callchain for the same sample, leaf first, starting at
  // the ip; it is spliced in where the CFI walk ends early and a frame's
  // frame pointer matches a link of the kernel's walk (which started at the
  // sampled frame pointer), so recursion never confuses the splice.
  UnwindResult unwind(const AddressMap& map, const Registers& regs, const StackCopy& stack,
                      const uint64_t* fp_chain, size_t fp_chain_len, uint64_t* frames, size_t max);

  [[nodiscard]] const UnwinderStats& stats() const { return stats_; }
  // Whether a module keeps frame pointers (as judged for -g auto); opens it.
  bool moduleUsesFramePointers(const AddressMap& map, uint32_t module);
  // Whether the function at `pc` (a sampled pc, not a return address) has
  // its frame set up there: its CFA is computed from the frame pointer, so
  // the frame pointer holds its own frame and a frame-pointer walk from it
  // finds its caller. false: a frameless function, or a pc in a prologue
  // or epilogue (a walk from there skips the caller). nullopt: no CFI.
  std::optional<bool> framePointerSetUp(const AddressMap& map, uint64_t pc);
  // Closes the CFI of each module not used since the previous call (no rule
  // compiled from it, not judged for -g auto): its descriptor, libdw's state
  // and its mapped pages go; its memoized rules and its -g auto judgment
  // stay, and its next miss opens it again. The modules kept open let go of
  // their file pages (they stay in the page cache). For sessions that run
  // for days and see many programs come and go. Returns how many closed.
  size_t closeIdleModules();

 private:
  struct Slot {
    uint64_t key = 0;  // 0 = empty
    Rule rule;
  };
  struct ModuleState {
    bool tried = false;   // opened, or failed to open (then never tried again)
    bool used = false;    // since the last closeIdleModules()
    int8_t uses_fp = -1;  // -g auto's judgment; -1: not judged yet
    std::unique_ptr<ModuleCfi> cfi;
  };
  const Rule& ruleFor(const AddressMap& map, uint32_t module, uint64_t offset);
  ModuleCfi* moduleCfi(const AddressMap& map, uint32_t module);
  void grow();

  UnwindMode mode_;
  std::vector<Slot> slots_;  // a power of two in size
  size_t used_ = 0;
  std::vector<ModuleState> modules_;  // by module id
  UnwinderStats stats_;
};

}  // namespace strobe::unwind
