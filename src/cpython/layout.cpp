#include "cpython/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace strobe::cpython {
namespace {

// Fields common to every version strobe reads (CPython's object headers on
// 64-bit builds without Py_TRACE_REFS).
Layout commonLayout(uint32_t version_hex) {
  Layout l;
  l.version_hex = version_hex;
  l.object_type = 8;
  l.var_size = 16;
  l.bytes_data = 32;
  l.unicode_length = 16;
  l.unicode_state = 32;
  l.tstate_next = 8;
  return l;
}

// The table: one entry per minor version, read from that version's
// Include/internal/pycore_frame.h, pycore_runtime.h, pycore_interp.h,
// cpython/pystate.h, cpython/code.h and cpython/unicodeobject.h (the test
// layout_headers_test compiles a probe against each installed version's
// headers and compares).
Layout layout311(uint32_t v) {
  Layout l = commonLayout(v);
  l.runtime_interpreters_head = 40;
  l.interp_next = 0;
  l.interp_threads_head = 16;
  l.tstate_native_thread_id = 160;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 8;
  l.frame_code = 32;
  l.frame_previous = 48;
  l.frame_instr = 56;  // prev_instr
  l.frame_is_entry = 68;
  l.frame_owner = 69;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_linetable = 136;
  l.code_firstlineno = 72;
  l.code_adaptive = 184;
  l.unicode_ascii_size = 48;  // 3.11 still has wstr
  l.unicode_compact_size = 72;
  return l;
}

Layout layout312(uint32_t v) {
  Layout l = commonLayout(v);
  l.runtime_interpreters_head = 40;
  l.interp_next = 0;
  l.interp_threads_head = 72;
  l.tstate_native_thread_id = 144;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 0;
  l.frame_code = 0;
  l.frame_previous = 8;
  l.frame_instr = 56;  // prev_instr
  l.frame_owner = 70;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_linetable = 136;
  l.code_firstlineno = 68;
  l.code_adaptive = 192;
  l.unicode_ascii_size = 40;
  l.unicode_compact_size = 56;
  return l;
}

Layout layout313(uint32_t v) {
  Layout l = commonLayout(v);
  l.runtime_interpreters_head = 632;
  l.interp_next = 7264;
  l.interp_threads_head = 7344;
  l.tstate_native_thread_id = 160;
  l.tstate_current_frame = 72;
  l.frame_code = 0;  // f_executable
  l.frame_previous = 8;
  l.frame_instr = 56;  // instr_ptr
  l.frame_owner = 70;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_linetable = 136;
  l.code_firstlineno = 68;
  l.code_adaptive = 200;
  l.unicode_ascii_size = 40;
  l.unicode_compact_size = 56;
  return l;
}

// 3.13's _Py_DebugOffsets: a cookie, then u64 fields (Include/internal/
// pycore_runtime.h). Byte offsets of the fields strobe uses.
struct DebugField {
  uint32_t Layout::*member;
  uint32_t at;
};
constexpr char kDebugCookie[8] = {'x', 'd', 'e', 'b', 'u', 'g', 'p', 'y'};
constexpr uint32_t kDebugVersion = 8;
constexpr uint32_t kDebugFreeThreaded = 16;
constexpr DebugField kDebugFields313[] = {
    {&Layout::runtime_interpreters_head, 40},
    {&Layout::interp_next, 64},
    {&Layout::interp_threads_head, 72},
    {&Layout::tstate_next, 168},
    {&Layout::tstate_current_frame, 184},
    {&Layout::tstate_native_thread_id, 200},
    {&Layout::frame_previous, 232},
    {&Layout::frame_code, 240},
    {&Layout::frame_instr, 248},
    {&Layout::frame_owner, 264},
    {&Layout::code_filename, 280},
    {&Layout::code_name, 288},
    {&Layout::code_qualname, 296},
    {&Layout::code_linetable, 304},
    {&Layout::code_firstlineno, 312},
    {&Layout::code_adaptive, 344},
    {&Layout::object_type, 360},
    {&Layout::var_size, 520},  // bytes_object.ob_size: PyVarObject's
    {&Layout::bytes_data, 528},
    {&Layout::unicode_state, 544},
    {&Layout::unicode_length, 552},
    {&Layout::unicode_ascii_size, 560},
};
constexpr uint32_t kDebugOffsetsSize313 = 584;
static_assert(kDebugOffsetsSize >= kDebugOffsetsSize313);

// Offsets past this are not a field of the structures above (the largest,
// PyInterpreterState, is ~100 KiB in 3.13).
constexpr uint64_t kMaxPlausibleOffset = 1 << 20;

uint64_t readU64(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr LayoutField kFields[] = {
    {"runtime_interpreters_head", &Layout::runtime_interpreters_head},
    {"interp_next", &Layout::interp_next},
    {"interp_threads_head", &Layout::interp_threads_head},
    {"tstate_next", &Layout::tstate_next},
    {"tstate_native_thread_id", &Layout::tstate_native_thread_id},
    {"tstate_cframe", &Layout::tstate_cframe},
    {"tstate_current_frame", &Layout::tstate_current_frame},
    {"cframe_current_frame", &Layout::cframe_current_frame},
    {"frame_code", &Layout::frame_code},
    {"frame_previous", &Layout::frame_previous},
    {"frame_instr", &Layout::frame_instr},
    {"frame_owner", &Layout::frame_owner},
    {"frame_is_entry", &Layout::frame_is_entry},
    {"code_filename", &Layout::code_filename},
    {"code_name", &Layout::code_name},
    {"code_qualname", &Layout::code_qualname},
    {"code_linetable", &Layout::code_linetable},
    {"code_firstlineno", &Layout::code_firstlineno},
    {"code_adaptive", &Layout::code_adaptive},
    {"object_type", &Layout::object_type},
    {"var_size", &Layout::var_size},
    {"bytes_data", &Layout::bytes_data},
    {"unicode_length", &Layout::unicode_length},
    {"unicode_state", &Layout::unicode_state},
    {"unicode_ascii_size", &Layout::unicode_ascii_size},
    {"unicode_compact_size", &Layout::unicode_compact_size},
};

}  // namespace

uint32_t Layout::frameReadSize() const {
  uint32_t end = 0;
  for (auto [member, size] : {std::pair{&Layout::frame_code, 8u},
                              {&Layout::frame_previous, 8u},
                              {&Layout::frame_instr, 8u},
                              {&Layout::frame_owner, 1u},
                              {&Layout::frame_is_entry, 1u}}) {
    if (this->*member != kNoField) end = std::max(end, this->*member + size);
  }
  return end;
}

std::string versionText(uint32_t v) {
  std::string s = fmt::format("{}.{}.{}", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff);
  const uint32_t level = (v >> 4) & 0xf;
  if (level != 0xf) {
    s += level == 0xa ? "a" : level == 0xb ? "b" : "rc";
    s += std::to_string(v & 0xf);
  }
  return s;
}

Result<Layout> tableLayout(uint32_t version_hex) {
  const uint32_t major = version_hex >> 24;
  const uint32_t minor = (version_hex >> 16) & 0xff;
  if (major == 3 && minor == 11) return layout311(version_hex);
  if (major == 3 && minor == 12) return layout312(version_hex);
  if (major == 3 && minor == 13) return layout313(version_hex);
  return makeError(fmt::format("Python {} is not one strobe reads frames of (3.11, 3.12, 3.13)",
                               versionText(version_hex)),
                   "", ErrorKind::kUnsupported);
}

Result<Layout> debugOffsetsLayout(const uint8_t* bytes, size_t n) {
  if (n < 24 || std::memcmp(bytes, kDebugCookie, sizeof kDebugCookie) != 0) {
    return makeError("no _Py_DebugOffsets at the start of _PyRuntime (no \"xdebugpy\" cookie)", "",
                     ErrorKind::kCorrupt);
  }
  const uint64_t version = readU64(bytes + kDebugVersion);
  const uint32_t minor = (version >> 16) & 0xff;
  if ((version >> 24) != 3 || minor != 13) {
    return makeError(fmt::format("_Py_DebugOffsets of Python {}: strobe reads those of 3.13 only",
                                 versionText(static_cast<uint32_t>(version))),
                     "", ErrorKind::kUnsupported);
  }
  if (readU64(bytes + kDebugFreeThreaded) != 0) {
    return makeError(
        fmt::format("Python {} is a free-threaded build, whose frames strobe does not read",
                    versionText(static_cast<uint32_t>(version))),
        "", ErrorKind::kUnsupported);
  }
  if (n < kDebugOffsetsSize313) {
    return makeError(fmt::format("_Py_DebugOffsets cut short ({} bytes)", n), "",
                     ErrorKind::kCorrupt);
  }
  // What _Py_DebugOffsets does not state comes from the table.
  Layout l = layout313(static_cast<uint32_t>(version));
  for (const DebugField& f : kDebugFields313) {
    const uint64_t v = readU64(bytes + f.at);
    if (v >= kMaxPlausibleOffset) {
      return makeError(fmt::format("_Py_DebugOffsets states an implausible offset {:#x}", v), "",
                       ErrorKind::kCorrupt);
    }
    l.*f.member = static_cast<uint32_t>(v);
  }
  return l;
}

std::span<const LayoutField> layoutFields() {
  return kFields;
}

std::string layoutDifference(const Layout& a, const Layout& b) {
  std::string out;
  if (a.version_hex != b.version_hex) {
    out = fmt::format("version {} != {}", versionText(a.version_hex), versionText(b.version_hex));
  }
  for (const LayoutField& f : kFields) {
    if (a.*f.member == b.*f.member) continue;
    if (!out.empty()) out += ", ";
    auto text = [](uint32_t v) { return v == kNoField ? std::string("-") : std::to_string(v); };
    out += fmt::format("{} {} != {}", f.name, text(a.*f.member), text(b.*f.member));
  }
  return out;
}

}  // namespace strobe::cpython
