#include "tools/calc/calculator.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace medreact::calc {
namespace {

// "YYYY-MM-DD" or "MM/DD/YYYY" → days since epoch.
std::optional<std::chrono::sys_days> ParseDate(const std::string& text) {
  int y = 0, m = 0, d = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 ||
      std::sscanf(text.c_str(), "%2d/%2d/%4d%c", &m, &d, &y, &tail) == 3) {
    const std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(m)),
                                          std::chrono::day(static_cast<unsigned>(d))};
    if (ymd.ok()) return std::chrono::sys_days(ymd);
  }
  return std::nullopt;
}

std::string UnitNote(const CalcInput& input) {
  if (input.dimension == Dimension::kNone) return "";
  std::string accepted;
  for (const std::string& u : AcceptedUnits(input.dimension)) accepted += (accepted.empty() ? "" : ", ") + u;
  return " Unit: " + CanonicalUnit(input.dimension) + " (a bare number), or {\"value\": x, \"unit\": u} with u one of " +
         accepted + ".";
}

// A JSON value → (number, unit) for a measurement argument.
Status ReadMeasurement(const Json& v, double* number, std::string* unit) {
  if (v.is_number()) {
    *number = v.get<double>();
    return Status::OK();
  }
  if (v.is_object() && v.contains("value") && v["value"].is_number()) {
    *number = v["value"].get<double>();
    if (v.contains("unit") && v["unit"].is_string()) *unit = v["unit"].get<std::string>();
    return Status::OK();
  }
  if (v.is_array() && !v.empty() && v[0].is_number()) {  // [value, "unit"], as notes' entity lists write it
    *number = v[0].get<double>();
    if (v.size() > 1 && v[1].is_string()) *unit = v[1].get<std::string>();
    return Status::OK();
  }
  return Status::InvalidArgument("expected a number or {\"value\": number, \"unit\": string}, got " + DumpJson(v));
}

}  // namespace

double CalcArgs::Number(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !it->is_number()) throw std::logic_error("calculator input '" + name + "' missing");
  return it->get<double>();
}

int CalcArgs::Integer(const std::string& name) const { return static_cast<int>(std::lround(Number(name))); }

bool CalcArgs::Flag(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->is_boolean() && it->get<bool>();
}

const std::string& CalcArgs::Choice(const std::string& name) const {
  static const std::string kEmpty;
  auto it = values_.find(name);
  if (it == values_.end() || !it->is_string()) return kEmpty;
  return it->get_ref<const std::string&>();
}

std::chrono::sys_days CalcArgs::Date(const std::string& name) const {
  auto parsed = ParseDate(Choice(name));
  if (!parsed) throw std::logic_error("calculator input '" + name + "' is not a date");
  return *parsed;
}

const std::vector<Calculator>& AllCalculators() {
  static const std::vector<Calculator> all = [] {
    std::vector<Calculator> out;
    AddRenalCalculators(out);
    AddBodyCalculators(out);
    AddChemistryCalculators(out);
    AddDateDoseCalculators(out);
    AddRiskScoreCalculators(out);
    AddAcuteScoreCalculators(out);
    AddSeverityScoreCalculators(out);
    return out;
  }();
  return all;
}

const Calculator* FindCalculator(const std::string& name) {
  for (const Calculator& c : AllCalculators()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Calculator* FindCalculatorByMedcalcId(int id) {
  for (const Calculator& c : AllCalculators()) {
    if (c.medcalc_id == id && id != 0) return &c;
  }
  return nullptr;
}

Json CalculatorSchema(const Calculator& calculator) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const CalcInput& in : calculator.inputs) {
    Json p;
    std::string description = in.description;
    switch (in.type) {
      case InputType::kNumber:
        if (in.dimension == Dimension::kNone) {
          p = {{"type", "number"}};
        } else {
          p = {{"anyOf", Json::array({{{"type", "number"}},
                                      {{"type", "object"},
                                       {"properties", {{"value", {{"type", "number"}}}, {"unit", {{"type", "string"}}}}},
                                       {"required", {"value"}}}})}};
          description += UnitNote(in);
        }
        break;
      case InputType::kInteger:
        p = {{"type", "integer"}};
        break;
      case InputType::kBoolean:
        p = {{"type", "boolean"}};
        description += " Default: false (absent).";
        break;
      case InputType::kChoice:
        p = {{"type", "string"}, {"enum", in.choices}};
        break;
      case InputType::kDate:
        p = {{"type", "string"}};
        description += " Format: YYYY-MM-DD.";
        break;
      case InputType::kSex:
        p = {{"type", "string"}, {"enum", {"male", "female"}}};
        break;
    }
    p["description"] = description;
    properties[in.name] = p;
    if (in.required && in.type != InputType::kBoolean) required.push_back(in.name);
  }
  return {{"type", "object"}, {"properties", properties}, {"required", required}};
}

