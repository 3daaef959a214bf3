// Disassembler: machine code to instructions, for x86-64 and aarch64, over
// capstone. Used by output's annotate writer; nothing else here knows which
// library decodes.
//
// decode() never fails on bad input: bytes that do not decode become kInvalid
// entries (".byte 0x.."), one per step (1 byte on x86-64, 4 on aarch64, the
// width of an instruction there), and decoding resumes after them, so every
// byte of the input belongs to exactly one entry and addresses only grow.
// Owns: one capstone handle (closed on destruction). Thread safety: one
// thread at a time per Disassembler; separate Disassemblers are independent.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace strobe::disasm {

enum class Arch : uint8_t { kX86_64, kAarch64 };

// "x86_64" and "aarch64" (as `uname -m` says); parseArch is the inverse
// (nullopt for anything else).
std::string_view archName(Arch arch);
std::optional<Arch> parseArch(std::string_view name);

enum class Kind : uint8_t {
  kOther,    // anything that falls through to the next instruction
  kJump,     // an unconditional jump (direct or indirect)
  kBranch,   // a conditional jump
  kCall,     // a call (direct or indirect)
  kReturn,   // a return
  kInvalid,  // bytes that do not decode
};

struct Instruction {
  uint64_t address = 0;
  uint32_t size = 0;     // bytes
  std::string mnemonic;  // "jne", "add", "b.ne"; ".byte" for kInvalid
  std::string operands;  // as the architecture's usual syntax prints them
  Kind kind = Kind::kOther;
  std::optional<uint64_t> target;  // a direct jump, branch or call's destination
};

class Disassembler {
 public:
  // kUnsupported when capstone cannot open the architecture.
  static Result<Disassembler> open(Arch arch);
  Disassembler(Disassembler&&) noexcept;
  Disassembler& operator=(Disassembler&&) noexcept;
  ~Disassembler();

  [[nodiscard]] Arch arch() const;
  // Every byte of `code`, whose first byte is at `address`, as instructions.
  [[nodiscard]] std::vector<Instruction> decode(std::span<const uint8_t> code,
                                                uint64_t address) const;

 private:
  struct Impl;
  explicit Disassembler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strobe::disasm
