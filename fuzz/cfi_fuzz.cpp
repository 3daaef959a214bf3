// Call frame information (.eh_frame, .debug_frame) as the unwinder reads
// it: ModuleCfi compiles the rule at each probed pc, judges whether the
// code keeps frame pointers, and the Unwinder walks a stack copy (also
// from the input) through the module with those rules. cfaAt
// (the -g fp leaf check's own reading) runs over the same .eh_frame, with
// a search table naming each of its entries, and ehFrameIndex reads the
// .debug_frame part as an .eh_frame_hdr.
//
// Input parts (fuzz_input.hpp): .eh_frame, .debug_frame, then the walk:
// ip, sp, fp (8 bytes each) and the stack copy's bytes. The module is an
// ELF image whose file offsets are its addresses (elfImage), mapped at
// kBase in the pretend process.
#include <elf.h>

#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "unwind/cfa_register.hpp"
#include "unwind/module_cfi.hpp"
#include "unwind/unwinder.hpp"

namespace {

using namespace strobe;

constexpr uint64_t kBase = 0x10000;

class OneModule : public unwind::AddressMap {
 public:
  OneModule(std::string path, uint64_t size) : path_(std::move(path)), size_(size) {}
  bool find(uint64_t avma, uint32_t& module, uint64_t& file_offset) const override {
    if (avma < kBase || avma - kBase >= size_) return false;
    module = 0;
    file_offset = avma - kBase;
    return true;
  }
  std::string modulePath(uint32_t) const override { return path_; }

 private:
  std::string path_;
  uint64_t size_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = fuzz::splitParts({data, size}, 3);
  // Functions for the frame-pointer judgement: four 64-byte symbols over .text.
  static const uint8_t kText[256] = {};
  std::vector<uint8_t> strtab = {0, 'f', 0, 'g', 0, 'h', 0, 'k', 0};
  std::vector<Elf64_Sym> syms(5);
  for (int i = 1; i <= 4; ++i) {
    syms[i].st_name = static_cast<uint32_t>(2 * i - 1);
    syms[i].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    syms[i].st_shndx = 1;
    syms[i].st_size = 64;
  }
  std::vector<fuzz::Section> sections = {
      {".text", {kText, sizeof kText}, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR},
      {".eh_frame", parts[0], SHT_PROGBITS, SHF_ALLOC},
      {".debug_frame", parts[1]},
      {".strtab", {strtab.data(), strtab.size()}, SHT_STRTAB},
      {".symtab",
       {reinterpret_cast<const uint8_t*>(syms.data()), syms.size() * sizeof(Elf64_Sym)},
       SHT_SYMTAB,
       0,
       4,
       sizeof(Elf64_Sym)}};
  // The text's address is its offset: give the symbols their values.
  std::vector<uint8_t> image = fuzz::elfImage(sections);
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(image.data());
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(image.data() + eh->e_shoff);
  for (int i = 1; i <= 4; ++i) syms[i].st_value = sh[1].sh_addr + 64 * (i - 1);
  image = fuzz::elfImage(sections);

  fuzz::MemFile file({image.data(), image.size()});
  if (!file.ok()) return 0;
  auto cfi = unwind::ModuleCfi::open(file.path());
  if (!cfi) return 0;
  (void)(*cfi)->hasCfi();
  (void)(*cfi)->usesFramePointers();
  for (uint64_t off = 0; off < image.size(); off += 7) (void)(*cfi)->ruleAt(off);

  // A search table whose entries name each entry of .eh_frame in turn
  // (initial locations 16 bytes apart), as .eh_frame_hdr would.
  constexpr uint64_t kHdr = 0x100000, kFrame = 0x200000;
  std::vector<int32_t> table;
  for (uint64_t at = 0; at + 4 <= parts[0].size() && table.size() < 2048;) {
    uint32_t length = 0;
    std::memcpy(&length, parts[0].data() + at, 4);
    table.push_back(static_cast<int32_t>(table.size() * 16));
    table.push_back(static_cast<int32_t>(kFrame + at - kHdr));
    if (length == 0 || length > parts[0].size() - at - 4) break;
    at += 4 + length;
  }
  unwind::EhFrameIndex index{parts[0],
                             kFrame,
                             {reinterpret_cast<const uint8_t*>(table.data()), table.size() * 4},
                             kHdr,
                             table.size() / 2};
  for (uint64_t pc = kHdr; pc < kHdr + index.count * 16 + 16; pc += 3) {
    (void)unwind::cfaAt(index, pc);
  }
  if (auto read = unwind::ehFrameIndex(parts[1], kHdr, parts[0], kFrame)) {
    for (uint64_t pc = 0; pc < 64; ++pc) (void)unwind::cfaAt(*read, kHdr + pc * 5);
  }

  fuzz::Bytes walk = parts[2];
  unwind::Registers regs;
  const unwind::ArchRegs& arch = unwind::archRegs();
  regs.set(arch.ip, kBase + fuzz::takeInt(walk, 8) % image.size());
  const uint64_t sp = fuzz::takeInt(walk, 8);
  regs.set(arch.sp, sp);
  regs.set(arch.fp, fuzz::takeInt(walk, 8));
  // The stack copy is 8-byte aligned in a perf record.
  std::vector<uint64_t> copy((walk.size() + 7) / 8);
  if (!walk.empty()) std::memcpy(copy.data(), walk.data(), walk.size());
  unwind::StackCopy stack{sp, reinterpret_cast<const uint8_t*>(copy.data()), walk.size()};
  OneModule map(file.path(), image.size());
  uint64_t frames[128];
  for (auto mode : {unwind::UnwindMode::kDwarf, unwind::UnwindMode::kAuto}) {
    unwind::Unwinder unwinder(mode);
    // The kernel's frame-pointer chain of the same sample: the copy's words.
    const size_t chain = copy.size() < 16 ? copy.size() : 16;
    unwind::UnwindResult r =
        unwinder.unwind(map, regs, stack, copy.data(), chain, frames, std::size(frames));
    if (r.frames > std::size(frames)) std::abort();
  }
  return 0;
}
