// Growth tables: CSV parsing, the catalog of files, lazy loading and lookup.
//
// Table choice (the catalog below), with its reasons:
//   CDC weight-for-age: wtageinf.csv (0-36 months) below 24 months, wtage.csv
//     (2-20 years) from 24 months: CDC and AAP recommend the 2-20 year charts
//     from age 2 (Grummer-Strawn LM et al., MMWR Recomm Rep 2010;59(RR-9)).
//   CDC length-for-age is the infant recumbent-length file, height-for-age the
//     2-20 year stature file; their ages overlap (24-35.5 months) and the
//     indicator, i.e. how the child was measured, picks the file.
//   WHO 0-5 years: the expanded daily tables (day 0-1856); from 61 months the
//     WHO 2007 reference (5-19 years, monthly), which was built to join the
//     standards at 61 months (de Onis et al., Bull WHO 2007;85:660-7). Ages
//     between day 1856 and 61 months (1856.6875 days) read day 1856.
//   WHO length and height share the lhfa file (length to day 730, height from
//     day 731); the 0.7 cm position correction is the pack's business.
// Interpolation is linear in age or length for each of L, M and S.
#include "tools/growth/growth_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "core/data_dir.h"

namespace medreact {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Citations for the result's "citation" field.
constexpr const char* kCdcInfantCitation =
    "CDC 2000 growth charts, birth to 36 months (Kuczmarski RJ et al. 2000 CDC Growth Charts for the United "
    "States: methods and development. Vital Health Stat 11(246), 2002); CDC NCHS z-score data files";
constexpr const char* kCdcChildCitation =
    "CDC 2000 growth charts, 2 to 20 years (Kuczmarski RJ et al. 2000 CDC Growth Charts for the United States: "
    "methods and development. Vital Health Stat 11(246), 2002); CDC NCHS z-score data files";
constexpr const char* kWho2006Citation =
    "WHO Child Growth Standards 2006 (WHO Multicentre Growth Reference Study Group. WHO Child Growth Standards: "
    "length/height-for-age, weight-for-age, weight-for-length, weight-for-height and body mass index-for-age: "
    "methods and development. Geneva: WHO, 2006), expanded daily tables";
constexpr const char* kWho2006LengthCitation =
    "WHO Child Growth Standards 2006 (WHO Multicentre Growth Reference Study Group. WHO Child Growth Standards: "
    "length/height-for-age, weight-for-age, weight-for-length, weight-for-height and body mass index-for-age: "
    "methods and development. Geneva: WHO, 2006)";
constexpr const char* kWho2006HeadCitation =
    "WHO Child Growth Standards (WHO Multicentre Growth Reference Study Group. WHO Child Growth Standards: head "
    "circumference-for-age, arm circumference-for-age, triceps skinfold-for-age and subscapular "
    "skinfold-for-age: methods and development. Geneva: WHO, 2007), expanded daily tables";
constexpr const char* kWho2007Citation =
    "WHO Growth Reference 2007, 5-19 years (de Onis M et al. Development of a WHO growth reference for "
    "school-aged children and adolescents. Bull World Health Organ 2007;85:660-7)";

constexpr double kWho2006AgeClamp = 61 * kDaysPerMonth;  // 1856.6875 days
constexpr double kWhoHeightFromDay = 731;                // WHO 0-5 y: length to day 730, height from 731

using enum GrowthReference;
using enum GrowthIndicator;
using enum GrowthAxis;

const std::vector<GrowthTableSpec> kCatalog = {
    // reference, indicator, file, axis, select below (months), clamp up to, step at, restricted tails, citation
    {kCdc, kWeightForAge, "growth/cdc/wtageinf.csv", kAgeMonths, 24, 0, 0, false, kCdcInfantCitation},
    {kCdc, kWeightForAge, "growth/cdc/wtage.csv", kAgeMonths, kNever, 0, 0, false, kCdcChildCitation},
    {kCdc, kLengthForAge, "growth/cdc/lenageinf.csv", kAgeMonths, kNever, 0, 0, false, kCdcInfantCitation},
    {kCdc, kHeightForAge, "growth/cdc/statage.csv", kAgeMonths, kNever, 0, 0, false, kCdcChildCitation},
    {kCdc, kBmiForAge, "growth/cdc/bmiagerev.csv", kAgeMonths, kNever, 0, 0, false, kCdcChildCitation},
    {kCdc, kHeadCircumferenceForAge, "growth/cdc/hcageinf.csv", kAgeMonths, kNever, 0, 0, false,
     kCdcInfantCitation},
    {kCdc, kWeightForLength, "growth/cdc/wtleninf.csv", kLengthCm, kNever, 0, 0, false, kCdcInfantCitation},
    {kCdc, kWeightForHeight, "growth/cdc/wtstat.csv", kLengthCm, kNever, 0, 0, false, kCdcChildCitation},
    {kWho, kWeightForAge, "growth/who/who2006_wfa_{sex}_0-5y_daily.csv", kAgeDays, 61, kWho2006AgeClamp, 0, true,
     kWho2006Citation},
    {kWho, kWeightForAge, "growth/who/who2007_wfa_{sex}_5-10y_monthly.csv", kAgeMonths, kNever, 0, 0, true,
     kWho2007Citation},
    {kWho, kLengthForAge, "growth/who/who2006_lhfa_{sex}_0-5y_daily.csv", kAgeDays, 61, kWho2006AgeClamp,
     kWhoHeightFromDay, false, kWho2006Citation},
    {kWho, kHeightForAge, "growth/who/who2006_lhfa_{sex}_0-5y_daily.csv", kAgeDays, 61, kWho2006AgeClamp,
     kWhoHeightFromDay, false, kWho2006Citation},
    {kWho, kHeightForAge, "growth/who/who2007_hfa_{sex}_5-19y_monthly.csv", kAgeMonths, kNever, 0, 0, false,
     kWho2007Citation},
    {kWho, kBmiForAge, "growth/who/who2006_bfa_{sex}_0-5y_daily.csv", kAgeDays, 61, kWho2006AgeClamp,
     kWhoHeightFromDay, true, kWho2006Citation},
    {kWho, kBmiForAge, "growth/who/who2007_bfa_{sex}_5-19y_monthly.csv", kAgeMonths, kNever, 0, 0, true,
     kWho2007Citation},
    {kWho, kHeadCircumferenceForAge, "growth/who/who2006_hcfa_{sex}_0-5y_daily.csv", kAgeDays, 61,
     kWho2006AgeClamp, 0, false, kWho2006HeadCitation},
    {kWho, kWeightForLength, "growth/who/who2006_wfl_{sex}_45-110cm.csv", kLengthCm, kNever, 0, 0, true,
     kWho2006LengthCitation},
    {kWho, kWeightForHeight, "growth/who/who2006_wfh_{sex}_65-120cm.csv", kLengthCm, kNever, 0, 0, true,
     kWho2006LengthCitation},
};

struct IndicatorName {
  GrowthIndicator indicator;
  const char* name;
  const char* unit;
};

constexpr IndicatorName kIndicators[] = {
    {kWeightForAge, "weight_for_age", "kg"},
    {kLengthForAge, "length_for_age", "cm"},
    {kHeightForAge, "height_for_age", "cm"},
    {kBmiForAge, "bmi_for_age", "kg/m2"},
    {kHeadCircumferenceForAge, "head_circumference_for_age", "cm"},
    {kWeightForLength, "weight_for_length", "kg"},
    {kWeightForHeight, "weight_for_height", "kg"},
};

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

const char* AxisUnit(GrowthAxis axis) {
  switch (axis) {
    case kAgeMonths: return "months";
    case kAgeDays: return "days";
    case kLengthCm: return "cm";
  }
  return "";
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Length and height are the same measurement taken lying or standing.
std::optional<GrowthIndicator> SiblingIndicator(GrowthIndicator indicator) {
  switch (indicator) {
    case kLengthForAge: return kHeightForAge;
    case kHeightForAge: return kLengthForAge;
    case kWeightForLength: return kWeightForHeight;
    case kWeightForHeight: return kWeightForLength;
    default: return std::nullopt;
  }
}

std::vector<std::string_view> SplitCells(std::string_view line) {
  std::vector<std::string_view> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    std::string_view cell = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '"')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '"')) cell.remove_suffix(1);
    cells.push_back(cell);
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

