#include "import/kernel_symbols.hpp"

#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "record/proc.hpp"

namespace strobe::import {
namespace {

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The address of `symbol` in kallsyms text (0 when absent or hidden).
uint64_t addressOf(const std::string& text, const std::string& symbol) {
  const std::string needle = " " + symbol + "\n";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    // "ADDRESS T _text\n": the type letter sits between address and name.
    const size_t line = text.rfind('\n', at);
    const size_t begin = line == std::string::npos ? 0 : line + 1;
    if (at < begin + 2) continue;
    return std::strtoull(text.c_str() + begin, nullptr, 16);
  }
  return 0;
}

// kallsyms text with every address moved by -delta, in a memfd.
Fd relocated(const std::string& text, uint64_t delta) {
  Fd fd(::memfd_create("strobe-kallsyms", MFD_CLOEXEC));
  if (!fd.valid()) return {};
  std::string out;
  out.reserve(text.size());
  char buf[24];
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    const char* line = text.c_str() + at;
    char* end = nullptr;
    const uint64_t addr = std::strtoull(line, &end, 16);
    if (end != line && addr != 0) {
      std::snprintf(buf, sizeof buf, "%016" PRIx64, addr - delta);
      out += buf;
      out.append(static_cast<const char*>(end), text.c_str() + nl);
    } else {
      out.append(line, text.c_str() + nl);
    }
    out += '\n';
    at = nl + 1;
  }
  for (size_t done = 0; done < out.size();) {
    const ssize_t n = ::write(fd.get(), out.data() + done, out.size() - done);
    if (n <= 0) return {};
    done += static_cast<size_t>(n);
  }
  return fd;
}

}  // namespace

std::string runningKernelBuildId() {
  const std::string notes = readWhole("/sys/kernel/notes");
  return record::buildIdInNotes(reinterpret_cast<const uint8_t*>(notes.data()), notes.size());
}

KernelSymbols kernelSymbols(const RecordedKernel& recorded, const ModuleFiles& files) {
  KernelSymbols k;
  struct utsname u {};
  const std::string release = ::uname(&u) == 0 ? u.release : "";
  const std::string running = runningKernelBuildId();
  const bool same = !recorded.build_id.empty()
                        ? recorded.build_id == running
                        : !recorded.release.empty() && recorded.release == release;
  // perf record's copy first: a plain file with the recording's own
  // addresses (reading /proc/kallsyms makes the kernel format it: 0.15 s).
  const std::string cached = files.kallsyms(recorded.build_id);
  if (!cached.empty()) {
    k.path = cached;
    return k;
  }
  if (same) {
    k.path = "/proc/kallsyms";
    if (recorded.text == 0) return k;
    const std::string text = readWhole(k.path);
    const uint64_t now = addressOf(text, recorded.text_symbol);
    if (now == 0 || now == recorded.text) return k;  // hidden addresses, or not moved
    // Loaded elsewhere since (another boot): the recording's addresses are
    // this boot's minus the difference.
    k.copy = relocated(text, now - recorded.text);
    if (k.copy.valid()) {
      k.path = "/proc/self/fd/" + std::to_string(k.copy.get());
      return k;
    }
  }
  k.path.clear();
  if (recorded.release.empty() && recorded.build_id.empty()) {
    k.note = "kernel frames are unnamed: the recording does not say which kernel it ran on";
    return k;
  }
  std::string which = recorded.release.empty() ? std::string("release unknown") : recorded.release;
  if (!recorded.build_id.empty()) which += ", build-id " + recorded.build_id;
  if (same) {
    k.note = "kernel frames are unnamed: this kernel (" + which +
             ") was loaded at another address since the recording and its symbols could not be "
             "moved";
  } else {
    k.note = "kernel frames are unnamed: the recording's kernel (" + which +
             ") is not this machine's (" + release + "), and perf's build-id cache" +
             (files.dir().empty() ? std::string() : " (" + files.dir() + ")") +
             " has no kallsyms for it";
  }
  return k;
}

}  // namespace strobe::import
