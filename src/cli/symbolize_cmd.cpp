// strobe symbolize -e BINARY [-a] [-f] [-i] [-C] [-p] [--json] [ADDR...]
// addr2line's interface and output; addresses from the arguments, else one
// per line from stdin (answers are flushed before each blocking read, so a
// program can drive it line by line through a pipe).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/heap.hpp"
#include "base/log.hpp"
#include "base/text_buffer.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "symbolize/addr2line.hpp"
#include "symbolize/address_text.hpp"

namespace strobe::cli {
namespace {

struct SymbolizeArgs {
  std::string exe = "a.out";
  symbolize::Addr2LineOptions opt;
  bool json = false;
  std::vector<std::string> addresses;
};

// Output is written in pieces of about this size. To a file on ext4
// (Linux 6.18, which caches file data in large folios), 1 MB writes took
// 1.1 ms less than 256 KB ones for the bench's 17 MB of answers, 2 MB ones
// 0.5 ms less; to /dev/null the size does not matter (docs/BENCHMARKS.md).
constexpr size_t kChunk = size_t{1} << 20;

// Writes all of `out` to stdout and empties it; false (errno set) when a
// write fails.
bool writeOut(TextBuffer& out) {
  for (size_t at = 0; at < out.size();) {
    const ssize_t n = ::write(STDOUT_FILENO, out.data() + at, out.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    at += static_cast<size_t>(n);
  }
  out.clear();
  return true;
}

int runSymbolize(const SymbolizeArgs& a) {
  preferLargeHeap();  // a short-lived index: see base/heap.hpp
  auto engine = symbolize::Addr2Line::open(a.exe);
  if (!engine) {
    logError(engine.error().describe(),
             "give the binary with -e FILE (an ELF executable or library)");
    return kExitError;
  }
  symbolize::Addr2Line& e = **engine;
  TextBuffer out;
  // Answers `batch`; they are all written when it returns (a program driving
  // strobe through a pipe gets them before strobe reads again).
  auto answer = [&](const std::vector<uint64_t>& batch) {
    return e.answer(batch, a.opt, a.json, out, kChunk, writeOut);
  };
  auto cannotWrite = [] {
    logError(std::string("cannot write the answers: ") + std::strerror(errno),
             "check that the disk has space and that the reader of the output still runs");
    return kExitError;
  };
  std::vector<uint64_t> batch;
  if (!a.addresses.empty()) {
    for (const std::string& s : a.addresses) batch.push_back(symbolize::parseAddress(s.c_str()));
    return answer(batch) ? 0 : cannotWrite();
  }
  // stdin: read what is there, answer every complete line, read again.
  std::string pending;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // a read error ends the input, as the end of file does
    pending.append(buf, static_cast<size_t>(n));
    batch.clear();
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      pending[nl] = '\0';
      batch.push_back(symbolize::parseAddress(pending.c_str() + start));
    }
    pending.erase(0, start);
    if (!answer(batch)) return cannotWrite();
  }
  if (!pending.empty() && !answer({symbolize::parseAddress(pending.c_str())})) return cannotWrite();
  // Every answer is written and flushed. Freeing the index, libdw's tables
  // and the memoized names took about half a millisecond, a fiftieth of a
  // run (docs/BENCHMARKS.md); the kernel reclaims them at once.
  std::_Exit(0);
}

}  // namespace

Runner addSymbolizeCommand(CLI::App& app) {
  auto args = std::make_shared<SymbolizeArgs>();
  CLI::App* sub = app.add_subcommand(
      "symbolize", "Addresses to function, file:line and inline chain (addr2line-compatible)");
  sub->add_option("-e,--exe", args->exe, "The ELF file the addresses belong to")
      ->capture_default_str();
  sub->add_flag("-a,--addresses", args->opt.addresses, "Print each address first");
  sub->add_flag("-f,--functions", args->opt.functions, "Print function names");
  sub->add_flag("-i,--inlines", args->opt.inlines, "Print the inline chain (callers too)");
  sub->add_flag("-C,--demangle", args->opt.demangle, "Demangle function names");
  sub->add_flag("-p,--pretty-print", args->opt.pretty, "One line per address");
  sub->add_flag("--json", args->json,
                "One JSON object per address with strobe's names and the whole inline chain");
  sub->add_option("address", args->addresses, "Addresses (hex); read from stdin when none");
  return [args] { return runSymbolize(*args); };
}

}  // namespace strobe::cli