std::optional<double> ParseNumber(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The z a published column stands for: "P3" → Phi^-1(0.03), "SD2neg" → -2.
std::optional<double> PublishedZ(std::string_view column) {
  if (column.size() > 1 && column[0] == 'P') {
    auto percent = ParseNumber(column.substr(1));
    if (percent && *percent > 0 && *percent < 100) return NormalQuantile(*percent / 100);
    return std::nullopt;
  }
  if (column.size() > 2 && column.substr(0, 2) == "SD") {
    std::string_view rest = column.substr(2);
    double sign = 1;
    if (rest.size() > 3 && rest.substr(rest.size() - 3) == "neg") {
      sign = -1;
      rest.remove_suffix(3);
    }
    auto k = ParseNumber(rest);
    if (k) return sign * *k;
  }
  return std::nullopt;
}

struct Columns {
  int sex = -1;
  int x = -1;
  int l = -1;
  int m = -1;
  int s = -1;
  std::vector<int> published;
};

Columns FindColumns(const std::vector<std::string_view>& header) {
  Columns columns;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string_view name = header[i];
    if (name == "Sex") {
      columns.sex = i;
    } else if (name == "Agemos" || name == "Day" || name == "Month" || name == "Length" || name == "Height") {
      columns.x = i;
    } else if (name == "L") {
      columns.l = i;
    } else if (name == "M") {
      columns.m = i;
    } else if (name == "S") {
      columns.s = i;
    } else if (PublishedZ(name)) {
      columns.published.push_back(i);
    }
  }
  return columns;
}

