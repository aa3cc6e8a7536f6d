// Tests for the findings reader (apps/triage/findings_reader.h) over the
// lexicon: synonyms and abbreviations, NegEx-style negation with pseudo-
// negations and termination, hedges, hypothetical and historical mentions,
// acute/chronic/known temporality before and after the term, and the class of
// hostile input (empty, binary, huge, unterminated text).
#include "apps/triage/findings_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/triage/findings_lexicon.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

// The mentions of `finding` in `text`.
std::vector<FindingMention> Read(const std::string& text, const FindingConcept& finding) {
  return FindingsReader(text).Read(finding);
}

// The first mention, or a mention with term "(none)" so a missing one fails
// the expectations that follow instead of crashing.
FindingMention First(const std::string& text, const FindingConcept& finding) {
  std::vector<FindingMention> all = Read(text, finding);
  if (all.empty()) {
    ADD_FAILURE() << "no mention of " << finding.id << " in: " << text;
    FindingMention none;
    none.term = "(none)";
    none.negated = true;
    return none;
  }
  return all.front();
}

bool Affirmed(const std::string& text, const FindingConcept& finding) {
  for (const FindingMention& m : Read(text, finding)) {
    if (m.affirmed()) return true;
  }
  return false;
}

Temporality Age(const std::string& text, const FindingConcept& finding) { return First(text, finding).temporality; }

// --- synonyms, abbreviations, context -------------------------------------------

TEST(FindingsReaderTest, PulmonaryEmbolismSynonymsAndAbbreviations) {
  for (const char* text :
       {"Acute pulmonary embolism.", "Saddle embolus.", "Bilateral PEs.", "Small PE.",
        "Filling defects in bilateral segmental pulmonary arteries.",
        "Emboli in the lobar arteries of both lower lobes.", "Findings of acute pulmonary thromboembolism.",
        "Clot in the right main pulmonary artery.", "Thrombus in the right interlobar pulmonary artery.",
        "CTPA: filling defect in the left lower lobe.",
        "CT pulmonary angiogram. There is a filling defect on the right."}) {
    EXPECT_TRUE(Affirmed(text, PulmonaryEmbolism())) << text;
  }
  // A filling defect elsewhere, a non-thrombotic embolus, a foot deformity
  // and a study name are not PE.
  for (const char* text :
       {"Filling defect in the left renal pelvis.", "Septic pulmonary emboli.", "Fat embolism after femoral fracture.",
        "Pes planus.", "CT PE protocol: see below.", "Pericardial thickening."}) {
    EXPECT_FALSE(Affirmed(text, PulmonaryEmbolism())) << text;
  }
}

TEST(FindingsReaderTest, VenousThrombosisSynonyms) {
  for (const char* text :
       {"Occlusive DVT of the left popliteal vein.", "Bilateral calf DVTs.",
        "Deep venous thrombosis of the right femoral vein.", "Non-occlusive thrombus in the right popliteal vein.",
        "Nonocclusive thrombus in the left common femoral vein.", "The left popliteal vein is noncompressible.",
        "The right femoral vein is not compressible.",
        "Venous duplex: occlusive thrombus at the saphenofemoral junction."}) {
    EXPECT_TRUE(Affirmed(text, VenousThrombosis())) << text;
  }
  EXPECT_FALSE(Affirmed("The deep veins are fully compressible.", VenousThrombosis()));
  EXPECT_FALSE(Affirmed("DVT prophylaxis with enoxaparin.", VenousThrombosis()));
  // Tumour thrombus is tumour inside a vein, not VTE.
  EXPECT_FALSE(Affirmed("Tumor thrombus extending into the IVC.", VenousThrombosis()));
  EXPECT_FALSE(Affirmed("Tumor thrombus extending into the IVC.", ThrombusUnnamedSite()));
}

