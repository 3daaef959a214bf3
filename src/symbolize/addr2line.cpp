#include "symbolize/addr2line.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <thread>

#include "symbolize/debug_file.hpp"
#include "symbolize/demangle.hpp"
#include "symbolize/radix_sort.hpp"

namespace strobe::symbolize {
namespace {

void appendUint(uint64_t v, TextBuffer& out) {
  char* p = out.room(20);
  out.commit(std::to_chars(p, p + 20, v).ptr);
}

// Writes a piece of text straight into the output through a raw pointer,
// after one check for room: the output's checks and calls per part cost more
// than the copies, over ~70,000 frames a run.
class Piece {
 public:
  // Room for `room` bytes at the end of `out`; the piece ends with done().
  Piece(TextBuffer& out, size_t room) : out_(out), p_(out.room(room)) {}
  void put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void put(char c) { *p_++ = c; }
  void putUint(uint64_t v) { p_ = std::to_chars(p_, p_ + 20, v).ptr; }
  // The low `digits` hex digits of v, zero-padded.
  void putHex(uint64_t v, int digits) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; --i, v >>= 4) p_[i] = kDigits[v & 15];
    p_ += digits;
  }
  void done() { out_.commit(p_); }

 private:
  TextBuffer& out_;
  char* p_;
};

// What a frame's text holds besides its name and file: " at " or a
// newline, ':', a line, " (discriminator N)", a newline and " (inlined by) ";
// also room enough for an address line.
constexpr size_t kFrameRoom = 80;

// Addresses looked up together in address order (Addr2Line::lookUpWindow):
// about 1 MB of frames at the benchmark's inline depth (seven frames an address).
constexpr size_t kWindow = 4096;

void appendJsonString(std::string_view s, TextBuffer& out) {
  out.append('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.append('\\');
      out.append(c);
    } else if (u < 0x20) {
      static constexpr char kDigits[] = "0123456789abcdef";
      out.append("\\u00");
      out.append(kDigits[u >> 4]);
      out.append(kDigits[u & 15]);
    } else {
      out.append(c);
    }
  }
  out.append('"');
}

}  // namespace

namespace {

std::unique_ptr<ElfFile> debugFileOf(const ElfFile& elf) {
  if (hasSection(elf, ".debug_info")) return nullptr;
  auto path = findDebugFile(elf, {"/usr/lib/debug"});
  if (!path) return nullptr;
  auto f = ElfFile::open(*path);
  if (!f || !f->inflateDebugSections()) return nullptr;
  return std::make_unique<ElfFile>(std::move(f).value());
}

}  // namespace

Addr2Line::Addr2Line(ElfFile elf)
    : elf_(std::move(elf)),
      debug_(debugFileOf(elf_)),
      symbols_(SymbolTable::read(debug_ ? *debug_ : elf_)),
      dwarf_index_(std::make_unique<DwarfIndex>(debug_ ? *debug_ : elf_)),
      dwarf_(*dwarf_index_) {
  Elf* e = elf_.elf();
  if (::gelf_getclass(e) == ELFCLASS32) address_digits_ = 8;
  for (Elf_Scn* scn = ::elf_nextscn(e, nullptr); scn != nullptr; scn = ::elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr || (sh.sh_flags & SHF_ALLOC) == 0) continue;
    if (sh.sh_size > UINT64_MAX - sh.sh_addr) continue;
    alloc_.emplace_back(sh.sh_addr, sh.sh_addr + sh.sh_size);
  }
}

Result<std::unique_ptr<Addr2Line>> Addr2Line::open(const std::string& path) {
  auto elf = ElfFile::open(path);
  if (!elf) return elf.takeError();
  if (auto st = elf->inflateDebugSections(); !st) return st.takeError();
  return std::unique_ptr<Addr2Line>(new Addr2Line(std::move(elf).value()));
}

bool Addr2Line::inAllocSection(uint64_t addr) const {
  // Most addresses fall in the section the last one did (.text).
  if (addr >= last_alloc_.first && addr < last_alloc_.second) return true;
  for (const auto& [lo, hi] : alloc_) {
    if (addr >= lo && addr < hi) {
      last_alloc_ = {lo, hi};
      return true;
    }
  }
  return false;
}

bool Addr2Line::answer(const std::vector<uint64_t>& addrs, const Addr2LineOptions& opt,
                       bool as_json, TextBuffer& out, size_t chunk, const Flush& flush) {
  std::vector<Svma> pcs;
  pcs.reserve(addrs.size());
  for (uint64_t a : addrs) pcs.emplace_back(a);
  dwarf_.prepare(pcs, std::max(1U, std::thread::hardware_concurrency()));
  for (size_t from = 0; from < addrs.size(); from += kWindow) {
    const size_t to = std::min(addrs.size(), from + kWindow);
    if (!as_json) lookUpWindow(addrs, from, to);
    for (size_t i = from; i < to; ++i) {
      if (as_json) {
        json(addrs[i], out);
      } else {
        const Looked& l = looked_[i - from];
        text(addrs[i], l.in_section, {window_frames_.data() + l.begin, l.count}, opt, out);
      }
      if (out.size() > chunk && !flush(out)) return false;
    }
  }
  return flush(out);
}

