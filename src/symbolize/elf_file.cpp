#include "symbolize/elf_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "symbolize/inflate_sections.hpp"

namespace strobe::symbolize {
namespace {

void initLibelf() {
  static std::once_flag once;
  std::call_once(once, [] { ::elf_version(EV_CURRENT); });
}

Error corrupt(const std::string& path, const std::string& what) {
  return makeError(path + ": " + what, "check that the file is a complete ELF binary",
                   ErrorKind::kCorrupt);
}

std::string elfMessage() {
  const char* m = ::elf_errmsg(-1);
  return m != nullptr ? m : "unknown libelf error";
}

// [offset, offset + size) lies within a file of `file_size` bytes.
bool fits(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

std::string hex(const unsigned char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[p[i] >> 4]);
    out.push_back(kDigits[p[i] & 0xf]);
  }
  return out;
}

// The NT_GNU_BUILD_ID descriptor in a block of notes, "" when absent.
std::string buildIdInNotes(Elf_Data* data) {
  if (data == nullptr || data->d_buf == nullptr) return {};
  const auto* base = static_cast<const unsigned char*>(data->d_buf);
  size_t offset = 0;
  GElf_Nhdr nhdr;
  size_t name_off = 0;
  size_t desc_off = 0;
  while (offset < data->d_size) {
    size_t next = ::gelf_getnote(data, offset, &nhdr, &name_off, &desc_off);
    if (next == 0 || next <= offset) break;
    offset = next;
    if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 || nhdr.n_descsz == 0) continue;
    if (!fits(name_off, 4, data->d_size) || !fits(desc_off, nhdr.n_descsz, data->d_size)) break;
    if (std::string_view(reinterpret_cast<const char*>(base + name_off), 4) !=
        std::string_view("GNU\0", 4)) {
      continue;
    }
    return hex(base + desc_off, nhdr.n_descsz);
  }
  return {};
}

}  // namespace

void ElfFile::ElfCloser::operator()(Elf* e) const {
  ::elf_end(e);
}

ElfFile::ElfFile(ElfFile&&) noexcept = default;
ElfFile::~ElfFile() = default;

ElfFile& ElfFile::operator=(ElfFile&& o) noexcept {
  if (this != &o) {
    elf_.reset();  // end the Elf before closing its descriptor
    fd_ = std::move(o.fd_);
    image_ = std::move(o.image_);
    elf_ = std::move(o.elf_);
    path_ = std::move(o.path_);
    build_id_ = std::move(o.build_id_);
    type_ = o.type_;
    machine_ = o.machine_;
    pie_ = o.pie_;
    segments_ = std::move(o.segments_);
  }
  return *this;
}

Result<ElfFile> ElfFile::open(const std::string& path, const std::string& name) {
  initLibelf();
  ElfFile f;
  f.path_ = name.empty() ? path : name;
  // O_NONBLOCK: a FIFO named as a module must not hang the open; it is then
  // rejected as not a regular file.
  f.fd_ = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!f.fd_.valid()) {
    ErrorKind kind = ErrorKind::kGeneric;
    if (errno == ENOENT || errno == ENOTDIR) kind = ErrorKind::kNotFound;
    if (errno == EACCES || errno == EPERM) kind = ErrorKind::kPermission;
    return systemError("cannot open " + path, {}, kind);
  }
  struct stat st {};
  if (::fstat(f.fd_.get(), &st) != 0) return systemError("cannot stat " + path);
  if (!S_ISREG(st.st_mode)) return corrupt(path, "not a regular file");
  if (static_cast<uint64_t>(st.st_size) < EI_NIDENT) return corrupt(path, "not an ELF file");

  f.elf_.reset(::elf_begin(f.fd_.get(), ELF_C_READ_MMAP, nullptr));
  if (!f.elf_) return corrupt(path, "not readable as ELF (" + elfMessage() + ")");
  if (::elf_kind(f.elf_.get()) != ELF_K_ELF) return corrupt(path, "not an ELF file");
  if (auto st_load = f.load(static_cast<uint64_t>(st.st_size)); !st_load) {
    return st_load.takeError();
  }
  return f;
}