TEST(FindingsReaderTest, StrokeSynonymsAndSigns) {
  for (const char* text :
       {"Acute ischemic stroke.", "Left MCA territory CVA.", "Acute infarct in the left MCA territory.",
        "Restricted diffusion in the left corona radiata.", "Loss of grey-white differentiation in the left insula.",
        "Loss of gray-white matter differentiation in the right frontal lobe.",
        "Early ischemic changes in the left MCA territory.", "Lacunar infarct in the pons.",
        "Small focus of reduced diffusivity in the left cerebellar hemisphere."}) {
    EXPECT_TRUE(Affirmed(text, IschemicStroke())) << text;
  }
  for (const char* text :
       {"Left M1 occlusion.", "Large vessel occlusion of the right MCA.", "LVO on the left.",
        "Hyperdense left MCA sign.", "Abrupt cutoff of the basilar artery.", "The left M1 segment is occluded.",
        "Abrupt truncation of the right M2 branch.", "Non-opacification of the left MCA beyond the M1 segment."}) {
    EXPECT_TRUE(Affirmed(text, LargeVesselOcclusion())) << text;
  }
  // Normal grey-white differentiation, another organ's infarct, a stroke
  // scale, a hemorrhagic stroke: no ischaemic stroke.
  for (const char* text : {"Grey-white differentiation is preserved.", "Old myocardial infarct.", "Splenic infarct.",
                           "NIH stroke scale 4.", "Hemorrhagic stroke in the left basal ganglia.",
                           "Post-thrombectomy TICI 2b: thrombolysis in cerebral infarction grade 2b."}) {
    EXPECT_FALSE(Affirmed(text, IschemicStroke())) << text;
  }
  EXPECT_FALSE(Affirmed("Chronic occlusion of the right cervical ICA.", LargeVesselOcclusion()));
}

TEST(FindingsReaderTest, IntracranialHemorrhageSubtypes) {
  EXPECT_TRUE(Affirmed("Acute SDH over the left convexity.", SubduralHematoma()));
  EXPECT_TRUE(Affirmed("Small left subdural haematoma.", SubduralHematoma()));
  EXPECT_TRUE(Affirmed("Mixed-density left convexity subdural with acute and chronic components.", SubduralHematoma()));
  EXPECT_FALSE(Affirmed("Bilateral chronic subdural hygromas.", SubduralHematoma()));
  EXPECT_FALSE(Affirmed("Left subdural drain in place, 2 mm.", SubduralHematoma()));
  EXPECT_TRUE(Affirmed("Lentiform EDH.", EpiduralHematoma()));
  EXPECT_TRUE(Affirmed("Extradural haematoma in the temporal region.", EpiduralHematoma()));
  EXPECT_TRUE(Affirmed("Trace SAH in the sylvian fissure.", SubarachnoidHemorrhage()));
  EXPECT_TRUE(Affirmed("Right basal ganglia IPH.", IntracranialHemorrhage()));
  EXPECT_TRUE(Affirmed("ICH with IVH.", IntracranialHemorrhage()));
  EXPECT_TRUE(Affirmed("Hemorrhagic transformation of the left MCA infarct.", IntracranialHemorrhage()));
  EXPECT_TRUE(Affirmed("3 cm hemorrhage in the left thalamus.", IntracranialHemorrhage()));
  EXPECT_FALSE(Affirmed("Hemorrhage in the left adrenal gland.", IntracranialHemorrhage()));
  EXPECT_TRUE(Affirmed("Hemorrhage in the left adrenal gland.", OtherBleeding()));
  EXPECT_FALSE(Affirmed("Multiple chronic microhemorrhages.", OtherBleeding()));
  const FindingMention sdh = First("Chronic subdural hematoma.", SubduralHematoma());
  EXPECT_EQ(sdh.temporality, Temporality::kChronic);
  EXPECT_TRUE(sdh.chronic_is_present);
  EXPECT_FALSE(First("Old hemorrhage in the left basal ganglia.", OtherBleeding()).chronic_is_present);
}

