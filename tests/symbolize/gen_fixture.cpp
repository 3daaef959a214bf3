// Writes the sources of the large symbolizer fixture: UNITS translation units
// of templates, inline and static functions calling each other (deep inline
// chains at -O2), STL containers (lots of DWARF from headers) and clones, plus
// a main. Deterministic: the same arguments give the same files.
// Usage: gen_fixture OUT_DIR UNITS FUNCTIONS_PER_UNIT
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

unsigned next(unsigned& s) {
  s = s * 1103515245u + 12345u;
  return (s >> 16) & 0x7fff;
}

void writeUnit(const std::string& dir, int u, int fns) {
  std::ofstream o(dir + "/unit" + std::to_string(u) + ".cpp");
  unsigned seed = 1234u + static_cast<unsigned>(u);
  o << "#include <algorithm>\n#include <functional>\n#include <map>\n#include <numeric>\n"
       "#include <string>\n#include <vector>\n#include \"common.hpp\"\n\n";
  o << "namespace gen" << u << " {\n\n";
  o << "template <typename T, int N>\nstruct Acc {\n  T v{};\n"
       "  inline T step(T x) {\n    v = v * N + x;\n    return v;\n  }\n"
       "  T run(const std::vector<T>& xs) {\n    for (const T& x : xs) step(x);\n"
       "    return v;\n  }\n};\n\n";
  for (int f = 0; f < fns; ++f) {
    int kind = static_cast<int>(next(seed) % 5);
    int callee = f > 0 ? static_cast<int>(next(seed) % f) : -1;
    std::string call =
        callee >= 0 ? "f" + std::to_string(callee) + "(x + " + std::to_string(f) + ", y)" : "x";
    switch (kind) {
      case 0:  // template, instantiated below
        o << "template <typename T>\ninline T t" << f << "(T x, T y) {\n"
          << "  T s = x;\n  for (int i = 0; i < static_cast<int>(y) % 7; ++i) s = s * 3 + "
          << "common::twist(static_cast<int>(s)) + i;\n  return s;\n}\n";
        o << "int f" << f << "(int x, int y) {\n  return t" << f
          << "<int>(x, y) + static_cast<int>(t" << f << "<double>(x, y)) + " << call << ";\n}\n\n";
        break;
      case 1:  // static, likely inlined into its callers
        o << "static int f" << f << "(int x, int y) {\n  int r = " << call << ";\n"
          << "  if (r % 3 == 0) r += common::twist(y);\n  return r ^ (x << 1);\n}\n\n";
        break;
      case 2:  // always inline: a sure inline chain
        o << "inline __attribute__((always_inline)) int f" << f << "(int x, int y) {\n"
          << "  int r = " << call << ";\n  for (int i = 0; i < (y & 3); ++i) r += i * x;\n"
          << "  return r;\n}\n\n";
        break;
      case 3:  // out of line, uses containers
        o << "__attribute__((noinline)) int f" << f << "(int x, int y) {\n"
          << "  std::vector<int> v;\n  for (int i = 0; i < (y & 15); ++i) v.push_back(x * i);\n"
          << "  std::sort(v.begin(), v.end(), std::greater<int>());\n"
          << "  std::map<std::string, int> m;\n  m[std::to_string(x)] = y;\n"
          << "  Acc<long, " << f + 2 << "> acc;\n"
          << "  return static_cast<int>(acc.run(std::vector<long>(v.begin(), v.end()))) + "
          << "std::accumulate(v.begin(), v.end(), 0) + static_cast<int>(m.size()) + " << call
          << ";\n}\n\n";
        break;
      default:  // plain external function with a lambda
        o << "int f" << f << "(int x, int y) {\n  auto g = [&](int k) { return k * y + " << call
          << "; };\n  int s = 0;\n  for (int i = 0; i < (x & 7); ++i) s += g(i);\n"
          << "  return s;\n}\n\n";
        break;
    }
  }
  o << "}  // namespace gen" << u << "\n\n";
  o << "int unit" << u << "_entry(int x) {\n  int s = 0;\n";
  for (int f = 0; f < fns; ++f) o << "  s += gen" << u << "::f" << f << "(x + " << f << ", s);\n";
  o << "  return s;\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen_fixture OUT_DIR UNITS FUNCTIONS_PER_UNIT\n");
    return 2;
  }
  std::string dir = argv[1];
  int units = std::atoi(argv[2]);
  int fns = std::atoi(argv[3]);
  {
    std::ofstream h(dir + "/common.hpp");
    h << "#pragma once\nnamespace common {\n"
         "inline __attribute__((always_inline)) int twist(int x) {\n"
         "  return (x * 2654435761u) >> 7;\n}\n}  // namespace common\n";
  }
  std::ofstream m(dir + "/main.cpp");
  for (int u = 0; u < units; ++u) {
    writeUnit(dir, u, fns);
    m << "int unit" << u << "_entry(int x);\n";
  }
  m << "int main(int argc, char**) {\n  int s = 0;\n";
  for (int u = 0; u < units; ++u) m << "  s += unit" << u << "_entry(argc + " << u << ");\n";
  m << "  return s & 1;\n}\n";
  return 0;
}
