// findDebugFile(): the separate debug information of an ELF file.
//
// Looked for, in order: ROOT/.build-id/xx/yyyy.debug by the file's build-id
// (for each debug root, /usr/lib/debug by default), then the name in its
// `.gnu_debuglink` section next to the file, in the file's `.debug/` folder
// and under ROOT + the file's directory (gdb's order), last from debuginfod
// when DEBUGINFOD_URLS is set (debuginfod.hpp). A candidate is taken
// only when it is an ELF file with `.debug_info` whose build-id equals the
// file's (or, when the file has none, whose debuglink CRC-32 matches).
// Owns nothing; reads files. Thread safety: thread-safe (no shared state).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strobe::symbolize {

class ElfFile;

// Whether `elf` has a section called `name` (SHT_NOBITS sections count as absent).
bool hasSection(const ElfFile& elf, std::string_view name);

std::optional<std::string> findDebugFile(const ElfFile& elf,
                                         const std::vector<std::string>& debug_roots);

}  // namespace strobe::symbolize