// --- negation (NegEx) ---------------------------------------------------------

TEST(FindingsReaderTest, NegationBeforeAndAfterTheTerm) {
  for (const char* text :
       {"No pulmonary embolism.", "Negative for PE.", "Without evidence of pulmonary embolism.",
        "No filling defect to suggest pulmonary embolism.", "Pulmonary embolism is excluded.",
        "Pulmonary embolism ruled out.", "Ruled out PE.", "PE is not seen.",
        "Filling defects in the pulmonary arteries are not identified.",
        "The previously seen right lower lobe embolus has resolved.", "Complete resolution of the pulmonary emboli.",
        "No pneumothorax, pleural effusion or pulmonary embolism.", "No new PE.", "PE is unlikely.",
        "Pulmonary embolism is doubtful.", "Negative CT angiogram for pulmonary embolism.",
        "Pulmonary embolism: negative.", "Absence of filling defects in the pulmonary arteries.",
        "Pulmonary arteries free of thrombus."}) {
    const FindingMention m = First(text, PulmonaryEmbolism());
    EXPECT_TRUE(m.negated) << text << " → " << DescribeMention(m);
  }
}

TEST(FindingsReaderTest, NegationStaysInItsScope) {
  // Sentence ends and termination terms end the scope.
  EXPECT_TRUE(Affirmed("No pneumothorax. Acute pulmonary embolism.", PulmonaryEmbolism()));
  EXPECT_TRUE(Affirmed("No effusion, but a segmental PE is seen.", PulmonaryEmbolism()));
  EXPECT_TRUE(Affirmed("No acute findings other than a small PE.", PulmonaryEmbolism()));
  EXPECT_TRUE(Affirmed("No consolidation; however, there is a right lower lobe PE.", PulmonaryEmbolism()));
  // A comma and a conclusion end a negation's reach: the "no" is about flow.
  EXPECT_TRUE(Affirmed("No flow in the popliteal vein, consistent with occlusive thrombus.", VenousThrombosis()));
  // A post-negation of another finding across a comma does not reach back.
  EXPECT_TRUE(Affirmed("Acute PE in the right lower lobe, DVT not seen.", PulmonaryEmbolism()));
  // "and" followed by a new noun phrase ends the scope; "no X or Y" / "no X and Y" negate both.
  EXPECT_TRUE(Affirmed("No pneumothorax and a large saddle PE.", PulmonaryEmbolism()));
  EXPECT_TRUE(Affirmed("No effusion and acute bilateral pulmonary emboli.", PulmonaryEmbolism()));
  EXPECT_FALSE(Affirmed("No pneumothorax and pulmonary embolism.", PulmonaryEmbolism()));
  EXPECT_FALSE(Affirmed("Without a filling defect in the pulmonary arteries.", PulmonaryEmbolism()));
  // Decimal points do not end sentences.
  EXPECT_TRUE(Affirmed("INR 2.3. Pulmonary embolism.", PulmonaryEmbolism()));
}

TEST(FindingsReaderTest, PseudoNegationsAreNotNegations) {
  FindingMention m = First("No change in the size of the right lower lobe PE.", PulmonaryEmbolism());
  EXPECT_TRUE(m.affirmed());
  EXPECT_EQ(m.temporality, Temporality::kKnown);
  m = First("New right lower lobe PE, not seen on the prior CT.", PulmonaryEmbolism());
  EXPECT_TRUE(m.affirmed());
  EXPECT_EQ(m.temporality, Temporality::kAcute);
  EXPECT_TRUE(Affirmed("Not only a PE but also an infarct.", PulmonaryEmbolism()));
  EXPECT_TRUE(FindingsReader("CT with and without contrast.").Read("contrast").front().affirmed());
  EXPECT_FALSE(FindingsReader("Non-contrast CT head.").Read("contrast").front().affirmed());
  EXPECT_FALSE(FindingsReader("CT head without contrast.").Read("contrast").front().affirmed());
}