void Addr2Line::lookUpWindow(const std::vector<uint64_t>& addrs, size_t from, size_t to) {
  order_.resize(to - from);
  for (size_t i = from; i < to; ++i) order_[i - from] = static_cast<uint32_t>(i - from);
  radixSort(order_, order_scratch_, [&](uint32_t i) { return addrs[from + i]; });
  looked_.resize(to - from);
  window_frames_.clear();
  for (uint32_t i : order_) {
    const uint64_t addr = addrs[from + i];
    Looked& l = looked_[i];
    l.in_section = inAllocSection(addr);
    l.begin = static_cast<uint32_t>(window_frames_.size());
    l.count = 0;
    if (l.in_section && dwarf_.frames(Svma(addr), frames_)) {
      window_frames_.insert(window_frames_.end(), frames_.begin(), frames_.end());
      l.count = static_cast<uint32_t>(frames_.size());
    }
  }
}

Addr2Line::BfdName& Addr2Line::nameBfd(uint32_t function) {
  if (function >= bfd_names_.size()) bfd_names_.resize(dwarf_.functionCount());
  BfdName& b = bfd_names_[function];
  if (!b.named) {
    const FunctionInfo& info = dwarf_.function(function);
    if (!info.linkage_name.empty()) {
      b.name = info.linkage_name;
      b.is_linkage = true;
    } else {
      b.name = info.name;
      b.is_linkage = info.unmangled_language && !info.name.empty();
    }
    b.named = true;
  }
  return b;
}

std::string_view Addr2Line::shown(BfdName& b, bool demangle) {
  if (!demangle || b.name.empty()) return b.name;
  if (b.demangled.data() == nullptr) b.demangled = demangled(b.name);
  return b.demangled;
}

std::string_view Addr2Line::demangled(std::string_view name) {
  auto [it, inserted] = demangled_.try_emplace(name.data());
  if (inserted) {
    // The same name often comes from both .symtab and .debug_str; each
    // demangling costs ~12,000 instructions.
    auto [text, fresh] = demangled_text_.try_emplace(name);
    if (fresh) text->second = demangleLikeBinutils(name);
    it->second = text->second;
  }
  return it->second;
}

void Addr2Line::text(uint64_t addr, bool in_section, std::span<const Frame> frames,
                     const Addr2LineOptions& opt, TextBuffer& out) {
  if (opt.addresses) {
    Piece w(out, kFrameRoom);
    w.put("0x");
    w.putHex(addr, address_digits_);
    w.put(opt.pretty ? ": " : "\n");
    w.done();
  }
  const bool known = !frames.empty();
  bool has_function = known && frames.back().die != 0;
  bool has_line = known && !frames[0].file.empty();

  // The innermost name, as binutils' _bfd_dwarf2_find_nearest_line picks it.
  std::string_view first;
  bool first_is_bfd = false;  // first is bfdName(frames[0].function).name
  bool found = has_line;
  if (has_function) {
    found = true;
    BfdName& b = bfdName(frames[0].function);
    if (b.is_linkage) {
      first_is_bfd = true;
    } else {
      auto sym = symbols_.nearest(Svma(addr));
      if (!sym) {
        first_is_bfd = true;
      } else {
        first = sym->name;
        if (sym->start.v == dwarf_.function(frames[0].function).low_pc) {
          b.name = sym->name;
          b.demangled = {};
        }
      }
      b.is_linkage = true;
    }
  } else if (in_section) {
    if (auto sym = symbols_.nearest(Svma(addr))) {
      first = sym->name;
      found = true;
    }
  }

  if (!found) {
    if (opt.functions) out.append(opt.pretty ? "?? " : "??\n");
    out.append("??:0\n");
    return;
  }
  static const Frame kNoDwarf;
  if (frames.empty()) frames = {&kNoDwarf, 1};  // a symbol, no DWARF
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    std::string_view name;
    if (opt.functions) {
      if (i > 0 || first_is_bfd) {
        name = shown(bfdName(f.function), opt.demangle);
      } else if (!first.empty()) {
        name = opt.demangle ? demangled(first) : first;
      }
      if (name.empty()) name = "??";
    }
    const std::string_view file = f.file.empty() ? std::string_view("??") : f.file;
    Piece w(out, name.size() + file.size() + kFrameRoom);
    if (opt.functions) {
      w.put(name);
      w.put(opt.pretty ? " at " : "\n");
    }
    w.put(file);
    w.put(':');
    if (f.line != 0) {
      w.putUint(f.line);
      if (frames[0].discriminator != 0) {
        w.put(" (discriminator ");
        w.putUint(frames[0].discriminator);
        w.put(')');
      }
    } else {
      w.put('?');
    }
    w.put('\n');
    const bool last = !opt.inlines || i + 1 == frames.size() || !f.inlined;
    if (!last && opt.pretty) w.put(" (inlined by) ");
    w.done();
    if (last) break;
  }
}

void Addr2Line::json(uint64_t addr, TextBuffer& out) {
  named_.clear();
  if (inAllocSection(addr)) nameFrames(dwarf_, symbols_, Svma(addr), frames_, named_);
  Piece w(out, kFrameRoom);
  w.put("{\"address\":\"0x");
  w.putHex(addr, address_digits_);
  w.put("\",\"frames\":[");
  w.done();
  for (size_t i = 0; i < named_.size(); ++i) {
    const NamedFrame& f = named_[i];
    if (i > 0) out.append(',');
    out.append("{\"function\":");
    appendJsonString(f.name, out);
    out.append(",\"system_name\":");
    appendJsonString(f.system_name, out);
    out.append(",\"file\":");
    appendJsonString(f.line_file, out);
    out.append(",\"line\":");
    appendUint(f.raw_line, out);
    out.append(",\"inlined\":");
    out.append(f.inlined ? "true" : "false");
    out.append('}');
  }
  out.append("]}\n");
}

}  // namespace strobe::symbolize
