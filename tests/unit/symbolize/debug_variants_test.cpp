// The same program with its debug information in every supported shape:
// DWARF 5 (gcc 12's default) and DWARF 4, zlib-compressed sections, a
// separate debug file found by .gnu_debuglink or by build-id. Each must give
// the names, files, lines and inline chains of the plain DWARF 5 build.
// zstd-compressed sections too, which strobe decompresses itself (Debian
// 12's elfutils, 0.188, cannot).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "fixture_tools.hpp"
#include "symbolize/symbolizer.hpp"

namespace strobe::symbolize {
namespace {

struct Seen {
  std::vector<std::string> functions;  // innermost first
  std::vector<std::string> files;
  std::vector<uint32_t> lines;
  bool operator==(const Seen&) const = default;
};

// Symbolizes `symbol + delta` for each delta in [0, 64) of `bin` (offsets
// computed from `layout`, the unstripped binary with the same layout).
std::vector<Seen> symbolizeRange(const std::string& bin, const char* symbol,
                                 SymbolizerOptions opt = {},
                                 std::vector<std::string>* warnings = nullptr) {
  auto nm = testing::nmSymbols(SYMFIX_PIE);
  auto loads = testing::readelfLoads(SYMFIX_PIE);
  model::Profile p;
  model::ModuleId m = p.internModule(bin, "");
  std::vector<model::LocationId> ids;
  for (uint64_t d = 0; d < 64; ++d) {
    uint64_t off = testing::svmaToOffset(loads, nm[symbol] + d);
    ids.push_back(p.internLocation(m, off, off));
  }
  Symbolizer s(std::move(opt));
  EXPECT_TRUE(s.symbolize(p).ok());
  if (warnings != nullptr) *warnings = s.warnings();
  std::vector<Seen> out;
  for (model::LocationId id : ids) {
    Seen seen;
    for (const model::Line& l : p.locations()[id].lines) {
      const model::Function& f = p.functions()[l.function];
      seen.functions.push_back(p.str(f.name));
      seen.files.push_back(p.str(f.file));
      seen.lines.push_back(l.line);
    }
    out.push_back(seen);
  }
  return out;
}

void expectSameAsPlain(const std::string& bin, SymbolizerOptions opt = {}) {
  for (const char* symbol : {"_ZL12fixtureLocali", "fixture_leaf", "main"}) {
    auto plain = symbolizeRange(SYMFIX_PIE, symbol);
    auto variant = symbolizeRange(bin, symbol, opt);
    ASSERT_EQ(plain.size(), variant.size());
    size_t with_lines = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(variant[i], plain[i]) << bin << " " << symbol << "+" << i;
      with_lines += !plain[i].lines.empty() && plain[i].lines[0] != 0 ? 1 : 0;
    }
    EXPECT_GT(with_lines, 0U) << symbol;
  }
}

TEST(DebugVariantsTest, Dwarf4GivesTheSameAnswersAsAddr2line) {
  // A separate compile: compare with binutils rather than with the DWARF 5 build.
  auto nm = testing::nmSymbols(SYMFIX_DWARF4);
  auto loads = testing::readelfLoads(SYMFIX_DWARF4);
  uint64_t start = nm["_ZL12fixtureLocali"];
  model::Profile p;
  model::ModuleId m = p.internModule(SYMFIX_DWARF4, "");
  std::vector<uint64_t> svmas;
  std::vector<model::LocationId> ids;
  for (uint64_t a = start; a < start + 48; ++a) {
    svmas.push_back(a);
    ids.push_back(p.internLocation(m, testing::svmaToOffset(loads, a), a));
  }
  Symbolizer s;
  ASSERT_TRUE(s.symbolize(p).ok());
  auto reference = testing::addr2lineInline(SYMFIX_DWARF4, svmas);
  ASSERT_EQ(reference.size(), ids.size());
  size_t chains = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const model::Location& loc = p.locations()[ids[i]];
    ASSERT_EQ(loc.lines.size(), reference[i].size()) << i;
    chains += loc.lines.size() > 1 ? 1 : 0;
    for (size_t k = 0; k < loc.lines.size(); ++k) {
      EXPECT_EQ(p.str(p.functions()[loc.lines[k].function].file), reference[i][k].file);
      EXPECT_EQ(loc.lines[k].line, reference[i][k].line) << i << " level " << k;
    }
    EXPECT_EQ(p.str(p.functions()[loc.lines.back().function].name), "fixtureLocal(int)");
  }
  EXPECT_GT(chains, 0U);
}

