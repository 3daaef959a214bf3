// Strong types for the addresses and ids strobe passes around, so a file
// offset is never mistaken for a process address.
//   Avma       — an address in a process (what the kernel samples)
//   FileOffset — an offset into a mapped file (Avma − map start + pgoff)
//   Svma       — an address as stated in an ELF file (symbols, DWARF)
// Thread safety: plain values.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace strobe {

template <typename Tag, typename T>
struct Strong {
  T v{};
  constexpr Strong() = default;
  constexpr explicit Strong(T value) : v(value) {}
  constexpr auto operator<=>(const Strong&) const = default;
};

using Pid = Strong<struct PidTag, int32_t>;
using Tid = Strong<struct TidTag, int32_t>;
using Avma = Strong<struct AvmaTag, uint64_t>;
using FileOffset = Strong<struct FileOffsetTag, uint64_t>;
using Svma = Strong<struct SvmaTag, uint64_t>;

}  // namespace strobe

template <typename Tag, typename T>
struct std::hash<strobe::Strong<Tag, T>> {
  size_t operator()(const strobe::Strong<Tag, T>& s) const noexcept { return std::hash<T>{}(s.v); }
};
