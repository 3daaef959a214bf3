// The kept code of sampled functions in a recording (schema 2, tables code
// and code_lines): round trip, recordings from before it (schema 1), and
// damaged rows, which readCode() refuses with the row named while the rest
// of the recording still reads.
#include <gtest/gtest.h>

#include "model/code.hpp"
#include "store/store.hpp"
#include "store_test_util.hpp"

namespace strobe::test {
namespace {

model::Profile withCode() {
  model::Profile p = richProfile();
  model::FunctionCode c;
  c.function = 0;
  c.module = 0;
  c.offset = 0x1230;
  c.address = 0x401230;
  c.size = 5;
  c.arch = "x86_64";
  c.bytes = {0x55, 0x48, 0x89, 0xe5, 0xc3};
  c.checksum = model::codeChecksum(c.bytes);
  c.lines = {{0, p.internString("/src/a.cpp"), 10},
             {1, p.internString("/src/a.cpp"), 11},
             {4, p.internString("/src/b.hpp"), 0}};
  p.addCode(c);
  model::FunctionCode kernel;  // a range without bytes, high-bit addresses
  kernel.module = 1;
  kernel.offset = kernel.address = 0xffffffff81000000ULL;
  kernel.size = 0x200;
  p.addCode(kernel);
  return p;
}

class CodeStoreTest : public StoreTest {
 protected:
  std::string recording() {
    std::string path = file("rec.db");
    Status st = store::writeProfile(withCode(), path);
    EXPECT_TRUE(st) << st.error().describe();
    return path;
  }
  // readCode's error on `path`, after readProfile succeeded on it.
  std::string codeError(const std::string& path) {
    auto p = store::readProfile(path);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().describe());
    if (!p.ok()) return {};
    auto code = store::readCode(path, *p);
    EXPECT_FALSE(code.ok());
    EXPECT_TRUE(p->code().empty()) << "a failed read adds nothing";
    if (code.ok()) return {};
    EXPECT_EQ(code.error().kind, ErrorKind::kCorrupt);
    EXPECT_EQ(code.error().hint,
              "the recording's kept code is damaged; annotate needs it: record again");
    return code.error().message;
  }
};

TEST_F(CodeStoreTest, RoundTrip) {
  model::Profile original = withCode();
  std::string path = recording();
  auto back = store::readProfile(path);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(back->code().empty()) << "readProfile leaves the code to readCode";
  auto has = store::readCode(path, *back);
  ASSERT_TRUE(has.ok()) << has.error().describe();
  EXPECT_TRUE(*has);
  ASSERT_EQ(back->code().size(), 2u);
  const model::FunctionCode& a = original.code()[0];
  const model::FunctionCode& b = back->code()[0];
  EXPECT_EQ(b.function, a.function);
  EXPECT_EQ(b.module, a.module);
  EXPECT_EQ(b.offset, a.offset);
  EXPECT_EQ(b.address, a.address);
  EXPECT_EQ(b.size, a.size);
  EXPECT_EQ(b.arch, "x86_64");
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_EQ(b.checksum, a.checksum);
  ASSERT_EQ(b.lines.size(), 3u);
  EXPECT_EQ(back->str(b.lines[1].file), "/src/a.cpp");
  EXPECT_EQ(b.lines[1].offset, 1u);
  EXPECT_EQ(b.lines[1].line, 11u);
  EXPECT_EQ(back->str(b.lines[2].file), "/src/b.hpp");
  const model::FunctionCode& k = back->code()[1];
  EXPECT_EQ(k.function, model::kNone);
  EXPECT_EQ(k.offset, 0xffffffff81000000ULL);
  EXPECT_EQ(k.size, 0x200u);
  EXPECT_TRUE(k.bytes.empty());
  EXPECT_EQ(k.checksum, 0u);
  // SQL users see the tables too.
  EXPECT_EQ(querySql(path, "SELECT hex(bytes) FROM code WHERE id = 0"), "554889E5C3");
}

TEST_F(CodeStoreTest, SchemaOneRecordingsReadWithoutCode) {
  std::string path = recording();
  execSql(path,
          "DROP TABLE code_lines; DROP TABLE code; PRAGMA user_version = 1;"
          " UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  auto p = store::readProfile(path);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  auto has = store::readCode(path, *p);
  ASSERT_TRUE(has.ok()) << has.error().describe();
  EXPECT_FALSE(*has);
  EXPECT_TRUE(p->code().empty());
}

TEST_F(CodeStoreTest, MissingTable) {
  std::string path = recording();
  execSql(path, "DROP TABLE code_lines");
  EXPECT_EQ(codeError(path), path + ": the kept code is damaged: table 'code_lines' is missing");
}

TEST_F(CodeStoreTest, DamagedRowsAreNamed) {
  std::string path = recording();
  execSql(path, "UPDATE code SET module_id = 7 WHERE id = 1");
  EXPECT_EQ(codeError(path), path +
                                 ": the kept code is damaged: code row 1: module_id 7 is out of "
                                 "range (3 modules)");
  execSql(path, "UPDATE code SET module_id = 1 WHERE id = 1; UPDATE code SET bytes = 'text'");
  EXPECT_EQ(codeError(path), path + ": the kept code is damaged: code row 0: bytes is not a blob");
  execSql(path, "UPDATE code SET bytes = x'00'; UPDATE code SET size = -1 WHERE id = 0");
  EXPECT_EQ(codeError(path),
            path + ": the kept code is damaged: code row 0: size -1 is out of range");
  execSql(path, "UPDATE code SET size = 5; UPDATE code SET id = 5 WHERE id = 1");
  EXPECT_EQ(codeError(path),
            path +
                ": the kept code is damaged: code row 1: id 5 where 1 was expected (ids run 0, "
                "1, 2, ...)");
  execSql(path, "UPDATE code SET id = 1 WHERE id = 5; UPDATE code SET bytes = zeroblob(262145)");
  EXPECT_EQ(codeError(path), path +
                                 ": the kept code is damaged: code row 0: bytes holds 262145 "
                                 "bytes, more than strobe keeps of one function (262144)");
  execSql(path, "UPDATE code SET bytes = x'00'; UPDATE code_lines SET code_id = 9");
  EXPECT_EQ(codeError(path),
            path +
                ": the kept code is damaged: code_lines row (code_id 9, offset 0): code_id 9 "
                "is out of range (2 code rows)");
}

TEST_F(CodeStoreTest, BytesAreNotJudgedHere) {
  // Truncated and altered bytes read as they are: annotate judges them
  // against the size and the checksum (tests/unit/output/annotate_test.cpp).
  std::string path = recording();
  execSql(path, "UPDATE code SET bytes = x'5548' WHERE id = 0");
  auto p = store::readProfile(path);
  ASSERT_TRUE(p.ok());
  auto has = store::readCode(path, *p);
  ASSERT_TRUE(has.ok()) << has.error().describe();
  ASSERT_EQ(p->code().size(), 2u);
  EXPECT_EQ(p->code()[0].bytes, (std::vector<uint8_t>{0x55, 0x48}));
  EXPECT_EQ(p->code()[0].size, 5u);
  EXPECT_NE(p->code()[0].checksum, model::codeChecksum(p->code()[0].bytes));
}

}  // namespace
}  // namespace strobe::test
