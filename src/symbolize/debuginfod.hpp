// debuginfodDebugFile(): a separate debug file fetched by build-id from the
// debuginfod servers named in DEBUGINFOD_URLS (libdebuginfod.so.1, loaded on
// first use, which keeps its own cache in ~/.cache/debuginfod_client).
//
// Off unless DEBUGINFOD_URLS is set and not empty: strobe never reaches the
// network on its own. Asked only after the local places (see debug_file.hpp)
// gave nothing.
// Thread safety: thread-safe (one client, used under a lock).
#pragma once

#include <optional>
#include <string>

namespace strobe::symbolize {

// The cached path of the debug file for `build_id` (lowercase hex), or
// nullopt when debuginfod is off, not installed (libdebuginfod1), or has none.
std::optional<std::string> debuginfodDebugFile(const std::string& build_id);

}  // namespace strobe::symbolize