std::string ReadWholeFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *ok = false;
    return {};
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *ok = static_cast<bool>(in) || in.eof();
  return buffer.str();
}

}  // namespace

const char* GrowthReferenceName(GrowthReference reference) { return reference == kCdc ? "cdc" : "who"; }

const char* GrowthIndicatorName(GrowthIndicator indicator) {
  for (const auto& entry : kIndicators) {
    if (entry.indicator == indicator) return entry.name;
  }
  return "";
}

const char* GrowthSexName(GrowthSex sex) { return sex == GrowthSex::kMale ? "male" : "female"; }

const char* GrowthValueUnit(GrowthIndicator indicator) {
  for (const auto& entry : kIndicators) {
    if (entry.indicator == indicator) return entry.unit;
  }
  return "";
}

std::optional<GrowthReference> ParseGrowthReference(std::string_view name) {
  if (name == "cdc") return kCdc;
  if (name == "who") return kWho;
  return std::nullopt;
}

std::optional<GrowthIndicator> ParseGrowthIndicator(std::string_view name) {
  for (const auto& entry : kIndicators) {
    if (name == entry.name) return entry.indicator;
  }
  return std::nullopt;
}

std::optional<GrowthSex> ParseGrowthSex(std::string_view name) {
  if (name == "male") return GrowthSex::kMale;
  if (name == "female") return GrowthSex::kFemale;
  return std::nullopt;
}

const std::vector<GrowthIndicator>& AllGrowthIndicators() {
  static const std::vector<GrowthIndicator> all = [] {
    std::vector<GrowthIndicator> out;
    for (const auto& entry : kIndicators) out.push_back(entry.indicator);
    return out;
  }();
  return all;
}

bool IsAgeIndicator(GrowthIndicator indicator) {
  return indicator != kWeightForLength && indicator != kWeightForHeight;
}

Lms GrowthTable::Interpolate(double x) const {
  auto upper = std::upper_bound(rows.begin(), rows.end(), x,
                                [](double value, const GrowthRow& row) { return value < row.x; });
  if (upper == rows.end()) return rows.back().lms;
  if (upper == rows.begin()) return rows.front().lms;
  const GrowthRow& hi = *upper;
  const GrowthRow& lo = *(upper - 1);
  if (x == lo.x) return lo.lms;
  const double t = (x - lo.x) / (hi.x - lo.x);
  auto lerp = [t](double a, double b) { return a + t * (b - a); };
  return {lerp(lo.lms.l, hi.lms.l), lerp(lo.lms.m, hi.lms.m), lerp(lo.lms.s, hi.lms.s)};
}