Result<CalcArgs> PrepareArgs(const Calculator& calculator, const Json& args) {
  if (!args.is_object()) return Status::InvalidArgument("arguments must be a JSON object");
  CalcArgs out;
  std::vector<std::string> missing;
  std::vector<std::string> problems;
  for (const CalcInput& in : calculator.inputs) {
    auto it = args.find(in.name);
    if (it == args.end() || it->is_null()) {
      if (in.required && in.type != InputType::kBoolean) missing.push_back(in.name);
      continue;
    }
    const Json& v = *it;
    switch (in.type) {
      case InputType::kNumber:
      case InputType::kInteger: {
        double number = 0;
        std::string unit;
        if (Status s = ReadMeasurement(v, &number, &unit); !s.ok()) {
          problems.push_back(in.name + ": " + s.message());
          break;
        }
        Result<double> canonical = ToCanonical(in.dimension, number, unit);
        if (!canonical.ok()) {
          problems.push_back(in.name + ": " + canonical.status().message());
          break;
        }
        if (!std::isfinite(*canonical)) {
          problems.push_back(in.name + ": not a finite number");
          break;
        }
        if ((in.min && *canonical < *in.min) || (in.max && *canonical > *in.max)) {
          problems.push_back(in.name + ": " + Num(*canonical, 3) + " " + CanonicalUnit(in.dimension) +
                             " is outside the plausible range " + (in.min ? Num(*in.min, 3) : "-inf") + " to " +
                             (in.max ? Num(*in.max, 3) : "inf") + " (check the unit)");
          break;
        }
        out.mutable_values()[in.name] = *canonical;
        break;
      }
      case InputType::kBoolean:
        if (v.is_boolean()) {
          out.mutable_values()[in.name] = v.get<bool>();
        } else if (v.is_number()) {
          out.mutable_values()[in.name] = v.get<double>() != 0;
        } else {
          problems.push_back(in.name + ": expected true or false, got " + DumpJson(v));
        }
        break;
      case InputType::kChoice: {
        const std::string choice = v.is_string() ? AsciiLower(Trim(v.get<std::string>())) : "";
        if (std::find(in.choices.begin(), in.choices.end(), choice) == in.choices.end()) {
          std::string list;
          for (const auto& c : in.choices) list += (list.empty() ? "" : ", ") + c;
          problems.push_back(in.name + ": expected one of " + list + ", got " + DumpJson(v));
          break;
        }
        out.mutable_values()[in.name] = choice;
        break;
      }
      case InputType::kSex: {
        const std::string sex = v.is_string() ? AsciiLower(Trim(v.get<std::string>())) : "";
        if (sex == "male" || sex == "m" || sex == "man") {
          out.mutable_values()[in.name] = "male";
        } else if (sex == "female" || sex == "f" || sex == "woman") {
          out.mutable_values()[in.name] = "female";
        } else {
          problems.push_back(in.name + ": expected \"male\" or \"female\", got " + DumpJson(v));
        }
        break;
      }
      case InputType::kDate: {
        const auto date = v.is_string() ? ParseDate(Trim(v.get<std::string>())) : std::nullopt;
        if (!date) {
          problems.push_back(in.name + ": expected a date YYYY-MM-DD, got " + DumpJson(v));
          break;
        }
        const std::chrono::year_month_day ymd(*date);
        char text[16];
        std::snprintf(text, sizeof(text), "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
        out.mutable_values()[in.name] = std::string(text);
        break;
      }
    }
  }
  std::string error;
  if (!missing.empty()) {
    error = "missing required input" + std::string(missing.size() > 1 ? "s" : "") + ": ";
    for (size_t i = 0; i < missing.size(); ++i) error += (i ? ", " : "") + missing[i];
    error += " (look them up in the record or ask for them)";
  }
  for (const std::string& p : problems) error += (error.empty() ? "" : "; ") + p;
  if (!error.empty()) return Status::InvalidArgument(calculator.name + ": " + error);
  return out;
}

Result<Json> RunCalculator(const Calculator& calculator, const Json& args) {
  Result<CalcArgs> prepared = PrepareArgs(calculator, args);
  if (!prepared.ok()) return prepared.status();
  Result<CalcOutput> computed = Status::Internal("unset");
  try {
    computed = calculator.compute(*prepared);
  } catch (const std::exception& e) {
    return Status::Internal(calculator.name + ": " + e.what());
  }
  if (!computed.ok()) return computed.status().WithContext(calculator.name);
  if (computed->text.empty() && !std::isfinite(computed->value)) {
    return Status::InvalidArgument(calculator.name + ": the inputs give no finite result");
  }
  Json out = {{"calculator", calculator.name}, {"title", calculator.title}};
  if (computed->text.empty()) {
    out["value"] = computed->value;
  } else {
    out["value"] = computed->text;
  }
  out["unit"] = computed->unit;
  out["terms"] = computed->terms;
  out["explanation"] = computed->explanation;
  if (!computed->interpretation.empty()) out["interpretation"] = computed->interpretation;
  out["inputs"] = prepared->values();
  out["citation"] = calculator.citation;
  return out;
}

std::string Num(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, value);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace medreact::calc
