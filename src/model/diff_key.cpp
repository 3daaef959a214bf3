#include "model/diff_key.hpp"

#include <cstdio>
#include <string_view>

#include "model/module_path.hpp"
#include "model/symbol_names.hpp"

namespace strobe::model {
namespace {

void appendPart(std::string& key, std::string_view part) {
  key += part;
  key += '\0';
}

std::string functionPart(const Profile& p, const Frame& f) {
  const Location& loc = p.locations()[f.location];
  std::string key;
  appendPart(key, moduleFileName(p, loc.module));
  if (f.line == nullptr || f.line->function >= p.functions().size()) {
    appendPart(key, "0x");
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx",
                  static_cast<unsigned long long>(loc.module == kNone ? loc.address : loc.offset));
    appendPart(key, buf);
    return key;
  }
  const Function& fn = p.functions()[p.identity(f.line->function)];
  const std::string& system = p.str(fn.system_name);
  appendPart(key, system.empty() ? std::string_view(p.str(fn.name)) : cloneBase(system));
  appendPart(key, baseName(p.str(fn.file)));
  return key;
}

}  // namespace

std::string moduleFileName(const Profile& p, ModuleId m) {
  if (m == kNone || m >= p.modules().size()) return "[unknown]";
  return std::string(baseName(p.str(p.modules()[m].path)));
}

std::string diffKey(const Profile& p, GroupBy by, const Frame& f) {
  switch (by) {
    case GroupBy::kLine: {
      std::string key = functionPart(p, f);
      if (f.line != nullptr) {
        appendPart(key, baseName(p.str(lineFile(p, *f.line))));
        appendPart(key, std::to_string(f.line->line));
      }
      return key;
    }
    case GroupBy::kFile:
      if (f.line == nullptr) return moduleFileName(p, p.locations()[f.location].module);
      return normalizePath(p.str(lineFile(p, *f.line)));
    case GroupBy::kModule:
      return moduleFileName(p, p.locations()[f.location].module);
    case GroupBy::kFunction:
    case GroupBy::kThread:
    case GroupBy::kProcess:
    case GroupBy::kAddress:
      break;
  }
  return functionPart(p, f);
}

std::string diffThreadKey(const Profile& p, GroupBy by, int32_t tid) {
  const Thread* t = p.findThread(tid);
  if (by == GroupBy::kProcess) {
    const Thread* main_thread = t != nullptr ? p.findThread(t->pid) : nullptr;
    if (main_thread != nullptr && !main_thread->name.empty()) return main_thread->name;
    return t != nullptr && !t->name.empty() ? t->name : "process";
  }
  if (t == nullptr) return "thread";
  if (!t->role.empty()) return t->role;
  return t->name.empty() ? "thread" : t->name;
}

}  // namespace strobe::model
