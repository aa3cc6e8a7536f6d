#include "eval/csv.h"

namespace medreact::eval {

int CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

const std::string* CsvTable::Field(const CsvRecord& row, std::string_view name) const {
  const int c = Column(name);
  if (c < 0 || static_cast<size_t>(c) >= row.fields.size()) return nullptr;
  return &row.fields[static_cast<size_t>(c)];
}

Result<std::vector<CsvRecord>> ParseCsvRecords(std::string_view text) {
  std::vector<CsvRecord> records;
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  int line = 1;
  const size_t n = text.size();
  auto at_record_end = [&](size_t pos) { return pos >= n || text[pos] == '\n' || text[pos] == '\r'; };
  // Consumes one line break (LF, CRLF or a lone CR) at `pos`.
  auto skip_break = [&](size_t& pos) {
    if (pos < n && text[pos] == '\r') ++pos;
    if (pos < n && text[pos] == '\n') ++pos;
    ++line;
  };
  while (i < n) {
    if (text[i] == '\n' || text[i] == '\r') {  // blank line
      skip_break(i);
      continue;
    }
    CsvRecord record;
    record.line = line;
    while (true) {
      std::string field;
      if (i < n && text[i] == '"') {
        const int opened = line;
        ++i;
        bool closed = false;
        while (i < n) {
          const char c = text[i];
          if (c == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (c == '\n') ++line;
          if (c == '\r' && !(i + 1 < n && text[i + 1] == '\n')) ++line;  // lone CR
          field += c;
          ++i;
        }
        if (!closed) {
          return Status::ParseError("line " + std::to_string(opened) +
                                    ": quoted field never closed (missing '\"' before the end of the file)");
        }
        if (!(at_record_end(i) || text[i] == ',')) {
          return Status::ParseError("line " + std::to_string(line) + ": unexpected character '" +
                                    std::string(1, text[i]) +
                                    "' after a closing quote (a quote inside a quoted field must be doubled: \"\")");
        }
      } else {
        while (!at_record_end(i) && text[i] != ',') {
          if (text[i] == '"') {
            return Status::ParseError("line " + std::to_string(line) +
                                      ": quote inside an unquoted field (quote the whole field and double the quote)");
          }
          field += text[i++];
        }
      }
      record.fields.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      break;  // end of record
    }
    records.push_back(std::move(record));
    if (i < n) skip_break(i);
  }
  return records;
}

Result<CsvTable> ParseCsv(std::string_view text) {
  Result<std::vector<CsvRecord>> records = ParseCsvRecords(text);
  if (!records.ok()) return records.status();
  if (records->empty()) return Status::InvalidArgument("empty CSV: no header line");
  CsvTable table;
  table.header = std::move(records->front().fields);
  for (size_t r = 1; r < records->size(); ++r) {
    CsvRecord& rec = (*records)[r];
    if (rec.fields.size() != table.header.size()) {
      return Status::ParseError("line " + std::to_string(rec.line) + ": " + std::to_string(rec.fields.size()) +
                                " fields, the header has " + std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(rec));
  }
  return table;
}

}  // namespace medreact::eval
