#include "inproc/writer.hpp"

#include <cstdlib>

#include "output/text_report.hpp"

namespace strobe::inproc {
namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Result<std::string> resolveFormat(std::string_view format, std::string_view path) {
  if (format.empty()) {
    if (endsWith(path, ".pb.gz") || endsWith(path, ".pprof")) return std::string("pprof");
    return std::string("text");
  }
  return std::string(format);
}

}  // namespace

Status writeProfileStream(const model::Profile& p, std::string_view format, std::FILE* out) {
  auto f = resolveFormat(format, "");
  if (!f.ok()) return f.takeError();
  if (*f != "text") {
    return makeError("format '" + *f + "' is not available in this build of libstrobe",
                     "use format text", ErrorKind::kUnsupported);
  }
  output::TextOptions opt;
  opt.top = 30;
  output::writeTextReport(p, opt, "libstrobe", out);
  return {};
}

Status writeProfileFile(const model::Profile& p, std::string_view format, const std::string& path) {
  auto f = resolveFormat(format, path);
  if (!f.ok()) return f.takeError();
  std::FILE* out = std::fopen(path.c_str(), "we");
  if (out == nullptr) {
    return systemError("cannot write the profile to " + path,
                       "check that the directory exists and is writable");
  }
  Status s = writeProfileStream(p, *f, out);
  if (std::fclose(out) != 0 && s.ok()) s = systemError("cannot write the profile to " + path);
  return s;
}

Result<std::string> profileBytes(const model::Profile& p, std::string_view format) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = ::open_memstream(&buf, &size);
  if (out == nullptr) return systemError("cannot buffer the profile");
  Status s = writeProfileStream(p, format, out);
  std::fclose(out);
  std::string bytes(buf, size);
  std::free(buf);
  if (!s.ok()) return s.takeError();
  return bytes;
}

}  // namespace strobe::inproc
