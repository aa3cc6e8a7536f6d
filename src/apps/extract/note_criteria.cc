// Criteria phrases for NoteFacts (note_facts.h): reduced intake and the
// disease behind malnutrition, as clinicians write them. Each family names
// its source:
//   - Intake. ASPEN/AND 2014 (Becker P, et al. J Acad Nutr Diet
//     2014;114:1988-2000, Table 3): intake as a share of estimated energy or
//     protein needs, 51-75 / 26-50 / <= 25 % mild / moderate / severe. GLIM
//     2019 (Cederholm T, et al. Clin Nutr 2019;38:1-9, Table 1): <= 50 % of
//     energy requirement for > 1 week, or any reduction for > 2 weeks. Notes
//     write intake as a share of needs ("~50 % of est. needs"), of the usual
//     intake ("about half of usual") or of meals served ("eating 1/4 of
//     meals", "30% of trays"); the last two are read as the share of needs
//     (a meal plan is the estimated need; the usual intake the baseline GLIM's
//     "any reduction" compares with). NPO with a stated duration is no intake.
//   - Acute disease or injury with inflammation. GLIM 2019 (Cederholm, text
//     on the etiologic criterion): major infection, burns, trauma, closed
//     head injury; surgery, as in the pediatric definition's illness-related
//     malnutrition (Mehta NM, et al. JPEN 2013;37:460-481: "trauma, burns,
//     surgery, infection"). Abbreviations: PNA, CAP/HAP/VAP, POD n, s/p.
//   - Chronic disease with inflammation. GLIM 2019: malignant disease, COPD,
//     congestive heart failure, chronic renal disease, any disease with
//     chronic or recurrent inflammation (Crohn's, ulcerative colitis,
//     rheumatoid arthritis in GLIM's examples). Cancer by site ("breast ca"),
//     histology (squamous cell carcinoma, adenocarcinoma, lymphoma, ...) and
//     abbreviation (NSCLC, HCC, AML, GBM, ...).
// A disease word after a negation ("no", "denies", "r/o", "negative for") or
// a family-history phrase in the same clause is not the patient's.
#include <optional>
#include <regex>
#include <string>

#include "apps/extract/note_text.h"

