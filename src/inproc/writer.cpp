#include "inproc/writer.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "output/format.hpp"
#include "store/store.hpp"

namespace strobe::inproc {
namespace {

// A named format, else the path's extension, else text.
Result<output::Format> resolveFormat(std::string_view format, std::string_view path) {
  if (!format.empty()) return output::parseFormat(format);
  if (auto f = output::formatFromPath(path)) return *f;
  return output::Format::kText;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The native recording: named "db", or a path ending in .db with no format named.
bool isRecording(std::string_view format, std::string_view path) {
  return format == "db" || (format.empty() && endsWith(path, ".db"));
}

// The recording's bytes, through a temporary file.
Result<std::string> recordingBytes(const model::Profile& p) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/strobe-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    return systemError("cannot create a temporary file in " + path.substr(0, path.rfind('/')),
                       "set TMPDIR to a writable directory");
  }
  ::close(fd);
  Status s = store::writeProfile(p, path);
  std::string bytes;
  if (s.ok()) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    bytes = all.str();
  }
  ::unlink(path.c_str());
  if (!s.ok()) return s.takeError();
  return bytes;
}

Status write(const model::Profile& p, output::Format f, std::FILE* out) {
  output::ReportOptions opt;
  opt.top = 30;
  opt.source = "libstrobe";
  return output::writeFormat(p, f, opt, out);
}

}  // namespace

Status writeProfileStream(const model::Profile& p, std::string_view format, std::FILE* out) {
  if (isRecording(format, "")) {
    auto bytes = recordingBytes(p);
    if (!bytes.ok()) return bytes.takeError();
    if (std::fwrite(bytes->data(), 1, bytes->size(), out) != bytes->size() ||
        std::fflush(out) != 0) {
      return systemError("cannot write the recording", "check the output and free space");
    }
    return {};
  }
  auto f = resolveFormat(format, "");
  if (!f.ok()) return f.takeError();
  return write(p, *f, out);
}

Status writeProfileFile(const model::Profile& p, std::string_view format, const std::string& path) {
  if (isRecording(format, path)) return store::writeProfile(p, path);
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
  if (isRecording(format, "")) return recordingBytes(p);
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
