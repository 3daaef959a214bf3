#include "symbolize/line_program.hpp"

#include <dwarf.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace strobe::symbolize {

namespace {

// A bounds-checked cursor; a failed read leaves ok() false and reads zeros.
class Cursor {
 public:
  Cursor(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const uint8_t* at() const { return p_; }
  [[nodiscard]] bool atEnd() const { return p_ >= end_; }

  uint64_t fixed(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n || n > 8) return fail();
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    p_ += n;
    return v;
  }
  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; p_ < end_; shift += 7) {
      uint8_t b = *p_++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return fail();
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    while (p_ < end_) {
      uint8_t b = *p_++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) {
        if (shift < 64 && (b & 0x40) != 0) v |= ~uint64_t{0} << shift;
        return static_cast<int64_t>(v);
      }
    }
    return static_cast<int64_t>(fail());
  }
  const char* cstr() {
    const void* nul = std::memchr(p_, 0, static_cast<size_t>(end_ - p_));
    if (nul == nullptr) {
      fail();
      return "";
    }
    const char* s = reinterpret_cast<const char*>(p_);
    p_ = static_cast<const uint8_t*>(nul) + 1;
    return s;
  }
  void skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) {
      fail();
      return;
    }
    p_ += n;
  }

 private:
  uint64_t fail() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

// The NUL-terminated string at `offset` of `section`, or nullptr.
const char* stringAt(std::span<const uint8_t> section, uint64_t offset) {
  if (offset >= section.size()) return nullptr;
  const void* nul = std::memchr(section.data() + offset, 0, section.size() - offset);
  return nul == nullptr ? nullptr : reinterpret_cast<const char*>(section.data() + offset);
}

struct Header {
  unsigned version = 0;
  unsigned offset_size = 4;
  unsigned address_size = 8;
  unsigned min_inst_length = 1;
  unsigned max_ops = 1;
  bool default_is_stmt = true;
  int line_base = 0;
  unsigned line_range = 0;
  unsigned opcode_base = 0;
  const uint8_t* opcode_lengths = nullptr;  // opcode_base - 1 of them
};

// One DWARF 5 entry-format value: a path's string, an index, or skipped.
// False for a form it does not read.
bool readEntryValue(Cursor& c, unsigned form, const Header& h, const DebugSections& s,
                    const char** str, uint64_t* num) {
  switch (form) {
    case DW_FORM_string:
      *str = c.cstr();
      return true;
    case DW_FORM_line_strp:
    case DW_FORM_strp: {
      uint64_t off = c.fixed(h.offset_size);
      *str = stringAt(form == DW_FORM_strp ? s.str : s.line_str, off);
      return *str != nullptr;
    }
    case DW_FORM_udata:
      *num = c.uleb();
      return true;
    case DW_FORM_data1:
      *num = c.fixed(1);
      return true;
    case DW_FORM_data2:
      *num = c.fixed(2);
      return true;
    case DW_FORM_data4:
      *num = c.fixed(4);
      return true;
    case DW_FORM_data8:
      *num = c.fixed(8);
      return true;
    case DW_FORM_data16:
      c.skip(16);
      return true;
    case DW_FORM_block:
      c.skip(c.uleb());
      return true;
    default:
      return false;
  }
}

// A DWARF 5 directory or file-name table: `count` entries in the format
// the header gives; each entry's path and directory index.
bool readEntries(Cursor& c, const Header& h, const DebugSections& s,
                 std::vector<std::pair<const char*, uint64_t>>& out) {
  unsigned nformats = c.u8();
  std::pair<uint64_t, uint64_t> formats[32];
  if (nformats > 32) return false;
  for (unsigned i = 0; i < nformats; ++i) formats[i] = {c.uleb(), c.uleb()};
  uint64_t count = c.uleb();
  if (!c.ok() || count > (1u << 24)) return false;
  out.reserve(count);
  for (uint64_t n = 0; n < count; ++n) {
    const char* path = nullptr;
    uint64_t dir = 0;
    for (unsigned i = 0; i < nformats; ++i) {
      const char* str = nullptr;
      uint64_t num = 0;
      if (formats[i].second > UINT32_MAX ||
          !readEntryValue(c, static_cast<unsigned>(formats[i].second), h, s, &str, &num)) {
        return false;
      }
      if (formats[i].first == DW_LNCT_path) path = str;
      if (formats[i].first == DW_LNCT_directory_index) dir = num;
    }
    if (!c.ok() || path == nullptr) return false;
    out.emplace_back(path, dir);
  }
  return c.ok();
}

// As libdw names a file: absolute as given, else "dir/name" (a missing
// directory leaves it relative); then absolute with comp_dir (joinDir).
std::string fileName(const char* name, const char* dir, const char* comp_dir) {
  if (name[0] == '/' || dir == nullptr) return joinDir(comp_dir, name);
  std::string path(dir);
  path.push_back('/');
  path += name;
  return joinDir(comp_dir, path.c_str());
}

