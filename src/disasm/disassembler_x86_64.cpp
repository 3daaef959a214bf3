// x86-64: AT&T syntax (objdump's and perf annotate's default); jumps, calls
// and returns by capstone's groups (read from the detail, as cs_insn_group
// does); a direct target is the one immediate
// operand. Undecodable bytes are stepped over one at a time.
#include "disasm/arch_traits.hpp"

namespace strobe::disasm {
namespace {

void configure(const CapstoneApi& api, csh handle) {
  api.option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
}

bool inGroup(const cs_insn& insn, uint8_t group) {
  if (insn.detail == nullptr) return false;
  const cs_detail& d = *insn.detail;
  for (uint8_t k = 0; k < d.groups_count && k < sizeof d.groups; ++k) {
    if (d.groups[k] == group) return true;
  }
  return false;
}

Kind x86Kind(const cs_insn& insn) {
  if (inGroup(insn, CS_GRP_RET)) return Kind::kReturn;
  if (inGroup(insn, CS_GRP_CALL)) return Kind::kCall;
  if (inGroup(insn, CS_GRP_JUMP)) {
    return insn.id == X86_INS_JMP || insn.id == X86_INS_LJMP ? Kind::kJump : Kind::kBranch;
  }
  return Kind::kOther;
}

std::optional<uint64_t> x86Target(const cs_insn& insn) {
  if (insn.detail == nullptr) return std::nullopt;
  const cs_x86& x = insn.detail->x86;
  if (x.op_count != 1 || x.operands[0].type != X86_OP_IMM) return std::nullopt;
  return static_cast<uint64_t>(x.operands[0].imm);
}

}  // namespace

const ArchTraits& x86_64Traits() {
  static const ArchTraits traits{CS_ARCH_X86, CS_MODE_64, 1, configure, x86Kind, x86Target};
  return traits;
}

}  // namespace strobe::disasm