Status ElfFile::load(uint64_t file_size) {
  Elf* e = elf_.get();
  GElf_Ehdr ehdr;
  if (::gelf_getehdr(e, &ehdr) == nullptr) return corrupt(path_, "bad ELF header");
  type_ = ehdr.e_type;
  machine_ = ehdr.e_machine;

  size_t phnum = 0;
  if (::elf_getphdrnum(e, &phnum) != 0) return corrupt(path_, "bad program header count");
  if (phnum > 0 && !fits(ehdr.e_phoff, uint64_t{phnum} * ehdr.e_phentsize, file_size)) {
    return corrupt(path_, "truncated: the program headers lie past the end of the file");
  }
  // libelf reports 0 sections when their table lies past the end of the file,
  // so check the count the header states (at least 1 when e_shnum == 0 and
  // e_shoff is set: the real count is then in section 0).
  size_t shnum = 0;
  if (::elf_getshdrnum(e, &shnum) != 0) return corrupt(path_, "bad section header count");
  uint64_t stated = ehdr.e_shnum != 0 ? ehdr.e_shnum : (ehdr.e_shoff != 0 ? 1 : 0);
  shnum = std::max<uint64_t>(shnum, stated);
  if (shnum > 0 && !fits(ehdr.e_shoff, uint64_t{shnum} * ehdr.e_shentsize, file_size)) {
    return corrupt(path_, "truncated: the section headers lie past the end of the file");
  }

  bool has_interp = false;
  bool has_soname = false;
  bool pie_flag = false;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (::gelf_getphdr(e, static_cast<int>(i), &ph) == nullptr) {
      return corrupt(path_, "bad program header " + std::to_string(i));
    }
    if (ph.p_type == PT_INTERP) has_interp = true;
    if (ph.p_type != PT_LOAD && ph.p_type != PT_NOTE && ph.p_type != PT_DYNAMIC) continue;
    if (!fits(ph.p_offset, ph.p_filesz, file_size)) {
      return corrupt(
          path_, "truncated: segment " + std::to_string(i) + " extends past the end of the file");
    }
    if (ph.p_type == PT_LOAD) {
      segments_.push_back(LoadSegment{FileOffset(ph.p_offset), Svma(ph.p_vaddr), ph.p_filesz,
                                      ph.p_memsz, ph.p_flags});
    } else if (ph.p_type == PT_NOTE && build_id_.empty()) {
      Elf_Type t = ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
      build_id_ = buildIdInNotes(
          ::elf_getdata_rawchunk(e, static_cast<int64_t>(ph.p_offset), ph.p_filesz, t));
    } else if (ph.p_type == PT_DYNAMIC) {
      Elf_Data* d =
          ::elf_getdata_rawchunk(e, static_cast<int64_t>(ph.p_offset), ph.p_filesz, ELF_T_DYN);
      GElf_Dyn dyn;
      for (int k = 0; d != nullptr && ::gelf_getdyn(d, k, &dyn) != nullptr; ++k) {
        if (dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_SONAME) has_soname = true;
        if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE) != 0) pie_flag = true;
      }
    }
  }
  // Linkers since binutils 2.35 mark PIEs with DF_1_PIE; for older ones, an
  // interpreter without a soname (libc.so.6 has an interpreter and a soname).
  pie_ = type_ == ET_DYN && (pie_flag || (has_interp && !has_soname));

  // Files without a PT_NOTE for it (relocatable objects, some debug files).
  for (Elf_Scn* scn = nullptr; build_id_.empty() && (scn = ::elf_nextscn(e, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (::gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_NOTE) continue;
    build_id_ = buildIdInNotes(::elf_getdata(scn, nullptr));
  }
  return {};
}

Status ElfFile::inflateDebugSections() {
  size_t size = 0;
  const char* raw = ::elf_rawfile(elf_.get(), &size);
  if (raw == nullptr || image_.valid()) return {};
  auto img = symbolize::inflateDebugSections(reinterpret_cast<const uint8_t*>(raw), size, path_);
  if (!img) return img.takeError();
  if (img->size == 0) return {};
  Elf* e = ::elf_memory(reinterpret_cast<char*>(img->bytes()), img->size);
  if (e == nullptr) return corrupt(path_, "not readable as ELF (" + elfMessage() + ")");
  elf_.reset(e);
  image_ = std::move(img->memory);
  return {};
}

void ElfFile::releasePages() const {
  if (image_.valid() || !elf_) return;
  size_t size = 0;
  char* raw = ::elf_rawfile(elf_.get(), &size);
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (raw == nullptr || size == 0 || reinterpret_cast<uintptr_t>(raw) % page != 0) return;
  // A read-only mapping of the file (ELF_C_READ_MMAP): dropping its pages
  // loses nothing.
  ::madvise(raw, size, MADV_DONTNEED);
}

std::optional<Svma> ElfFile::fileOffsetToSvma(FileOffset off) const {
  for (const LoadSegment& s : segments_) {
    if (off.v >= s.offset.v && off.v - s.offset.v < s.file_size) {
      return Svma(off.v - s.offset.v + s.vaddr.v);
    }
  }
  return std::nullopt;
}

std::optional<FileOffset> ElfFile::svmaToFileOffset(Svma start, uint64_t size) const {
  for (const LoadSegment& s : segments_) {
    if (start.v >= s.vaddr.v && start.v - s.vaddr.v <= s.file_size &&
        size <= s.file_size - (start.v - s.vaddr.v)) {
      return FileOffset(start.v - s.vaddr.v + s.offset.v);
    }
  }
  return std::nullopt;
}

Result<std::vector<uint8_t>> ElfFile::readBytes(FileOffset offset, uint64_t size) const {
  std::vector<uint8_t> out(size);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n =
        ::pread(fd_.get(), out.data() + done, size - done, static_cast<off_t>(offset.v + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return systemError("cannot read " + path_);
    if (n == 0) return corrupt(path_, "truncated: code past the end of the file");
    done += static_cast<uint64_t>(n);
  }
  return out;
}

}  // namespace strobe::symbolize
