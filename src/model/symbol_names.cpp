#include "model/symbol_names.hpp"

#include <vector>

namespace strobe::model {
namespace {

bool isDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// One dot-separated component of a clone suffix chain.
bool isCloneWord(std::string_view w) {
  for (std::string_view k : {"part", "cold", "isra", "constprop", "lto_priv", "localalias", "clone",
                             "llvm", "specialized", "str"}) {
    if (w == k) return true;
  }
  return isDigits(w);
}

// [pos, end) is a chain of clone components (each ".word" or ".N"), the
// first one a word.
bool isCloneChain(std::string_view tail) {
  bool first = true;
  while (!tail.empty()) {
    if (tail.front() != '.') return false;
    tail.remove_prefix(1);
    size_t dot = tail.find('.');
    std::string_view w = tail.substr(0, dot);
    if (!isCloneWord(w) || (first && isDigits(w))) return false;
    first = false;
    tail = dot == std::string_view::npos ? std::string_view() : tail.substr(dot);
  }
  return !first;
}

size_t cloneStart(std::string_view name) {
  for (size_t dot = name.find('.', 1); dot != std::string_view::npos;
       dot = name.find('.', dot + 1)) {
    if (isCloneChain(name.substr(dot))) return dot;
  }
  return name.size();
}

}  // namespace

std::string_view cloneBase(std::string_view name) {
  return name.substr(0, cloneStart(name));
}

std::string_view cloneSuffix(std::string_view name) {
  return name.substr(cloneStart(name));
}

std::string normalizePath(std::string_view path) {
  if (path.empty()) return {};
  const bool absolute = path.front() == '/';
  std::vector<std::string_view> parts;
  size_t kept_up = 0;  // leading ".." of a relative path
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.size() > kept_up) {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
        ++kept_up;
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  if (out.empty()) out = ".";
  return out;
}

}  // namespace strobe::model
