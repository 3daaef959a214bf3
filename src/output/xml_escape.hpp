// Escaping for XML text and attribute values (&, <, >, ", '), and removal of
// what XML 1.0 forbids: control characters become '?', and so does every
// byte that is not part of valid UTF-8 (symbol names are bytes, and a
// truncated label may end inside a character). Thread safety: pure.
#pragma once

#include <string>
#include <string_view>

#include "output/utf8.hpp"

namespace strobe::output {

inline void appendXmlEscaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    size_t n = utf8Length(s, i);
    if (n == 0) {
      out += '?';
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // XML 1.0 allows only tab, LF and CR below 0x20.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
}

inline std::string xmlEscaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  appendXmlEscaped(out, s);
  return out;
}

}  // namespace strobe::output