// --- uncertainty, hypothesis, history -------------------------------------------

TEST(FindingsReaderTest, HedgedFindingsAreAffirmedAndMarkedUncertain) {
  for (const char* text :
       {"Small PE cannot be excluded.", "Possible small subsegmental PE.",
        "Findings suspicious for pulmonary embolism.",
        "Equivocal filling defect in a segmental "
        "pulmonary artery.",
        "Questionable PE in the right lower lobe.", "Likely pulmonary embolism.", "Probable segmental PE.",
        "?PE in the left lower lobe.", "Pulmonary embolism is not entirely excluded."}) {
    const FindingMention m = First(text, PulmonaryEmbolism());
    EXPECT_TRUE(m.affirmed()) << text << " → " << DescribeMention(m);
    EXPECT_TRUE(m.uncertain) << text;
  }
  EXPECT_THAT(DescribeMention(First("Possible PE.", PulmonaryEmbolism())), HasSubstr("possible"));
}

TEST(FindingsReaderTest, QuestionsAndIndicationsAreNotFindings) {
  for (const char* text :
       {"Rule out PE.", "Evaluate for pulmonary embolism.", "R/O DVT.", "Indication: shortness of breath, PE?",
        "Reason for exam: evaluate for PE.", "Clinical question: PE"}) {
    std::vector<FindingMention> all = Read(text, PulmonaryEmbolism());
    if (all.empty()) all = Read(text, VenousThrombosis());
    ASSERT_FALSE(all.empty()) << text;
    EXPECT_FALSE(all.front().affirmed()) << text;
    EXPECT_TRUE(all.front().hypothetical) << text;
  }
  // The findings section after an indication is read again as findings.
  const std::vector<FindingMention> all =
      Read("Indication: rule out PE. Findings: acute PE in the left lower lobe.", PulmonaryEmbolism());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[0].hypothetical);
  EXPECT_TRUE(all[1].affirmed());
  EXPECT_EQ(all[1].temporality, Temporality::kAcute);
}

TEST(FindingsReaderTest, HistoricalMentions) {
  for (const char* text : {"History of PE.", "Prior PE in 2021.", "Status post pulmonary embolism.",
                           "S/p PE, on apixaban.", "Clinical history: DVT in 2019."}) {
    std::vector<FindingMention> all = Read(text, PulmonaryEmbolism());
    if (all.empty()) all = Read(text, VenousThrombosis());
    ASSERT_FALSE(all.empty()) << text;
    EXPECT_EQ(all.front().temporality, Temporality::kHistorical) << text << " → " << DescribeMention(all.front());
  }
  EXPECT_EQ(Age("Encephalomalacia from prior infarct in the right MCA territory.", IschemicStroke()),
            Temporality::kHistorical);
  // "prior" naming the comparison study is not history.
  EXPECT_EQ(Age("Compared with the prior CT, there is a new PE.", PulmonaryEmbolism()), Temporality::kAcute);
  EXPECT_EQ(Age("PE, unchanged from prior.", PulmonaryEmbolism()), Temporality::kKnown);
}

// --- temporality ------------------------------------------------------------------

