// CodeReader on code objects laid out by hand (3.12's layout) in this
// process's own memory, read through process_vm_readv like another
// process's: naming, the cache and its check for a reused address, and the
// bounds it keeps on what it reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "cpython/code_reader.hpp"

namespace strobe::cpython {
namespace {

uint64_t addressOf(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

class FakeProcess {
 public:
  FakeProcess() : layout_(*tableLayout(0x030c01f0)) {
    in_.pid = ::getpid();
    in_.layout = layout_;
    in_.code_type = addressOf(&type_);
  }
  // A compact str: ASCII when every character is, else UCS-2.
  const std::vector<uint8_t>& str(const std::u16string& s) {
    bool ascii = true;
    for (char16_t c : s) ascii = ascii && c < 0x80;
    const size_t head = ascii ? layout_.unicode_ascii_size : layout_.unicode_compact_size;
    std::vector<uint8_t> b(head + (s.size() + 1) * (ascii ? 1 : 2), 0);
    put<uint64_t>(b, layout_.unicode_length, s.size());
    put<uint32_t>(b, layout_.unicode_state,
                  ((ascii ? 1u : 2u) << 2) | (1u << 5) | (ascii ? 1u << 6 : 0));
    for (size_t i = 0; i < s.size(); ++i) {
      if (ascii) {
        b[head + i] = static_cast<uint8_t>(s[i]);
      } else {
        put<uint16_t>(b, head + 2 * i, s[i]);
      }
    }
    return keep(std::move(b));
  }
  const std::vector<uint8_t>& bytes(const std::vector<uint8_t>& data, uint64_t stated_size) {
    std::vector<uint8_t> b(layout_.bytes_data + data.size() + 1, 0);
    put<uint64_t>(b, layout_.var_size, stated_size);
    std::memcpy(b.data() + layout_.bytes_data, data.data(), data.size());
    return keep(std::move(b));
  }
  std::vector<uint8_t>& code(const std::vector<uint8_t>& qualname, const std::vector<uint8_t>& file,
                             const std::vector<uint8_t>& table, int32_t first_line) {
    std::vector<uint8_t> b(layout_.code_adaptive + 32, 0);
    put<uint64_t>(b, layout_.object_type, in_.code_type);
    put<uint64_t>(b, layout_.var_size, 16);
    put<uint64_t>(b, layout_.code_qualname, addressOf(qualname.data()));
    put<uint64_t>(b, layout_.code_name, addressOf(qualname.data()));
    put<uint64_t>(b, layout_.code_filename, addressOf(file.data()));
    put<uint64_t>(b, layout_.code_linetable, addressOf(table.data()));
    put<int32_t>(b, layout_.code_firstlineno, first_line);
    return keep(std::move(b));
  }
  const Interpreter& interpreter() const { return in_; }
  const Layout& layout() const { return layout_; }

 private:
  std::vector<uint8_t>& keep(std::vector<uint8_t> b) {
    objects_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(b)));
    return *objects_.back();
  }
  Layout layout_;
  Interpreter in_;
  uint64_t type_ = 0;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> objects_;
};

// Two short-form entries: units 0-1 on the first line, units 2-3 one line on.
const std::vector<uint8_t> kTable = {0x80 | 1, 0x00, 0x80 | (11 << 3) | 1, 0x00, 0x00};

TEST(CpythonCodeReader, NamesACodeObject) {
  FakeProcess p;
  auto& code = p.code(p.str(u"Worker.run"), p.str(u"/srv/app/worker.py"),
                      p.bytes(kTable, kTable.size()), 41);
  RemoteMemory mem(::getpid());
  CodeReader reader(p.interpreter(), mem);
  auto c = reader.code(addressOf(code.data()));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ((*c)->qualname, "Worker.run");
  EXPECT_EQ((*c)->filename, "/srv/app/worker.py");
  EXPECT_EQ((*c)->first_line, 41);
  EXPECT_EQ((*c)->code_units, 16u);
  const uint32_t start = p.layout().code_adaptive;
  EXPECT_EQ((*c)->lineAt(start), 41u);
  EXPECT_EQ((*c)->lineAt(start + 2), 41u);
  EXPECT_EQ((*c)->lineAt(start + 4), 42u);
  EXPECT_EQ((*c)->lineAt(start + 7), 42u);
  EXPECT_EQ((*c)->lineAt(start + 8), 0u) << "past the table";
  EXPECT_EQ((*c)->lineAt(start - 2), 41u) << "a frame not started yet: its first unit";
  EXPECT_EQ(reader.stats().named, 1u);
}

TEST(CpythonCodeReader, NonAsciiNames) {
  FakeProcess p;
  auto& code = p.code(p.str(u"gr\u00fc\u00dfe.\u4e2d"), p.str(u"/tmp/\u00e9.py"),
                      p.bytes(kTable, kTable.size()), 1);
  RemoteMemory mem(::getpid());
  CodeReader reader(p.interpreter(), mem);
  auto c = reader.code(addressOf(code.data()));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ((*c)->qualname,
            "gr\xc3\xbc\xc3\x9f"
            "e.\xe4\xb8\xad");
  EXPECT_EQ((*c)->filename, "/tmp/\xc3\xa9.py");
}

TEST(CpythonCodeReader, CachedUntilTheNextEpochThenChecked) {
  FakeProcess p;
  auto& table = p.bytes(kTable, kTable.size());
  auto& file = p.str(u"a.py");
  auto& first = p.str(u"first");
  auto& second = p.str(u"second");
  auto& code = p.code(first, file, table, 1);
  RemoteMemory mem(::getpid());
  CodeReader reader(p.interpreter(), mem);
  const uint64_t at = addressOf(code.data());
  ASSERT_EQ((*reader.code(at))->qualname, "first");
  const uint64_t reads = mem.reads();
  ASSERT_EQ((*reader.code(at))->qualname, "first");
  EXPECT_EQ(mem.reads(), reads) << "a second use in one epoch reads nothing";

  // A field outside the header changes (a reference count): the same object.
  put<uint64_t>(code, 0, 99);
  reader.nextEpoch();
  ASSERT_EQ((*reader.code(at))->qualname, "first");
  EXPECT_EQ(reader.stats().checks, 1u);
  EXPECT_EQ(reader.stats().replaced, 0u);
  EXPECT_EQ(mem.reads(), reads + 1) << "a check reads the header once";

  // Another code object at the same address.
  put<uint64_t>(code, p.layout().code_qualname, addressOf(second.data()));
  ASSERT_EQ((*reader.code(at))->qualname, "first") << "not checked again within the epoch";
  reader.nextEpoch();
  ASSERT_EQ((*reader.code(at))->qualname, "second");
  EXPECT_EQ(reader.stats().replaced, 1u);
  EXPECT_EQ(reader.stats().named, 2u);
}

TEST(CpythonCodeReader, RefusesWhatIsNotACodeObject) {
  FakeProcess p;
  auto& table = p.bytes(kTable, kTable.size());
  auto& name = p.str(u"f");
  RemoteMemory mem(::getpid());
  CodeReader reader(p.interpreter(), mem);

  auto& other_type = p.code(name, name, table, 1);
  put<uint64_t>(other_type, p.layout().object_type, 12345);
  auto r = reader.code(addressOf(other_type.data()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("another type"), std::string::npos) << r.error().message;

  auto& huge_table = p.code(name, name, p.bytes(kTable, uint64_t{1} << 40), 1);
  EXPECT_FALSE(reader.code(addressOf(huge_table.data())).ok());

  auto& legacy = p.str(u"x");
  put<uint32_t>(const_cast<std::vector<uint8_t>&>(legacy), p.layout().unicode_state, 1u << 2);
  auto& not_compact = p.code(legacy, name, table, 1);
  EXPECT_FALSE(reader.code(addressOf(not_compact.data())).ok());

  EXPECT_FALSE(reader.code(16).ok()) << "an unmapped address";
  EXPECT_EQ(reader.stats().failures, 4u);
  EXPECT_EQ(reader.stats().named, 0u);
}

TEST(CpythonCodeReader, Utf8FromPython) {
  const uint8_t latin1[] = {'a', 0xe9};
  EXPECT_EQ(utf8FromPython(latin1, 2, 1), "a\xc3\xa9");
  const uint32_t ucs4[] = {0x1F600, 0xD800};
  EXPECT_EQ(utf8FromPython(reinterpret_cast<const uint8_t*>(ucs4), 2, 4),
            "\xf0\x9f\x98\x80\xef\xbf\xbd");
}

}  // namespace
}  // namespace strobe::cpython