TEST(DebugVariantsTest, ZlibCompressedSections) {
  expectSameAsPlain(SYMFIX_ZLIB);
}

TEST(DebugVariantsTest, DebuglinkNextToTheFile) {
  ASSERT_FALSE(
      testing::runCommand("readelf -S '" + std::string(SYMFIX_LINKED) + "'").find(".debug_info") !=
      std::string::npos);
  expectSameAsPlain(SYMFIX_LINKED);
}

TEST(DebugVariantsTest, BuildIdUnderADebugRoot) {
  std::string id = testing::readelfBuildId(SYMFIX_STRIPPED);
  ASSERT_GT(id.size(), 2U);
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path root = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
                               ("strobe_debugroot_" + std::to_string(::getpid()));
  std::filesystem::path dir = root / ".build-id" / id.substr(0, 2);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(SYMFIX_DEBUG_FILE, dir / (id.substr(2) + ".debug"),
                             std::filesystem::copy_options::overwrite_existing);
  // Without the root: names from .dynsym only (the file was stripped), no lines.
  auto bare = symbolizeRange(SYMFIX_STRIPPED, "fixture_leaf");
  EXPECT_TRUE(bare[0].lines.empty() || bare[0].lines[0] == 0);
  SymbolizerOptions opt;
  opt.debug_roots = {root.string()};
  expectSameAsPlain(SYMFIX_STRIPPED, opt);
  std::filesystem::remove_all(root);
}

// A loopback HTTP server (python3 -m http.server) serving DIR stands in for
// a debuginfod server: the protocol is GET /buildid/ID/debuginfo.
class LoopbackServer {
 public:
  explicit LoopbackServer(const std::string& dir) {
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::execlp("python3", "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
               "--directory", dir.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    std::string line;
    char c;
    while (line.find(") ...") == std::string::npos && ::read(out[0], &c, 1) == 1) line += c;
    out_ = out[0];  // open while the server runs: it may write more
    size_t at = line.find("port ");
    if (at != std::string::npos) port_ = std::atoi(line.c_str() + at + 5);
  }
  ~LoopbackServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }
  [[nodiscard]] int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  int out_ = -1;
};

TEST(DebugVariantsTest, DebuginfodServesTheDebugFileOnlyWhenAsked) {
  const char* tmp = std::getenv("TMPDIR");
  std::string root = std::string(tmp != nullptr ? tmp : "/tmp") + "/strobe_debuginfod_" +
                     std::to_string(::getpid());
  std::string build_id = testing::readelfBuildId(SYMFIX_STRIPPED);
  ASSERT_FALSE(build_id.empty());
  std::filesystem::create_directories(root + "/srv/buildid/" + build_id);
  std::filesystem::copy_file(SYMFIX_DEBUG_FILE, root + "/srv/buildid/" + build_id + "/debuginfo");
  LoopbackServer server(root + "/srv");
  ASSERT_GT(server.port(), 0) << "python3 -m http.server did not start";
  SymbolizerOptions no_local;
  no_local.debug_roots = {root + "/nothing"};

  // Without DEBUGINFOD_URLS strobe does not ask: no lines.
  ::unsetenv("DEBUGINFOD_URLS");
  auto offline = symbolizeRange(SYMFIX_STRIPPED, "fixture_leaf", no_local);
  ASSERT_FALSE(offline.empty());
  for (const Seen& s : offline) EXPECT_TRUE(s.lines.empty() || s.lines[0] == 0);

  std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  ::setenv("DEBUGINFOD_URLS", url.c_str(), 1);
  ::setenv("DEBUGINFOD_CACHE_PATH", (root + "/cache").c_str(), 1);
  ::setenv("DEBUGINFOD_TIMEOUT", "20", 1);
  expectSameAsPlain(SYMFIX_STRIPPED, no_local);
  ::unsetenv("DEBUGINFOD_URLS");
  std::filesystem::remove_all(root);
}

TEST(DebugVariantsTest, ZstdCompressedSectionsGiveTheSameFramesAsPlainDwarf) {
  std::vector<std::string> warnings;
  auto seen = symbolizeRange(SYMFIX_ZSTD, "fixture_leaf", {}, &warnings);
  auto plain = symbolizeRange(SYMFIX_PIE, "fixture_leaf");
  ASSERT_FALSE(plain[0].lines.empty());
  EXPECT_EQ(seen, plain);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

}  // namespace
}  // namespace strobe::symbolize