bool readFileTables(Cursor& c, const Header& h, const DebugSections& s, const char* comp_dir,
                    std::vector<std::string>& files) {
  files.clear();
  std::vector<std::pair<const char*, uint64_t>> dirs;
  std::vector<std::pair<const char*, uint64_t>> names;
  if (h.version >= 5) {
    if (!readEntries(c, h, s, dirs) || !readEntries(c, h, s, names)) return false;
  } else {
    dirs.emplace_back(comp_dir, 0);
    for (const char* d; *(d = c.cstr()) != '\0' && c.ok();) dirs.emplace_back(d, 0);
    names.emplace_back("???", 0);  // libdw's file 0 before DWARF 5
    for (const char* f; *(f = c.cstr()) != '\0' && c.ok();) {
      uint64_t dir = c.uleb();
      c.uleb();  // modification time
      c.uleb();  // length
      names.emplace_back(f, dir);
    }
    if (!c.ok()) return false;
  }
  files.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& [name, dir] = names[i];
    if (h.version < 5 && i == 0) {
      files.push_back(joinDir(comp_dir, name));  // "???" keeps no directory
      continue;
    }
    if (dir >= dirs.size()) return false;  // libdw refuses the whole table
    files.push_back(fileName(name, dirs[dir].first, comp_dir));
  }
  return true;
}

bool readHeader(Cursor& c, Header& h, const uint8_t*& program, const uint8_t*& end) {
  uint64_t length = c.fixed(4);
  if (length == 0xffffffff) {
    h.offset_size = 8;
    length = c.fixed(8);
  } else if (length >= 0xfffffff0) {
    return false;
  }
  if (!c.ok()) return false;
  const uint8_t* unit = c.at();
  Cursor all = c;
  all.skip(length);
  if (!all.ok()) return false;
  end = unit + length;
  c = Cursor(unit, end);  // the header lies in the unit (a zero length has none)
  h.version = static_cast<unsigned>(c.fixed(2));
  if (h.version < 2 || h.version > 5) return false;
  if (h.version >= 5) {
    h.address_size = c.u8();
    if (c.u8() != 0) return false;  // segment selectors
  }
  uint64_t header_length = c.fixed(h.offset_size);
  if (!c.ok() || header_length > static_cast<uint64_t>(end - c.at())) return false;
  program = c.at() + header_length;
  h.min_inst_length = c.u8();
  if (h.version >= 4) h.max_ops = c.u8();
  h.default_is_stmt = c.u8() != 0;
  h.line_base = static_cast<int8_t>(c.u8());
  h.line_range = c.u8();
  h.opcode_base = c.u8();
  if (!c.ok() || h.line_range == 0 || h.max_ops == 0 || h.opcode_base == 0) return false;
  h.opcode_lengths = c.at();
  c.skip(h.opcode_base - 1);
  // The fields read so far must lie before the program that header_length
  // says follows them (the file tables are read up to it).
  return c.ok() && c.at() <= program;
}

// The state machine of DWARF 5 section 6.2.2, keeping what the index uses.
bool runProgram(Cursor& c, const Header& h, std::vector<LineRow>& rows) {
  uint64_t address = 0;
  uint64_t op_index = 0;
  uint32_t file = 1;
  uint32_t line = 1;
  uint32_t discriminator = 0;
  auto reset = [&] {
    address = 0;
    op_index = 0;
    file = 1;
    line = 1;
    discriminator = 0;
  };
  auto emit = [&](bool end) {
    auto signed_line = static_cast<int32_t>(line);  // libdw's line numbers are ints
    rows.push_back(LineRow{address, static_cast<uint32_t>(rows.size()), signed_line > 0 ? line : 0,
                           file, discriminator, end});
    discriminator = 0;
  };
  auto advance = [&](uint64_t operation_advance) {
    if (h.max_ops == 1) {
      address += h.min_inst_length * operation_advance;
    } else {
      address += h.min_inst_length * ((op_index + operation_advance) / h.max_ops);
      op_index = (op_index + operation_advance) % h.max_ops;
    }
  };
  while (!c.atEnd()) {
    unsigned op = c.u8();
    if (op >= h.opcode_base) {
      unsigned adjusted = op - h.opcode_base;
      advance(adjusted / h.line_range);
      line += static_cast<uint32_t>(h.line_base + static_cast<int>(adjusted % h.line_range));
      emit(false);
      continue;
    }
    switch (op) {
      case 0: {  // extended
        uint64_t len = c.uleb();
        if (!c.ok() || len == 0) return false;
        const uint8_t* at = c.at();
        c.skip(len);  // checks len against the bytes left before forming at + len
        if (!c.ok()) return false;
        Cursor ext(at, at + len);
        switch (ext.u8()) {
          case DW_LNE_end_sequence:
            emit(true);
            reset();
            break;
          case DW_LNE_set_address:
            address = ext.fixed(static_cast<size_t>(len - 1));
            op_index = 0;
            break;
          case DW_LNE_set_discriminator:
            discriminator = static_cast<uint32_t>(ext.uleb());
            break;
          default:
            break;  // DW_LNE_define_file and vendor opcodes: nothing the index keeps
        }
        if (!ext.ok()) return false;
        break;
      }
      case DW_LNS_copy:
        emit(false);
        break;
      case DW_LNS_advance_pc:
        advance(c.uleb());
        break;
      case DW_LNS_advance_line:
        line += static_cast<uint32_t>(c.sleb());
        break;
      case DW_LNS_set_file:
        file = static_cast<uint32_t>(c.uleb());
        break;
      case DW_LNS_const_add_pc:
        advance((255 - h.opcode_base) / h.line_range);
        break;
      case DW_LNS_fixed_advance_pc:
        address += c.fixed(2);
        op_index = 0;
        break;
      case DW_LNS_set_column:
      case DW_LNS_set_isa:
        c.uleb();
        break;
      case DW_LNS_negate_stmt:
      case DW_LNS_set_basic_block:
      case DW_LNS_set_prologue_end:
      case DW_LNS_set_epilogue_begin:
        break;
      default:  // a standard opcode this version does not define: skip its operands
        for (unsigned i = 0; i < h.opcode_lengths[op - 1]; ++i) c.uleb();
        break;
    }
    if (!c.ok()) return false;
  }
  return c.ok();
}

