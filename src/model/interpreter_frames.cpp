#include "model/interpreter_frames.hpp"

namespace strobe::model {

FunctionId pythonFunction(Profile& p, std::string_view qualname, std::string_view file,
                          uint32_t first_line) {
  return p.internFunction(qualname, qualname, file, first_line);
}

LocationId pythonLocation(Profile& p, FunctionId function, uint32_t line, uint64_t code_address) {
  const ModuleId module = p.internModule(kPythonModule, "");
  const uint64_t offset = (uint64_t{function} << 32) | line;
  const LocationId id = p.internLocation(module, offset, code_address);
  Location& loc = p.mutableLocations()[id];
  if (loc.lines.empty()) loc.lines.push_back(Line{function, line, p.functions()[function].file});
  return id;
}

bool isPythonLocation(const Profile& p, LocationId id) {
  if (id >= p.locations().size()) return false;
  const ModuleId m = p.locations()[id].module;
  return m != kNone && m < p.modules().size() && isPythonModule(p.str(p.modules()[m].path));
}

}  // namespace strobe::model