TEST(FindingsReaderTest, ChronicCuesBeforeAndAfterTheTerm) {
  EXPECT_EQ(Age("Chronic, organized thrombus in the right lower lobe pulmonary artery.", PulmonaryEmbolism()),
            Temporality::kChronic);
  EXPECT_EQ(Age("Thrombus in the right lower lobe segmental artery, chronic in appearance.", PulmonaryEmbolism()),
            Temporality::kChronic);
  EXPECT_EQ(Age("Filling defects in the right lower lobe arteries which appear chronic.", PulmonaryEmbolism()),
            Temporality::kChronic);
  EXPECT_EQ(Age("Calcified thrombus in the left main pulmonary artery.", PulmonaryEmbolism()), Temporality::kChronic);
  EXPECT_EQ(Age("Filling defect in the right lower lobe artery with webs.", PulmonaryEmbolism()),
            Temporality::kChronic);
  EXPECT_EQ(Age("CTEPH.", PulmonaryEmbolism()), Temporality::kChronic);
  EXPECT_EQ(Age("Old lacunar infarct in the left basal ganglia.", IschemicStroke()), Temporality::kChronic);
  EXPECT_EQ(Age("Remote right cerebellar infarct.", IschemicStroke()), Temporality::kChronic);
  EXPECT_EQ(Age("Chronic post-thrombotic thrombus in the left femoral vein.", VenousThrombosis()),
            Temporality::kChronic);
  EXPECT_EQ(Age("Residual thrombus in the popliteal vein.", VenousThrombosis()), Temporality::kChronic);
  EXPECT_EQ(Age("Healed rib fracture.", FindingConcept{.id = "f", .label = "f", .terms = {{.text = "fracture"}}}),
            Temporality::kChronic);
}

TEST(FindingsReaderTest, AcuteCuesAndAgeRanges) {
  EXPECT_EQ(Age("Acute PE.", PulmonaryEmbolism()), Temporality::kAcute);
  EXPECT_EQ(Age("New filling defect in the left lower lobe segmental artery.", PulmonaryEmbolism()),
            Temporality::kAcute);
  EXPECT_EQ(Age("Acute-on-chronic pulmonary emboli.", PulmonaryEmbolism()), Temporality::kAcute);
  EXPECT_EQ(Age("Acute on chronic subdural hematoma.", SubduralHematoma()), Temporality::kAcute);
  EXPECT_EQ(Age("Acute and chronic thrombus in the left femoral vein.", VenousThrombosis()), Temporality::kAcute);
  EXPECT_EQ(Age("Acute/subacute infarct in the right frontal lobe.", IschemicStroke()), Temporality::kAcute);
  EXPECT_EQ(Age("Subacute infarct in the right cerebellar hemisphere.", IschemicStroke()), Temporality::kSubacute);
  EXPECT_EQ(Age("Restricted diffusion in the left corona radiata.", IschemicStroke()), Temporality::kAcute);
  EXPECT_EQ(Age("Interval propagation of thrombus into the left popliteal vein.", VenousThrombosis()),
            Temporality::kAcute);
  // Growth of a known finding is a new event.
  EXPECT_EQ(Age("Interval increase in the size of the known right SDH.", SubduralHematoma()), Temporality::kAcute);
  EXPECT_EQ(Age("Known right lower lobe PE, unchanged.", PulmonaryEmbolism()), Temporality::kKnown);
  EXPECT_EQ(Age("Stable small right SDH.", SubduralHematoma()), Temporality::kKnown);
  EXPECT_EQ(Age("Stable appearance of the acute left SDH.", SubduralHematoma()), Temporality::kAcute);
  EXPECT_EQ(Age("Small right lower lobe PE.", PulmonaryEmbolism()), Temporality::kUnspecified);
}

TEST(FindingsReaderTest, AgeCuesStayWithTheirFinding) {
  std::vector<FindingMention> infarcts =
      Read("Chronic infarct in the right frontal lobe and acute infarct in the left MCA territory.", IschemicStroke());
  ASSERT_EQ(infarcts.size(), 2u);
  EXPECT_EQ(infarcts[0].temporality, Temporality::kChronic);
  EXPECT_EQ(infarcts[1].temporality, Temporality::kAcute);
  // An adjective of another noun after the term does not date it.
  EXPECT_EQ(Age("PE, chronic subdural hematoma.", PulmonaryEmbolism()), Temporality::kUnspecified);
  EXPECT_EQ(Age("Acute PE in a patient with chronic lung disease.", PulmonaryEmbolism()), Temporality::kAcute);
  EXPECT_EQ(Age("PE superimposed on chronic interstitial lung disease.", PulmonaryEmbolism()),
            Temporality::kUnspecified);
  EXPECT_EQ(Age("Hemorrhagic transformation of the known left MCA infarct.", IntracranialHemorrhage()),
            Temporality::kUnspecified);
  // Another sentence does not date it either.
  EXPECT_EQ(Age("Old right MCA infarct. New filling defect in the left lower lobe artery.", PulmonaryEmbolism()),
            Temporality::kAcute);
  // An age in years is no age of the finding.
  EXPECT_EQ(Age("70-year-old with PE in the right lower lobe.", PulmonaryEmbolism()), Temporality::kUnspecified);
}

