// Escaping for XML text and attribute values (&, <, >, ", '), and removal of
// characters XML 1.0 forbids. Thread safety: pure.
#pragma once

#include <string>
#include <string_view>

namespace strobe::output {

inline void appendXmlEscaped(std::string& out, std::string_view s) {
  for (char c : s) {
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
