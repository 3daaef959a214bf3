#include "disasm/disassembler.hpp"

#include <cstdio>

#include "disasm/arch_traits.hpp"

namespace strobe::disasm {
namespace {

constexpr std::pair<Arch, std::string_view> kArchNames[] = {
    {Arch::kX86_64, "x86_64"},
    {Arch::kAarch64, "aarch64"},
};

const ArchTraits& traitsOf(Arch arch) {
  return arch == Arch::kAarch64 ? aarch64Traits() : x86_64Traits();
}

}  // namespace

std::string_view archName(Arch arch) {
  for (const auto& [a, name] : kArchNames) {
    if (a == arch) return name;
  }
  return "x86_64";
}

std::optional<Arch> parseArch(std::string_view name) {
  for (const auto& [a, n] : kArchNames) {
    if (n == name) return a;
  }
  return std::nullopt;
}

struct Disassembler::Impl {
  Arch arch = Arch::kX86_64;
  const ArchTraits* traits = nullptr;
  const CapstoneApi* cs = nullptr;
  csh handle = 0;
  cs_insn* insn = nullptr;  // capstone's scratch instruction (with detail)

  ~Impl() {
    if (insn != nullptr) cs->free(insn, 1);
    if (handle != 0) cs->close(&handle);
  }
};

Disassembler::Disassembler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Disassembler::Disassembler(Disassembler&&) noexcept = default;
Disassembler& Disassembler::operator=(Disassembler&&) noexcept = default;
Disassembler::~Disassembler() = default;

Result<Disassembler> Disassembler::open(Arch arch) {
  auto cs = capstone();
  if (!cs) return cs.takeError();
  auto impl = std::make_unique<Impl>();
  impl->arch = arch;
  impl->traits = &traitsOf(arch);
  impl->cs = *cs;
  if (cs_err err = impl->cs->open(impl->traits->arch, impl->traits->mode, &impl->handle);
      err != CS_ERR_OK) {
    impl->handle = 0;
    return makeError(std::string("cannot disassemble ") + std::string(archName(arch)) +
                         " code: " + impl->cs->strerror(err),
                     "", ErrorKind::kUnsupported);
  }
  impl->cs->option(impl->handle, CS_OPT_DETAIL, CS_OPT_ON);
  if (impl->traits->configure != nullptr) impl->traits->configure(*impl->cs, impl->handle);
  impl->insn = impl->cs->malloc(impl->handle);
  if (impl->insn == nullptr) {
    return makeError("cannot disassemble: out of memory", "", ErrorKind::kGeneric);
  }
  return Disassembler(std::move(impl));
}

Arch Disassembler::arch() const {
  return impl_->arch;
}

std::vector<Instruction> Disassembler::decode(std::span<const uint8_t> code,
                                              uint64_t address) const {
  std::vector<Instruction> out;
  const ArchTraits& t = *impl_->traits;
  const uint8_t* at = code.data();
  size_t left = code.size();
  uint64_t pc = address;
  while (left > 0) {
    if (impl_->cs->disasm_iter(impl_->handle, &at, &left, &pc, impl_->insn)) {
      const cs_insn& insn = *impl_->insn;
      Instruction i;
      i.address = insn.address;
      i.size = insn.size;
      i.mnemonic = insn.mnemonic;
      i.operands = insn.op_str;
      i.kind = t.kind(insn);
      if (i.kind == Kind::kJump || i.kind == Kind::kBranch || i.kind == Kind::kCall) {
        i.target = t.target(insn);
      }
      out.push_back(std::move(i));
      continue;
    }
    // Undecodable: one step of raw bytes (fewer at the end), then go on.
    size_t n = std::min<size_t>(t.invalid_step, left);
    Instruction i;
    i.address = pc;
    i.size = static_cast<uint32_t>(n);
    i.mnemonic = ".byte";
    for (size_t k = 0; k < n; ++k) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%s0x%02x", k == 0 ? "" : ", ", at[k]);
      i.operands += buf;
    }
    i.kind = Kind::kInvalid;
    out.push_back(std::move(i));
    at += n;
    left -= n;
    pc += n;
  }
  return out;
}

}  // namespace strobe::disasm
