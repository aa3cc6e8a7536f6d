// An RFC 4180 CSV reader for the evaluation harness (MedCalc-Bench's
// test_data.csv): comma-separated fields, fields in double quotes may hold
// commas, CR/LF line breaks and "" (an escaped quote); records end at LF or
// CRLF. Each record remembers the line it starts on so that errors and
// per-row reports can point into the file.
//
//   Result<CsvTable> t = ParseCsv(text);   // first record = header
//   const std::string* v = t->Field(row, "Calculator ID");
//
// Errors (ParseError) name the line and say what is wrong: an unterminated
// quoted field (with the line it opened on), a character after a closing
// quote, a quote inside an unquoted field, a record whose field count differs
// from the header's. Pure functions; no state, thread-compatible.
#ifndef MEDREACT_EVAL_CSV_H_
#define MEDREACT_EVAL_CSV_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::eval {

struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;  // 1-based line of the record's first character
};

struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRecord> rows;  // without the header

  // Column index of `name` in the header, or -1.
  int Column(std::string_view name) const;
  // The field of `row` under column `name`; nullptr when there is no such column.
  const std::string* Field(const CsvRecord& row, std::string_view name) const;
};

// Splits `text` into records. A trailing newline does not make an empty
// record; blank lines between records are skipped. A UTF-8 byte order mark
// at the start is ignored.
Result<std::vector<CsvRecord>> ParseCsvRecords(std::string_view text);

// ParseCsvRecords plus a header: the first record names the columns and every
// further record must have as many fields. InvalidArgument on an empty file.
Result<CsvTable> ParseCsv(std::string_view text);

}  // namespace medreact::eval

#endif  // MEDREACT_EVAL_CSV_H_