Result<std::vector<GrowthTable>> ParseGrowthCsv(std::string_view text, const std::string& file, GrowthAxis axis,
                                                std::optional<GrowthSex> sex) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::string_view> header;
  Columns columns;
  std::map<GrowthSex, GrowthTable> tables;
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<std::string_view> cells = SplitCells(line);
    auto where = [&] { return file + " line " + std::to_string(line_number); };
    if (header.empty()) {
      header = cells;
      columns = FindColumns(header);
      if (columns.x < 0 || columns.l < 0 || columns.m < 0 || columns.s < 0) {
        return Status::ParseError(where() + ": the header needs an age or length column (Agemos, Day, Month, "
                                  "Length or Height) and L, M, S; found '" + std::string(line.substr(0, 120)) + "'");
      }
      if (columns.sex < 0 && !sex) return Status::ParseError(file + ": no Sex column and no sex given");
      continue;
    }
    if (cells[0] == header[0]) continue;  // a repeated header row (CDC, where Sex switches)
    if (cells.size() != header.size()) {
      return Status::ParseError(where() + ": " + std::to_string(cells.size()) + " cells, the header has " +
                                std::to_string(header.size()));
    }
    auto number = [&](int index) -> Result<double> {
      auto value = ParseNumber(cells[index]);
      if (!value) {
        return Status::ParseError(where() + ", column " + std::string(header[index]) + ": '" +
                                  std::string(cells[index].substr(0, 40)) + "' is not a number");
      }
      return *value;
    };
    GrowthSex row_sex = sex.value_or(GrowthSex::kMale);
    if (columns.sex >= 0) {
      if (cells[columns.sex] == "1") {
        row_sex = GrowthSex::kMale;
      } else if (cells[columns.sex] == "2") {
        row_sex = GrowthSex::kFemale;
      } else {
        return Status::ParseError(where() + ": Sex is '" + std::string(cells[columns.sex].substr(0, 20)) +
                                  "', expected 1 (male) or 2 (female)");
      }
    }
    GrowthRow row;
    Result<double> x = number(columns.x), l = number(columns.l), m = number(columns.m), s = number(columns.s);
    for (const Result<double>* value : {&x, &l, &m, &s}) {
      if (!value->ok()) return value->status();
    }
    row.x = *x;
    row.lms = {*l, *m, *s};
    if (!(row.lms.m > 0) || !(row.lms.s > 0)) {
      return Status::ParseError(where() + ": M and S must be positive (M=" + FormatNumber(row.lms.m) +
                                ", S=" + FormatNumber(row.lms.s) + ")");
    }
    for (int index : columns.published) {
      Result<double> value = number(index);
      if (!value.ok()) return value.status();
      row.published.push_back(*value);
    }
    GrowthTable& table = tables[row_sex];
    if (!table.rows.empty() && !(row.x > table.rows.back().x)) {
      return Status::ParseError(where() + ": " + std::string(header[columns.x]) + " " + FormatNumber(row.x) +
                                " does not increase (previous row: " + FormatNumber(table.rows.back().x) + ")");
    }
    table.rows.push_back(std::move(row));
  }
  if (header.empty()) return Status::ParseError(file + ": the file is empty");
  std::vector<GrowthTable> out;
  for (auto& [table_sex, table] : tables) {
    if (table.rows.size() < 2) {
      return Status::ParseError(file + ": " + GrowthSexName(table_sex) + " has " +
                                std::to_string(table.rows.size()) + " row(s); a table needs at least 2");
    }
    table.file = file;
    table.sex = table_sex;
    table.axis = axis;
    for (int index : columns.published) {
      table.published_columns.emplace_back(header[index]);
      table.published_z.push_back(*PublishedZ(header[index]));
    }
    out.push_back(std::move(table));
  }
  if (out.empty()) return Status::ParseError(file + ": the file has a header but no rows");
  return out;
}

const std::vector<GrowthTableSpec>& GrowthTableCatalog() { return kCatalog; }

std::string GrowthTableFile(const GrowthTableSpec& spec, GrowthSex sex) {
  std::string file = spec.file;
  if (const size_t at = file.find("{sex}"); at != std::string::npos) {
    file.replace(at, 5, sex == GrowthSex::kMale ? "boys" : "girls");
  }
  return file;
}

std::vector<std::string> AllGrowthTableFiles() {
  std::vector<std::string> files;
  for (const GrowthTableSpec& spec : kCatalog) {
    for (GrowthSex sex : {GrowthSex::kMale, GrowthSex::kFemale}) {
      std::string file = GrowthTableFile(spec, sex);
      if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(std::move(file));
    }
  }
  return files;
}

Result<std::shared_ptr<const std::vector<GrowthTable>>> LoadGrowthFile(const std::string& file) {
  using Loaded = Result<std::shared_ptr<const std::vector<GrowthTable>>>;
  static std::mutex mutex;
  static std::map<std::string, Loaded> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(file); it != cache.end()) return it->second;

  auto load = [&]() -> Loaded {
    const GrowthTableSpec* spec = nullptr;
    std::optional<GrowthSex> sex;
    for (const GrowthTableSpec& candidate : kCatalog) {
      for (GrowthSex candidate_sex : {GrowthSex::kMale, GrowthSex::kFemale}) {
        if (GrowthTableFile(candidate, candidate_sex) == file) {
          spec = &candidate;
          if (std::string(candidate.file).find("{sex}") != std::string::npos) sex = candidate_sex;
        }
      }
    }
    if (spec == nullptr) return Status::NotFound("growth table " + file + " is not in the growth table catalog");
    const std::string path = DataPath(file);
    bool ok = false;
    const std::string text = ReadWholeFile(path, &ok);
    if (!ok) {
      return Status::NotFound("growth table " + file + " could not be read from " + path +
                              " (set MEDREACT_DATA_DIR to the data/ directory that holds growth/)");
    }
    auto tables = ParseGrowthCsv(text, file, spec->axis, sex);
    if (!tables.ok()) return tables.status();
    return std::make_shared<const std::vector<GrowthTable>>(std::move(*tables));
  };
  return cache.emplace(file, load()).first->second;
}

