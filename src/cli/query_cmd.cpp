// strobe query FILE "SQL" [--json] [--no-header]
#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "base/log.hpp"
#include "base/terminal_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "output/utf8.hpp"
#include "store/query.hpp"

namespace strobe::cli {
namespace {

struct QueryArgs {
  std::string file;
  std::string sql;
  bool json = false;
  bool no_header = false;
};

// Tabs, line breaks and backslashes inside a value are written as \t, \n,
// \r and \\ so that each row stays one line of tab-separated fields; other
// control characters and bytes that are not UTF-8 as \xNN, so that none
// reaches a terminal (base/terminal_text.hpp).
void printText(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    switch (text[i]) {
      case '\t':
        std::fputs("\\t", stdout);
        break;
      case '\n':
        std::fputs("\\n", stdout);
        break;
      case '\r':
        std::fputs("\\r", stdout);
        break;
      case '\\':
        std::fputs("\\\\", stdout);
        break;
      default: {
        size_t bad = terminalUnsafeLength(text, i);
        size_t n = bad != 0 ? bad : std::max<size_t>(1, utf8Length(text, i));
        std::string_view part = text.substr(i, n);
        std::fputs(bad != 0 ? terminalSafe(part).c_str() : std::string(part).c_str(), stdout);
        i += n;
        continue;
      }
    }
    ++i;
  }
}

void printField(const store::Cell& c) {
  switch (c.kind) {
    case store::Cell::Kind::kNull:
      break;
    case store::Cell::Kind::kInteger:
      std::printf("%lld", static_cast<long long>(c.integer));
      break;
    case store::Cell::Kind::kReal:
      fmt::print("{}", c.real);  // the shortest text that reads back the same
      break;
    case store::Cell::Kind::kText:
      printText(c.text);
      break;
  }
}

int runQuery(const QueryArgs& a) {
  Status st;
  if (a.json) {
    char buf[1 << 16];
    rapidjson::FileWriteStream os(stdout, buf, sizeof buf);
    rapidjson::Writer<rapidjson::FileWriteStream> w(os);
    std::vector<std::string> columns;
    w.StartArray();
    store::QueryCallbacks cb;
    cb.columns = [&](const std::vector<std::string>& c) { columns = c; };
    cb.row = [&](const std::vector<store::Cell>& row) {
      w.StartObject();
      // JSON is UTF-8: invalid bytes become U+FFFD, as in every json writer.
      std::string scratch;
      auto put = [&](const std::string& s, bool key) {
        std::string_view v = output::validUtf8(s, scratch);
        auto n = static_cast<rapidjson::SizeType>(v.size());
        return key ? w.Key(v.data(), n) : w.String(v.data(), n);
      };
      for (size_t i = 0; i < row.size(); ++i) {
        put(columns[i], true);
        const store::Cell& c = row[i];
        switch (c.kind) {
          case store::Cell::Kind::kNull:
            w.Null();
            break;
          case store::Cell::Kind::kInteger:
            w.Int64(c.integer);
            break;
          case store::Cell::Kind::kReal:
            w.Double(c.real);
            break;
          case store::Cell::Kind::kText:
            put(c.text, false);
            break;
        }
      }
      w.EndObject();
      return true;
    };
    st = store::runQuery(a.file, a.sql, cb);
    w.EndArray();
    os.Put('\n');
    os.Flush();
  } else {
    store::QueryCallbacks cb;
    cb.columns = [&](const std::vector<std::string>& columns) {
      if (a.no_header) return;
      for (size_t i = 0; i < columns.size(); ++i) {
        if (i) std::fputc('\t', stdout);
        printText(columns[i]);
      }
      std::printf("\n");
    };
    cb.row = [&](const std::vector<store::Cell>& row) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i) std::fputc('\t', stdout);
        printField(row[i]);
      }
      std::fputc('\n', stdout);
      return true;
    };
    st = store::runQuery(a.file, a.sql, cb);
  }
  std::fflush(stdout);
  if (!st) {
    logError(st.error());
    return exitCodeFor(st.error()) == kExitUsage ? kExitUsage : kExitError;
  }
  return 0;
}

}  // namespace

Runner addQueryCommand(CLI::App& app) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* sub = app.add_subcommand("query", "Run read-only SQL over a recording");
  sub->add_option("file", args->file, "The recording")->required();
  sub->add_option("sql", args->sql, "SQL (tables and views: docs/FORMAT.md)")->required();
  sub->add_flag("--json", args->json, "Print rows as a JSON array of objects");
  sub->add_flag("--no-header", args->no_header, "Leave out the line of column names");
  return [args] { return runQuery(*args); };
}

}  // namespace strobe::cli
