// UTF-8 for the formats that require it (JSON, XML, protobuf strings).
// Symbol names, paths and thread names are bytes: a name may be cut inside
// a character or be in another encoding. Writers pass such text through
// validUtf8(), which replaces each byte that does not start a valid sequence
// with U+FFFD, the replacement character. Thread safety: pure.
#pragma once

#include <string>
#include <string_view>

#include "base/utf8.hpp"

namespace strobe::output {

using strobe::utf8Length;

// `s` itself when it is valid UTF-8 (the common case, no copy); otherwise
// a copy in `scratch` with U+FFFD for each invalid byte.
inline std::string_view validUtf8(std::string_view s, std::string& scratch) {
  size_t i = 0;
  while (i < s.size() && utf8Length(s, i) != 0) i += utf8Length(s, i);
  if (i == s.size()) return s;
  scratch.assign(s.substr(0, i));
  while (i < s.size()) {
    size_t n = utf8Length(s, i);
    if (n == 0) {
      scratch += "\xEF\xBF\xBD";
      ++i;
    } else {
      scratch.append(s.substr(i, n));
      i += n;
    }
  }
  return scratch;
}

}  // namespace strobe::output