std::string DescribeGrowthTables(GrowthReference reference, GrowthIndicator indicator, GrowthSex sex) {
  std::string out;
  for (const GrowthTableSpec& spec : kCatalog) {
    if (spec.reference != reference || spec.indicator != indicator) continue;
    const std::string file = GrowthTableFile(spec, sex);
    if (!out.empty()) out += "; ";
    out += BaseName(file);
    auto loaded = LoadGrowthFile(file);
    if (!loaded.ok()) {
      out += " (unreadable)";
      continue;
    }
    for (const GrowthTable& table : **loaded) {
      if (table.sex != sex) continue;
      out += ' ';
      out += FormatNumber(table.min_x());
      out += '-';
      out += FormatNumber(table.max_x());
      out += ' ';
      out += AxisUnit(spec.axis);
    }
    if (spec.select_below_months != kNever) {
      out += ", used below ";
      out += FormatNumber(spec.select_below_months);
      out += " months";
    }
  }
  return out.empty() ? "none" : out;
}

Result<GrowthLookup> FindGrowthLms(GrowthReference reference, GrowthIndicator indicator, GrowthSex sex,
                                   const GrowthPosition& position) {
  const std::string what = std::string(reference == kCdc ? "CDC" : "WHO") + " " + GrowthIndicatorName(indicator);
  // What exists: this indicator, its sibling (length/height) and the other reference.
  auto available = [&] {
    const GrowthReference other = reference == kCdc ? kWho : kCdc;
    std::string out = " Tables for " + what + " (" + GrowthSexName(sex) + "): " +
                      DescribeGrowthTables(reference, indicator, sex) + ".";
    if (auto sibling = SiblingIndicator(indicator)) {
      out += std::string(" ") + (reference == kCdc ? "CDC " : "WHO ") + GrowthIndicatorName(*sibling) + ": " +
             DescribeGrowthTables(reference, *sibling, sex) + ".";
    }
    out += std::string(" ") + (other == kCdc ? "CDC " : "WHO ") + GrowthIndicatorName(indicator) + ": " +
           DescribeGrowthTables(other, indicator, sex) + ".";
    return out;
  };
  const bool by_age = IsAgeIndicator(indicator);
  if (by_age && (!position.age_months || !position.age_days)) {
    return Status::InvalidArgument(what + " needs the age");
  }
  if (!by_age && !position.length_cm) return Status::InvalidArgument(what + " needs the length or height in cm");

  const GrowthTableSpec* chosen = nullptr;
  for (const GrowthTableSpec& spec : kCatalog) {
    if (spec.reference != reference || spec.indicator != indicator) continue;
    if (!by_age || *position.age_months < spec.select_below_months) {
      chosen = &spec;
      break;
    }
  }
  const std::string where = by_age ? "age " + FormatNumber(*position.age_months) + " months (" +
                                         FormatNumber(*position.age_days) + " days)"
                                   : FormatNumber(*position.length_cm) + " cm";
  if (chosen == nullptr) {
    return Status::InvalidArgument("no " + what + " table covers " + where + "." + available());
  }
  const std::string file = GrowthTableFile(*chosen, sex);
  auto loaded = LoadGrowthFile(file);
  if (!loaded.ok()) return loaded.status();
  const GrowthTable* table = nullptr;
  for (const GrowthTable& candidate : **loaded) {
    if (candidate.sex == sex) table = &candidate;
  }
  if (table == nullptr) return Status::ParseError("growth table " + file + " has no rows for " + GrowthSexName(sex));

  double x = 0;
  switch (chosen->axis) {
    case kAgeMonths: x = *position.age_months; break;
    case kAgeDays: x = *position.age_days; break;
    case kLengthCm: x = *position.length_cm; break;
  }
  if (x > table->max_x() && x <= chosen->clamp_up_to) x = table->max_x();
  if (chosen->step_at > 0 && x < chosen->step_at && x > chosen->step_at - 1) x = chosen->step_at - 1;
  if (x < table->min_x() || x > table->max_x()) {
    return Status::InvalidArgument(where + " is outside " + BaseName(file) + " (" + FormatNumber(table->min_x()) +
                                   "-" + FormatNumber(table->max_x()) + " " + AxisUnit(chosen->axis) + ")." +
                                   available());
  }
  return GrowthLookup{chosen, *loaded, table, x, table->Interpolate(x)};
}

}  // namespace medreact
