// Internal to src/store: the SQL text of the schema (tables and views),
// shared by the writer and the reader's checks. docs/FORMAT.md documents it;
// change both together, and bump kSchemaVersion for any change an older
// reader could not read. Version 2 added `spans`, `threads.role`, the code
// tables (kCreateCodeTablesSql), and samples.kind and samples.off_cpu_reason
// (off-CPU time; an older reader would count it as CPU time); version-1
// recordings are read with every sample of the kind their event gives
// (model::kindOfEvent).
// Owns: static constant strings only. Thread safety: immutable.
#pragma once

#include <array>

namespace strobe::store {

// Tables, created in one transaction before any row is inserted. Ids are the
// model's dense ids. threads.tid is `INT PRIMARY KEY` (not INTEGER), so it is
// not the rowid and rows keep the order threads were first seen.
inline constexpr const char* kCreateTablesSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE modules(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, build_id TEXT NOT NULL);
CREATE TABLE functions(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, system_name TEXT NOT NULL,
  file TEXT NOT NULL, start_line INTEGER NOT NULL);
CREATE TABLE locations(
  id INTEGER PRIMARY KEY, module_id INTEGER REFERENCES modules(id),
  address INTEGER NOT NULL, offset INTEGER NOT NULL);
CREATE TABLE location_lines(
  location_id INTEGER NOT NULL REFERENCES locations(id), depth INTEGER NOT NULL,
  function_id INTEGER REFERENCES functions(id), line INTEGER NOT NULL,
  PRIMARY KEY(location_id, depth)) WITHOUT ROWID;
CREATE TABLE stacks(
  id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES stacks(id),
  location_id INTEGER NOT NULL REFERENCES locations(id));
CREATE TABLE samples(
  time_ns INTEGER NOT NULL, tid INTEGER NOT NULL, cpu INTEGER NOT NULL,
  stack_id INTEGER REFERENCES stacks(id), weight INTEGER NOT NULL,
  stack_end INTEGER NOT NULL DEFAULT 0, kind INTEGER NOT NULL DEFAULT 0,
  off_cpu_reason INTEGER NOT NULL DEFAULT 0);
CREATE TABLE threads(tid INT PRIMARY KEY NOT NULL, pid INTEGER NOT NULL, name TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT '');
CREATE TABLE spans(
  tid INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  name TEXT NOT NULL, depth INTEGER NOT NULL);
)sql";

// The code of the functions that hold self samples (model/code.hpp),
// created after the tables above. code.bytes is the range's bytes or an
// empty blob (not kept); code_lines are its line-table rows, `offset` bytes
// from the function's first byte.
inline constexpr const char* kCreateCodeTablesSql = R"sql(
CREATE TABLE code(
  id INTEGER PRIMARY KEY, function_id INTEGER REFERENCES functions(id),
  module_id INTEGER NOT NULL REFERENCES modules(id), offset INTEGER NOT NULL,
  address INTEGER NOT NULL, size INTEGER NOT NULL, arch TEXT NOT NULL,
  bytes BLOB NOT NULL, checksum INTEGER NOT NULL);
CREATE TABLE code_lines(
  code_id INTEGER NOT NULL REFERENCES code(id), offset INTEGER NOT NULL,
  file TEXT NOT NULL, line INTEGER NOT NULL,
  PRIMARY KEY(code_id, offset)) WITHOUT ROWID;
)sql";

// Views for SQL users; the reader never uses them.
//   leaf_functions: one row per sample with its leaf frame's innermost
//     function (unresolved frames named like the reports: "libc.so.6+0x9a0f0",
//     "[unknown]+0xdeadbeef"; NULL for an empty stack).
//   stack_frames: every frame of every stack, depth 0 = leaf.
inline constexpr const char* kCreateViewsSql = R"sql(
CREATE VIEW leaf_functions AS
SELECT s.rowid AS sample_id, s.time_ns, s.tid, s.cpu, s.weight, s.kind, s.stack_id,
       st.location_id, m.path AS module,
       CASE
         WHEN st.id IS NULL THEN NULL
         WHEN f.id IS NOT NULL THEN f.name
         WHEN m.id IS NOT NULL THEN
           replace(m.path, rtrim(m.path, replace(m.path, '/', '')), '') ||
           printf('+0x%x', l.offset)
         ELSE printf('[unknown]+0x%x', l.address)
       END AS function,
       f.file AS file, ll.line AS line
FROM samples s
LEFT JOIN stacks st ON st.id = s.stack_id
LEFT JOIN locations l ON l.id = st.location_id
LEFT JOIN modules m ON m.id = l.module_id
LEFT JOIN location_lines ll ON ll.location_id = l.id AND ll.depth = 0
LEFT JOIN functions f ON f.id = ll.function_id;
CREATE VIEW stack_frames AS
WITH RECURSIVE walk(stack_id, depth, location_id, parent_id) AS (
  SELECT id, 0, location_id, parent_id FROM stacks
  UNION ALL
  SELECT w.stack_id, w.depth + 1, s.location_id, s.parent_id
  FROM walk w JOIN stacks s ON s.id = w.parent_id)
SELECT stack_id, depth, location_id FROM walk;
)sql";

// Every table a recording must have, in the order the reader loads them.
inline constexpr std::array<const char*, 8> kTables = {
    "meta", "modules", "functions", "locations", "location_lines", "stacks", "samples", "threads"};
// And the tables version 2 added that every report reads. Version 2's code
// and code_lines are read by annotate alone (code_reader.cpp names their
// damage), so a recording missing them still reports.
inline constexpr std::array<const char*, 1> kTablesSince2 = {"spans"};

}  // namespace strobe::store