TEST(FindingsReaderTest, MentionsQuoteTheirClause) {
  const FindingMention m = First(
      "No effusion. Chronic, organized thrombus in the right lower lobe pulmonary artery, "
      "but no acute embolus.",
      PulmonaryEmbolism());
  EXPECT_EQ(m.clause, "Chronic, organized thrombus in the right lower lobe pulmonary artery,");
  EXPECT_EQ(m.text, "thrombus");
  EXPECT_EQ(m.temporal_cue, "organized");
  EXPECT_THAT(DescribeMention(m), HasSubstr("chronic (\"organized\")"));
  EXPECT_EQ(m.label, "Pulmonary embolism");
}

// --- hostile input ---------------------------------------------------------------

TEST(FindingsReaderTest, HostileTextIsReadWithoutFault) {
  std::vector<std::string> texts = {"",
                                    " ",
                                    ".",
                                    "?",
                                    ":",
                                    "::::",
                                    "no",
                                    "PE",
                                    "pe?",
                                    "Indication:",
                                    "no no no no",
                                    std::string(5000, 'a'),
                                    std::string(3000, '.'),
                                    std::string("PE\0PE", 5),
                                    "\xff\xfe PE \x80 thrombus \xc3\xa9",
                                    "acute-on-chronic",
                                    "non-",
                                    "?PE?PE?"};
  // Deterministic pseudo-random bytes and words (LCG), including NUL.
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  const std::vector<std::string> words = {"no ",
                                          "PE ",
                                          "acute ",
                                          "chronic ",
                                          "thrombus ",
                                          ", ",
                                          ". ",
                                          "but ",
                                          "cannot be excluded ",
                                          "history of ",
                                          "Indication: ",
                                          "?",
                                          "non-",
                                          "filling defect ",
                                          "pulmonary artery ",
                                          "SDH "};
  for (int t = 0; t < 50; ++t) {
    std::string text;
    const int n = static_cast<int>(next() % 200);
    for (int i = 0; i < n; ++i) {
      if (next() % 3 == 0) {
        text += static_cast<char>(next() % 256);
      } else {
        text += words[next() % words.size()];
      }
    }
    texts.push_back(text);
  }
  // A long text: the scope bounds keep it linear.
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "no PE, acute thrombus in the pulmonary artery ";
  texts.push_back(big);
  for (const std::string& text : texts) {
    const FindingsReader reader(text);
    for (const FindingConcept* finding : {&PulmonaryEmbolism(), &VenousThrombosis(), &IschemicStroke(),
                                          &SubduralHematoma(), &IntracranialHemorrhage()}) {
      for (const FindingMention& m : reader.Read(*finding)) {
        EXPECT_LT(m.offset, text.size());
        EXPECT_LE(m.offset + m.text.size(), text.size());
        EXPECT_LE(m.clause.size(), 200u);
        EXPECT_FALSE(DescribeMention(m).empty());
      }
    }
    (void)reader.Read("");
    (void)reader.Read("pe");
  }
  EXPECT_FALSE(HasAffirmedMention("", "pe"));
  EXPECT_FALSE(HasAffirmedMention("PE", ""));
}

}  // namespace
}  // namespace medreact
