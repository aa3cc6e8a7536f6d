// Growth reference tables: the CDC 2000 and WHO 2006/2007 LMS files shipped in
// data/growth/, which file serves which (reference, indicator, sex, age or
// length), and L, M, S interpolated between the files' rows.
//
// The catalog (GrowthTableCatalog) is a fixed list of GrowthTableSpec, one per
// (reference, indicator, age band); FindGrowthLms picks the spec, loads its
// file (once per process, thread-safe; a failed load is remembered too) and
// interpolates linearly in age or length between the two bracketing rows.
// Every failure is a Status whose message names the file or the ranges that do
// exist, ready to show the model.
//
// Ages: a month is 30.4375 days (365.25 / 12), the convention of both the CDC
// SAS program and WHO Anthro. Files: see data/growth/NOTICE.
#ifndef MEDREACT_TOOLS_GROWTH_GROWTH_TABLES_H_
#define MEDREACT_TOOLS_GROWTH_GROWTH_TABLES_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"
#include "tools/growth/lms.h"

namespace medreact {

enum class GrowthReference { kCdc, kWho };

enum class GrowthIndicator {
  kWeightForAge,
  kLengthForAge,  // recumbent length
  kHeightForAge,  // standing height (stature)
  kBmiForAge,
  kHeadCircumferenceForAge,
  kWeightForLength,
  kWeightForHeight,
};

enum class GrowthSex { kMale, kFemale };

// What a table's first column measures.
enum class GrowthAxis { kAgeMonths, kAgeDays, kLengthCm };

inline constexpr double kDaysPerMonth = 30.4375;

// Names as the tools spell them: "cdc", "weight_for_age", "male", ...
const char* GrowthReferenceName(GrowthReference reference);
const char* GrowthIndicatorName(GrowthIndicator indicator);
const char* GrowthSexName(GrowthSex sex);
std::optional<GrowthReference> ParseGrowthReference(std::string_view name);
std::optional<GrowthIndicator> ParseGrowthIndicator(std::string_view name);
std::optional<GrowthSex> ParseGrowthSex(std::string_view name);
const std::vector<GrowthIndicator>& AllGrowthIndicators();

// True for the -for-age indicators (they need an age); false for
// weight-for-length/height (they need a length or height).
bool IsAgeIndicator(GrowthIndicator indicator);

// The unit of the measured value: "kg", "cm" or "kg/m2".
const char* GrowthValueUnit(GrowthIndicator indicator);

// One row of a table: where it sits on the axis, its LMS parameters and its
// published percentile or SD columns (in the order of
// GrowthTable::published_columns).
struct GrowthRow {
  double x = 0;
  Lms lms;
  std::vector<double> published;
};

// One sex's rows of one file, ascending in x (at least two rows).
struct GrowthTable {
  std::string file;  // relative to the data directory, e.g. "growth/cdc/wtage.csv"
  GrowthSex sex = GrowthSex::kMale;
  GrowthAxis axis = GrowthAxis::kAgeMonths;
  std::vector<std::string> published_columns;  // "P3" ... "P97" (CDC) or "SD4neg" ... "SD4" (WHO)
  std::vector<double> published_z;             // the z each published column stands for
  std::vector<GrowthRow> rows;

  double min_x() const { return rows.front().x; }
  double max_x() const { return rows.back().x; }
  // L, M, S linearly interpolated at x. REQUIRES: min_x() <= x <= max_x().
  Lms Interpolate(double x) const;
};

// Parses one CSV file's text into one table per sex. Tolerates CRLF line
// endings, a UTF-8 BOM, blank lines and repeated header rows (CDC repeats the
// header where Sex switches). `sex` is the sex of a file without a Sex column
// (WHO's files are one sex each); a Sex column, when present, is 1 = male,
// 2 = female. Published columns are those named P<number> (percentile) or
// SD<k>, SD<k>neg; others (CDC's Pub*/Diff*, WHO's StDev) are ignored.
// `file` names the file in error messages.
Result<std::vector<GrowthTable>> ParseGrowthCsv(std::string_view text, const std::string& file, GrowthAxis axis,
                                                std::optional<GrowthSex> sex);

// One entry of the catalog: a file serving one indicator of one reference in
// one age band (or length range).
struct GrowthTableSpec {
  GrowthReference reference;
  GrowthIndicator indicator;
  const char* file;              // relative to the data dir; "{sex}" stands for boys/girls (WHO)
  GrowthAxis axis;
  double select_below_months;    // chosen for ages below this; the first matching spec wins
  double clamp_up_to;            // ages in (max_x, clamp_up_to] read the last row (WHO 2006 → 2007 gap)
  double step_at;                // WHO 0-5 y length/height and BMI: rows before this day are recumbent
                                 // length, rows from it standing height, so ages in (step_at - 1, step_at)
                                 // read the row at step_at - 1 instead of mixing the two (0: none)
  bool restricted_tails;         // WHO restricted application of LMS beyond |z| > 3
  const char* citation;
};

// Every spec, grouped by reference and indicator, age bands ascending.
const std::vector<GrowthTableSpec>& GrowthTableCatalog();

// The spec's file name for a sex, relative to the data dir.
std::string GrowthTableFile(const GrowthTableSpec& spec, GrowthSex sex);

// Every distinct file the catalog names (each sex's file for WHO), relative
// to the data dir.
std::vector<std::string> AllGrowthTableFiles();

// The tables of one file (relative to the data dir), parsed on first use and
// cached for the life of the process. Thread-safe. A missing or malformed
// file → NotFound/ParseError naming the file and where it was looked for.
Result<std::shared_ptr<const std::vector<GrowthTable>>> LoadGrowthFile(const std::string& file);

// A measurement's position: an age (months and days, one derived from the
// other) or a length/height in cm.
struct GrowthPosition {
  std::optional<double> age_months;
  std::optional<double> age_days;
  std::optional<double> length_cm;
};

// The LMS parameters for one measurement.
struct GrowthLookup {
  const GrowthTableSpec* spec = nullptr;
  std::shared_ptr<const std::vector<GrowthTable>> owner;  // keeps `table` alive
  const GrowthTable* table = nullptr;
  double x = 0;  // where the table was read, in its axis unit (after clamping)
  Lms lms;
};

// Picks the table for (reference, indicator, sex, position) and interpolates.
// For -for-age indicators `position` must carry both age_months and age_days
// (consistent); for weight-for-length/height, length_cm. An indicator or age
// without a table, or a position outside the table → InvalidArgument naming
// the tables and ranges that exist.
Result<GrowthLookup> FindGrowthLms(GrowthReference reference, GrowthIndicator indicator, GrowthSex sex,
                                   const GrowthPosition& position);

// "who2006_wfa_boys_0-5y_daily.csv (0-1856 days)": what exists for a
// reference and indicator, for error messages.
std::string DescribeGrowthTables(GrowthReference reference, GrowthIndicator indicator, GrowthSex sex);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_GROWTH_GROWTH_TABLES_H_