namespace medreact::note_text {
namespace {

inline constexpr double kWeeksPerMonth = kDaysPerMonth / 7;

// "x 10 days", "for 2 wks", "over the past 3 weeks", "for the last month": weeks, when said.
std::optional<double> DurationWeeks(const std::string& tail) {
  static const std::regex kFor(std::string(R"(^.{0,40}?\b(?:for|x|over|since|during|in)\s?(?:the )?(?:past |last |previous )?)") +
                               kNum + R"(\s?(days?|d|wks?|weeks?|months?|mos?)\b)");
  static const std::regex kLastWeek(R"(^.{0,40}?\b(?:for|over|during|in) (?:the )?(?:past|last) (week|month)\b)");
  std::smatch d;
  if (std::regex_search(tail, d, kFor)) {
    const double n = Num(d[1]);
    const char u = std::string(d[2])[0];
    return u == 'd' ? n / 7 : u == 'w' ? n : n * kWeeksPerMonth;
  }
  if (std::regex_search(tail, d, kLastWeek)) return d[1] == "week" ? 1.0 : kWeeksPerMonth;
  return std::nullopt;
}

// What an intake is a share of: needs, the usual intake, or meals served.
constexpr const char* kShareOf =
    R"(\s?(?:of )?(?:her |his |their |the |all |each |most )?(?:estimated |est\.? |usual |recommended |goal |calculated |prescribed |home )?)"
    R"((?:(?:energy|caloric|calorie|kcal|nutritional|nutrition|protein)(?: and (?:energy|calorie|protein))? )?)"
    R"((needs|requirements?|req|intake|meals?|meal trays?|trays?|diet|goals?|usual|feeds?|feedings?|portions?|plate|food)\b(?!\s?(?:body|weight|wt)\b))";

double FractionPercent(const std::string& word) {
  if (word.find("half") != std::string::npos || word == "1/2") return 50;
  if (word.find("two third") != std::string::npos || word == "2/3") return 67;
  if (word.find("third") != std::string::npos || word == "1/3") return 33;
  if (word.find("three quarter") != std::string::npos || word == "3/4") return 75;
  return 25;  // a quarter, one fourth, 1/4
}

void ReadIntake(const std::string& t, NoteFacts& f) {
  // "~40 % of est. needs", "< 50% of requirements", "25-50% of meals" (the upper bound: never more severe than said).
  static const std::regex kPercent(std::string(R"((?:\d{1,3}\s?(?:-|to)\s?)?)") + kNum + R"(\s?%)" + kShareOf);
  // "about half of usual", "1/4 of meals", "a third of her feeds".
  static const std::regex kFraction(
      std::string(R"(\b(one half|a half|half|one third|a third|two thirds|three quarters|a quarter|one quarter|one fourth|a fourth|1/2|1/3|2/3|1/4|3/4))") +
      kShareOf);
  // "NPO for 8 days", "NPO x 10 d", "NPO or clear liquids for 8 days": no intake, with a duration.
  static const std::regex kNpo(R"(\bnpo\b)");
  // "PO intake ~40%", "oral intake has been 25-50%", "intake < 50 %": a share with no object is of needs.
  static const std::regex kIntakeIs(std::string(R"(\b(?:po |oral |p\.o\. |enteral |dietary )?intake(?: is| was| has been| of| at| about| approximately| ~| <| less than| only|:){0,3}\s?(?:\d{1,3}\s?(?:-|to)\s?)?)") +
                                    kNum + R"(\s?%)");
  std::smatch m;
  std::optional<double> percent;
  size_t end = 0;
  if (std::regex_search(t, m, kPercent)) {
    percent = Num(m[1]);
    f.intake_quote = m[0];
  } else if (std::regex_search(t, m, kIntakeIs)) {
    percent = Num(m[1]);
    f.intake_quote = m[0];
  } else if (std::regex_search(t, m, kFraction)) {
    percent = FractionPercent(m[1]);
    f.intake_quote = m[0];
  }
  if (percent) {
    end = static_cast<size_t>(m.position() + m.length());
    f.intake_percent = *percent;
    f.intake_weeks = DurationWeeks(t.substr(end, 80));
    if (!f.intake_weeks) {
      // "x 10 days, taking ~30% of meal trays": the duration may come first in the clause.
      const auto [sb, se] = SentenceAround(t, static_cast<size_t>(m.position()), end);
      f.intake_weeks = DurationWeeks(t.substr(sb, static_cast<size_t>(m.position()) - sb));
    }
    return;
  }
  if (std::regex_search(t, m, kNpo)) {
    end = static_cast<size_t>(m.position() + m.length());
    const std::optional<double> weeks = DurationWeeks(t.substr(end, 80));
    if (weeks && *weeks >= 1) {  // GLIM 2019: reduced intake counts from more than 1 week at <= 50 %
      f.intake_percent = 0;
      f.intake_weeks = weeks;
      f.intake_quote = "NPO";
    }
  }
}

struct DiseaseFamily {
  const char* kind;  // "acute" or "chronic"
  const char* pattern;
};

// The word lists, each from its source above. Abbreviations that are ordinary words or other things in notes
// are left out on purpose: "ALL" (all), "RA" (room air), "ca" alone (calcium).
const DiseaseFamily kDiseaseFamilies[] = {
    {"acute",
     R"(\b(?:pneumonia|pna|cap|hap|vap|hcap|sepsis|septic|urosepsis|bacter(?:a)?emia|major infection|meningitis|endocarditis|peritonitis|empyema|abscess|osteomyelitis|necroti[sz]ing fasciitis|ards|covid(?:-19)?|burns?|burn injury|\d{1,2}\s?% tbsa|trauma|polytrauma|multiple injuries|closed head injury|tbi|hip fracture|surgery|surgical|post-?op(?:erative(?:ly)?)?|pod\s?#?\d{1,2}|s/p|status post|laparotomy|whipple|\w{2,20}ectomy|\w{2,20}otomy|resection|acute pancreatitis)\b)"},
    {"chronic",
     R"(\b(?:cancer|malignan\w{0,10}|\w{0,12}carcinoma|carcinomatosis|squamous cell|small cell|sarcoma|lymphoma|dlbcl|leuka?emia|myeloma|melanoma|mesothelioma|glioblastoma|gbm|nsclc|sclc|hnscc|hcc|rcc|aml|cll|cml|neuroblastoma|wilms|metasta\w{0,6}|mets|chemo(?:therapy)?|(?:breast|lung|colon|rectal|colorectal|pancreatic|pancreas|gastric|stomach|esophageal|oesophageal|ovarian|prostate|bladder|h&n|head and neck|liver|renal|cervical|endometrial|thyroid|tongue|laryngeal)\s?ca|ca (?:of the|of) \w+|copd|emphysema|chronic bronchitis|chf|hfref|hfpef|heart failure|ckd|esrd|eskd|chronic (?:kidney|renal) (?:disease|failure|insufficiency)|(?:hemo|haemo|peritoneal )?dialysis|crohn'?s|ulcerative colitis|uc|ibd|inflammatory bowel disease|rheumatoid arthritis|cystic fibrosis|cf|hiv|aids|tuberculosis|tb|cirrhosis|esld|chronic pancreatitis|lupus|sle|c-reactive protein|crp)\b)"},
};

// A negation or someone else's history before the word, in its clause.
bool NegatedBefore(const std::string& t, size_t at) {
  static const std::regex kNegation(
      R"(\b(?:no|not|denies|denied|without|negative for|r/o|rule out|ruled out|free of|no evidence of|no hx of|no history of|family history|fhx|fh|mother|father|sibling)\b[^.;,\n]{0,25}$)");
  const size_t from = at >= 40 ? at - 40 : 0;
  return std::regex_search(t.substr(from, at - from), kNegation);
}

void ReadDisease(const std::string& t, NoteFacts& f) {
  static const std::regex kCompiled[] = {std::regex(kDiseaseFamilies[0].pattern), std::regex(kDiseaseFamilies[1].pattern)};
  for (size_t i = 0; i < std::size(kDiseaseFamilies); ++i) {
    for (auto it = std::sregex_iterator(t.begin(), t.end(), kCompiled[i]); it != std::sregex_iterator(); ++it) {
      if (NegatedBefore(t, static_cast<size_t>(it->position()))) continue;
      f.inflammation = true;
      if (!f.inflammation_quote.empty()) f.inflammation_quote += ", ";
      f.inflammation_quote += std::string(kDiseaseFamilies[i].kind) + ": " + it->str();
      break;  // one quote per family is enough evidence
    }
  }
}

}  // namespace

void ReadUnquantifiedWeightLoss(const std::string& t, NoteFacts& f) {
  if (f.weight_loss_percent || f.usual_weight_kg) return;
  static const std::regex kLoss(
      R"(\b(?:weight loss|wt loss|lost weight|losing weight|weight (?:is )?(?:down|falling|decreasing|dropping)|has lost|unintentional loss|unintended loss|cachexia|cachectic|wasting)\b)");
  static const std::regex kNegated(
      R"(\b(?:no|not|denies|denied|without|negative for|nil|absence of|no recent|no significant)\b[^.;,\n]{0,20}$)");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kLoss); it != std::sregex_iterator(); ++it) {
    const size_t at = static_cast<size_t>(it->position());
    const size_t from = at >= 30 ? at - 30 : 0;
    if (std::regex_search(t.substr(from, at - from), kNegated)) continue;
    f.weight_loss_unquantified = true;
    return;
  }
}

void ReadIntakeAndDisease(const std::string& folded, NoteFacts& facts) {
  ReadIntake(folded, facts);
  ReadDisease(folded, facts);
}

}  // namespace medreact::note_text
