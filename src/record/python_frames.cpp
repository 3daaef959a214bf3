#include "record/python_frames.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <unistd.h>

#include "base/clock.hpp"
#include "model/interpreter_frames.hpp"
#include "unwind/stub_rules.hpp"

namespace strobe::record {

void PythonFrames::onMapping(pid_t pid, uint64_t start, uint64_t pgoff, const std::string& path) {
  if (!cpython::isInterpreterPath(path) || processes_.count(pid) != 0) return;
  // A file is probed once per process (it has several mappings).
  if (!probed_[pid].insert(path).second) return;
  auto memory = std::make_unique<cpython::RemoteMemory>(pid);
  auto in = cpython::probeInterpreter(pid, path, start, pgoff, memory.get());
  if (!in) {
    // Not an interpreter (a python3.N launcher that links libpython): quiet.
    if (in.error().kind != ErrorKind::kNotFound && !noted_[path]) {
      noted_[path] = true;
      notes_.push_back(fmt::format("{} (process {}): {}; its Python frames are not shown", path,
                                   pid, in.error().message));
    }
    return;
  }
  if (!in->layout_note.empty() && !noted_[path]) {
    noted_[path] = true;
    notes_.push_back(
        fmt::format("{}: its _Py_DebugOffsets differ from strobe's table ({}); "
                    "strobe reads the interpreter's own",
                    path, in->layout_note));
  }
  adopt(pid, std::move(*in), std::move(memory));
}

void PythonFrames::adopt(pid_t pid, cpython::Interpreter in,
                         std::unique_ptr<cpython::RemoteMemory> memory) {
  Process& proc = processes_[pid];
  // Relative file names (code compiled with one, a module found through a
  // relative sys.path entry) are relative to the directory the interpreter
  // started in: most likely its cwd now.
  char cwd[4096];
  const std::string link = fmt::format("/proc/{}/cwd", pid);
  const ssize_t n = ::readlink(link.c_str(), cwd, sizeof cwd - 1);
  if (n > 0) proc.cwd.assign(cwd, static_cast<size_t>(n));
  in.pid = pid;
  proc.interpreter = std::move(in);
  proc.memory = std::move(memory);
  proc.reader = std::make_unique<cpython::CodeReader>(proc.interpreter, *proc.memory);
  ++stats_.processes;
  found_.push_back(pid);
  if (first_found_.empty()) {
    const std::string& path = proc.interpreter.path;
    first_found_ = fmt::format("{} (process {}, Python {})", path.substr(path.rfind('/') + 1), pid,
                               cpython::versionText(proc.interpreter.layout.version_hex));
  }
}

std::string PythonFrames::withoutBpfNote() const {
  if (stats_.processes == 0) return {};
  std::string others;
  if (stats_.processes > 1) others = fmt::format(" and {} more", stats_.processes - 1);
  return fmt::format(
      "{}{} ran Python code: its Python frames need the BPF engine (--engine bpf, as root or with "
      "CAP_BPF and CAP_PERFMON); its stacks show the interpreter's C functions",
      first_found_, others);
}

void PythonFrames::onFork(pid_t parent, pid_t child) {
  auto it = processes_.find(parent);
  if (it == processes_.end() || processes_.count(child) != 0) return;
  adopt(child, it->second.interpreter, std::make_unique<cpython::RemoteMemory>(child));
}

unwind::Rule PythonFrames::trampolineRule(pid_t pid, uint64_t pc, bool caller) {
  auto it = processes_.find(pid);
  if (it == processes_.end() || it->second.interpreter.trampoline.empty()) return {};
  Process& proc = it->second;
  const std::vector<uint8_t>& t = proc.interpreter.trampoline;
  const size_t size = t.size();
  auto [found, inserted] = proc.trampolines.try_emplace(pc, -1);
  if (inserted) {
    if (proc.trampolines.size() > cpython::kMaxCodeObjects) {
      proc.trampolines.clear();
      found = proc.trampolines.try_emplace(pc, -1).first;
    }
    // The copy of the template that holds pc (a return address sits just
    // after the template's call): read where each candidate copy would
    // start, since the code before pc may be unmapped.
    const size_t ret = unwind::stubReturnOffset(t.data(), size);
    std::vector<uint8_t> code(size);
    for (size_t k = 0; k < size && pc >= k; ++k) {
      if (caller && k != ret) continue;
      if (proc.memory->read(pc - k, code.data(), size) && code == t) {
        found->second = static_cast<int32_t>(k);
        break;
      }
    }
  }
  if (found->second < 0) return {};
  return unwind::stubRule(t.data(), size, static_cast<size_t>(found->second));
}

void PythonFrames::forget(pid_t pid) {
  probed_.erase(pid);
  auto it = processes_.find(pid);
  if (it == processes_.end()) return;
  retired_named_ += it->second.reader->stats().named;
  retired_replaced_ += it->second.reader->stats().replaced;
  processes_.erase(it);
}

const cpython::Interpreter* PythonFrames::interpreter(pid_t pid) const {
  auto it = processes_.find(pid);
  return it == processes_.end() ? nullptr : &it->second.interpreter;
}

std::string PythonFrames::absoluteFile(const Process& proc, const std::string& file) {
  // "<frozen importlib._bootstrap>", "<string>": no file to resolve.
  if (file.empty() || file[0] == '/' || file[0] == '<' || proc.cwd.empty()) return file;
  std::string_view rest = file;
  while (rest.substr(0, 2) == "./") rest.remove_prefix(2);
  return proc.cwd == "/" ? "/" + std::string(rest) : proc.cwd + "/" + std::string(rest);
}

model::LocationId PythonFrames::unnamed(model::Profile& p) {
  if (unnamed_ == model::kNone) {
    unnamed_ = model::pythonLocation(p, model::pythonFunction(p, kUnnamedPythonCode, "", 0), 0, 0);
  }
  return unnamed_;
}

model::LocationId PythonFrames::locate(model::Profile& p, pid_t pid,
                                       const cpython::RuntimeFrame& f) {
  ++stats_.frames;
  auto pit = processes_.find(pid);
  if (pit == processes_.end()) {
    ++stats_.unnamed;
    return unnamed(p);
  }
  Process& proc = pit->second;
  const uint64_t before = proc.reader->stats().named + proc.reader->stats().failures;
  const uint64_t started = clockNs(CLOCK_THREAD_CPUTIME_ID);
  auto code = proc.reader->code(f.code);
  if (proc.reader->stats().named + proc.reader->stats().failures != before) {
    stats_.naming_ns += clockNs(CLOCK_THREAD_CPUTIME_ID) - started;
  }
  if (!code) {
    ++stats_.unnamed;
    return unnamed(p);
  }
  const cpython::CodeObject& c = **code;
  if (proc.code.size() >= cpython::kMaxCodeObjects && proc.code.count(f.code) == 0) {
    proc.code.clear();
  }
  Code& entry = proc.code[f.code];
  if (entry.serial != c.serial) {
    entry.serial = c.serial;
    entry.locations.clear();
    entry.function =
        model::pythonFunction(p, c.qualname, absoluteFile(proc, c.filename),
                              c.first_line > 0 ? static_cast<uint32_t>(c.first_line) : 0);
  }
  auto [it, inserted] = entry.locations.try_emplace(f.offset, model::kNone);
  if (inserted) it->second = model::pythonLocation(p, entry.function, c.lineAt(f.offset), f.code);
  return it->second;
}

void PythonFrames::nextEpoch() {
  for (auto& [pid, proc] : processes_) proc.reader->nextEpoch();
}

PythonFramesStats PythonFrames::stats() const {
  PythonFramesStats s = stats_;
  s.code_objects = retired_named_;
  s.replaced = retired_replaced_;
  for (const auto& [pid, proc] : processes_) {
    s.code_objects += proc.reader->stats().named;
    s.replaced += proc.reader->stats().replaced;
  }
  return s;
}

}  // namespace strobe::record
