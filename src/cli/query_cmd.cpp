// strobe query FILE "SQL" [--json] [--no-header]
#include <rapidjson/filewritestream.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "base/log.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
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
// \r and \\ so that each row stays one line of tab-separated fields.
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
      for (char ch : c.text) {
        switch (ch) {
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
          default:
            std::fputc(ch, stdout);
        }
      }
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
      for (size_t i = 0; i < row.size(); ++i) {
        w.Key(columns[i].data(), static_cast<rapidjson::SizeType>(columns[i].size()));
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
            w.String(c.text.data(), static_cast<rapidjson::SizeType>(c.text.size()));
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
        std::printf("%s%s", i ? "\t" : "", columns[i].c_str());
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