// libdw marks the row it sorts last (the highest address; of several
// there, the last in program order that is not already a sequence end) as
// ending a sequence, for producers that forget the end; so does strobe.
void markLastRowEnd(std::vector<LineRow>& rows) {
  if (rows.empty()) return;
  uint64_t top = 0;
  for (const LineRow& r : rows) top = std::max(top, r.addr);
  for (size_t i = rows.size(); i-- > 0;) {
    if (rows[i].addr == top && !rows[i].end) {
      rows[i].end = true;
      return;
    }
  }
}

}  // namespace

bool readLineProgram(const DebugSections& s, uint64_t offset, const char* comp_dir,
                     std::vector<std::string>& files, std::vector<LineRow>& rows) {
  rows.clear();
  files.clear();
  if (offset >= s.line.size()) return false;
  Cursor c(s.line.data() + offset, s.line.data() + s.line.size());
  Header h;
  const uint8_t* program = nullptr;
  const uint8_t* end = nullptr;
  if (!readHeader(c, h, program, end)) return false;
  Cursor tables(c.at(), program);
  if (!readFileTables(tables, h, s, comp_dir, files)) {
    files.clear();
    return false;
  }
  Cursor code(program, end);
  if (!runProgram(code, h, rows)) {
    files.clear();
    rows.clear();
    return false;
  }
  markLastRowEnd(rows);
  return true;
}

bool unitLines(Dwarf_Die* cudie, const DebugSections& s, std::vector<std::string>& files,
               std::vector<LineRow>& rows) {
  Dwarf_Attribute attr;
  Dwarf_Word stmt_list = 0;
  if (::dwarf_formudata(::dwarf_attr(cudie, DW_AT_stmt_list, &attr), &stmt_list) == 0) {
    const char* comp_dir = ::dwarf_formstring(::dwarf_attr_integrate(cudie, DW_AT_comp_dir, &attr));
    if (readLineProgram(s, stmt_list, comp_dir, files, rows)) return true;
  }
  return libdwLineProgram(cudie, files, rows);
}

bool libdwLineProgram(Dwarf_Die* cudie, std::vector<std::string>& files,
                      std::vector<LineRow>& rows) {
  files.clear();
  rows.clear();
  Dwarf_Files* unit_files = nullptr;
  size_t nfiles = 0;
  if (::dwarf_getsrcfiles(cudie, &unit_files, &nfiles) != 0) return false;
  Dwarf_Attribute attr;
  const char* dir = ::dwarf_formstring(::dwarf_attr_integrate(cudie, DW_AT_comp_dir, &attr));
  files.reserve(nfiles);
  for (size_t i = 0; i < nfiles; ++i) {
    files.push_back(joinDir(dir, ::dwarf_filesrc(unit_files, i, nullptr, nullptr)));
  }
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (::dwarf_getsrclines(cudie, &lines, &n) != 0) return true;  // files, no rows
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = ::dwarf_onesrcline(lines, i);
    Dwarf_Addr addr = 0;
    if (l == nullptr || ::dwarf_lineaddr(l, &addr) != 0) continue;
    LineRow r{addr, static_cast<uint32_t>(i), 0, kNoFile, 0, false};
    int line = 0;
    if (::dwarf_lineno(l, &line) == 0 && line > 0) r.line = static_cast<uint32_t>(line);
    ::dwarf_lineendsequence(l, &r.end);
    unsigned disc = 0;
    if (::dwarf_linediscriminator(l, &disc) == 0) r.discriminator = disc;
    Dwarf_Files* f = nullptr;
    size_t idx = 0;
    if (::dwarf_line_file(l, &f, &idx) == 0 && f == unit_files && idx < UINT32_MAX) {
      r.file = static_cast<uint32_t>(idx);
    }
    rows.push_back(r);
  }
  return true;
}

}  // namespace strobe::symbolize
