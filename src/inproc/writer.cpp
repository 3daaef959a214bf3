#include "inproc/writer.hpp"

#include <cstdio>
#include <cstdlib>

#include "output/format.hpp"

namespace strobe::inproc {
namespace {

// A named format, else the path's extension, else text.
Result<output::Format> resolveFormat(std::string_view format, std::string_view path) {
  if (!format.empty()) return output::parseFormat(format);
  if (auto f = output::formatFromPath(path)) return *f;
  return output::Format::kText;
}

Status write(const model::Profile& p, output::Format f, std::FILE* out) {
  output::ReportOptions opt;
  opt.top = 30;
  opt.source = "libstrobe";
  return output::writeFormat(p, f, opt, out);
}

}  // namespace

Status writeProfileStream(const model::Profile& p, std::string_view format, std::FILE* out) {
  auto f = resolveFormat(format, "");
  if (!f.ok()) return f.takeError();
  return write(p, *f, out);
}

Status writeProfileFile(const model::Profile& p, std::string_view format, const std::string& path) {
  auto f = resolveFormat(format, path);
  if (!f.ok()) return f.takeError();
  std::FILE* out = std::fopen(path.c_str(), "we");
  if (out == nullptr) {
    return systemError("cannot write the profile to " + path,
                       "check that the directory exists and is writable");
  }
  Status s = write(p, *f, out);
  if (std::fclose(out) != 0 && s.ok()) s = systemError("cannot write the profile to " + path);
  if (!s.ok()) std::remove(path.c_str());  // no truncated or empty profile left behind
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
