// Helpers for the symbolizer tests: binutils (nm, readelf, addr2line) run via
// popen as the independent reference, source MARK lookup, temporary files.
// Thread safety: none needed (tests run single-threaded).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace strobe::symbolize::testing {

inline std::string runCommand(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// Defined symbols by (mangled) name -> address, from `nm`.
inline std::map<std::string, uint64_t> nmSymbols(const std::string& bin) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(runCommand("nm --defined-only '" + bin + "'"));
  std::string addr, type, name;
  while (in >> addr >> type >> name) out[name] = std::strtoull(addr.c_str(), nullptr, 16);
  return out;
}

struct LoadRow {
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t file_size = 0;
};

// The LOAD rows of `readelf -lW`.
inline std::vector<LoadRow> readelfLoads(const std::string& bin) {
  std::vector<LoadRow> out;
  std::istringstream in(runCommand("readelf -lW '" + bin + "'"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string type, off, vaddr, paddr, filesz;
    if (!(row >> type >> off >> vaddr >> paddr >> filesz) || type != "LOAD") continue;
    out.push_back(LoadRow{std::strtoull(off.c_str(), nullptr, 16),
                          std::strtoull(vaddr.c_str(), nullptr, 16),
                          std::strtoull(filesz.c_str(), nullptr, 16)});
  }
  return out;
}

// The file offset of an SVMA according to readelf's LOAD rows (UINT64_MAX if none).
inline uint64_t svmaToOffset(const std::vector<LoadRow>& loads, uint64_t svma) {
  for (const LoadRow& r : loads) {
    if (svma >= r.vaddr && svma - r.vaddr < r.file_size) return svma - r.vaddr + r.offset;
  }
  return UINT64_MAX;
}

inline std::string readelfBuildId(const std::string& bin) {
  std::string out = runCommand("readelf -n '" + bin + "'");
  auto at = out.find("Build ID: ");
  if (at == std::string::npos) return {};
  at += 10;
  return out.substr(at, out.find_first_of(" \n", at) - at);
}

struct FileLine {
  std::string file;
  uint32_t line = 0;
};

// `addr2line -e BIN ADDR...` (no inlines, no function names): one row per
// address, {"??", 0} where it knows nothing.
inline std::vector<FileLine> addr2line(const std::string& bin, const std::vector<uint64_t>& addrs) {
  std::string cmd = "addr2line -e '" + bin + "'";
  for (uint64_t a : addrs) {
    char hex[32];
    std::snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(a));
    cmd += hex;
  }
  std::vector<FileLine> out;
  std::istringstream in(runCommand(cmd));
  std::string row;
  while (std::getline(in, row)) {
    if (auto d = row.find(" (discriminator"); d != std::string::npos) row.resize(d);
    auto colon = row.rfind(':');
    if (colon == std::string::npos) {
      out.push_back(FileLine{row, 0});
      continue;
    }
    out.push_back(FileLine{row.substr(0, colon), static_cast<uint32_t>(std::strtoul(
                                                     row.c_str() + colon + 1, nullptr, 10))});
  }
  return out;
}

// `addr2line -a -i -e BIN ADDR...`: per address, its inline chain of
// file:line rows, innermost first.
inline std::vector<std::vector<FileLine>> addr2lineInline(const std::string& bin,
                                                          const std::vector<uint64_t>& addrs) {
  std::string cmd = "addr2line -a -i -e '" + bin + "'";
  for (uint64_t a : addrs) {
    char hex[32];
    std::snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(a));
    cmd += hex;
  }
  std::vector<std::vector<FileLine>> out;
  std::istringstream in(runCommand(cmd));
  std::string row;
  while (std::getline(in, row)) {
    if (row.rfind("0x", 0) == 0) {
      out.emplace_back();
      continue;
    }
    if (out.empty()) continue;
    if (auto d = row.find(" (discriminator"); d != std::string::npos) row.resize(d);
    auto colon = row.rfind(':');
    if (colon == std::string::npos) continue;
    out.back().push_back(
        FileLine{row.substr(0, colon),
                 static_cast<uint32_t>(std::strtoul(row.c_str() + colon + 1, nullptr, 10))});
  }
  return out;
}

// The 1-based line of `source` holding "MARK <mark>", 0 when absent.
inline uint32_t markLine(const std::string& source, const std::string& mark) {
  std::ifstream in(source);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    auto at = line.find("MARK " + mark);
    if (at != std::string::npos && at + 5 + mark.size() == line.size()) return n;
  }
  return 0;
}

inline std::vector<char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file in the test's temporary directory, removed on destruction.
class TempFile {
 public:
  explicit TempFile(const std::vector<char>& bytes) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr ? dir : "/tmp") + "/strobe_symtest_XXXXXX";
    int fd = ::mkstemp(path_.data());
    if (fd >= 0) {
      size_t done = 0;
      while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(fd);
    }
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { ::unlink(path_.c_str()); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace strobe::symbolize::testing
