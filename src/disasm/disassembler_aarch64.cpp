// aarch64: instructions are 4 bytes, so undecodable bytes are stepped over
// 4 at a time. Kinds by instruction (capstone 4 does not put every branch in
// its groups): b.cond, cbz/cbnz and tbz/tbnz branch; b and br jump; bl and
// blr call; ret returns. A direct target is the last immediate operand.
#include "disasm/arch_traits.hpp"

namespace strobe::disasm {
namespace {

Kind aarch64Kind(const cs_insn& insn) {
  switch (insn.id) {
    case ARM64_INS_RET:
      return Kind::kReturn;
    case ARM64_INS_BL:
    case ARM64_INS_BLR:
      return Kind::kCall;
    case ARM64_INS_BR:
      return Kind::kJump;
    case ARM64_INS_B: {
      arm64_cc cc = insn.detail != nullptr ? insn.detail->arm64.cc : ARM64_CC_INVALID;
      return cc == ARM64_CC_INVALID || cc == ARM64_CC_AL ? Kind::kJump : Kind::kBranch;
    }
    case ARM64_INS_CBZ:
    case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ:
    case ARM64_INS_TBNZ:
      return Kind::kBranch;
    default:
      return Kind::kOther;
  }
}

std::optional<uint64_t> aarch64Target(const cs_insn& insn) {
  switch (insn.id) {
    case ARM64_INS_B:
    case ARM64_INS_BL:
    case ARM64_INS_CBZ:
    case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ:
    case ARM64_INS_TBNZ:
      break;
    default:
      return std::nullopt;
  }
  if (insn.detail == nullptr) return std::nullopt;
  const cs_arm64& a = insn.detail->arm64;
  if (a.op_count == 0 || a.operands[a.op_count - 1].type != ARM64_OP_IMM) return std::nullopt;
  return static_cast<uint64_t>(a.operands[a.op_count - 1].imm);
}

}  // namespace

const ArchTraits& aarch64Traits() {
  static const ArchTraits traits{CS_ARCH_ARM64, CS_MODE_ARM, 4,
                                 nullptr,       aarch64Kind, aarch64Target};
  return traits;
}

}  // namespace strobe::disasm
