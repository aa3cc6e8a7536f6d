// The findings lexicon: the concepts triage reads in radiology findings, each
// with its synonyms, abbreviations, the context some terms need and the
// source of the terms (findings_lexicon.cc). Shared by the keyword base
// priority (triage_policy.cc) and the rules planner (rules_planner.cc), so
// both read "filling defects in the segmental arteries" as a pulmonary
// embolism and "old lacunar infarct" as chronic.
//
// Each function returns a process-lifetime constant (built on first use,
// thread-safe).
#ifndef MEDREACT_APPS_TRIAGE_FINDINGS_LEXICON_H_
#define MEDREACT_APPS_TRIAGE_FINDINGS_LEXICON_H_

#include "apps/triage/findings_reader.h"

namespace medreact {

// Venous thromboembolism.
const FindingConcept& PulmonaryEmbolism();    // PE, saddle embolus, filling defect in a pulmonary artery, CTEPH
const FindingConcept& VenousThrombosis();     // DVT, occlusive thrombus in a vein, non-compressible vein
const FindingConcept& ThrombusUnnamedSite();  // thrombus, clot, embolism with no site that names it

// The words that place a sentence on the pulmonary arteries ("lobar",
// "segmental", "pulmonary arteries"): what a non-diagnostic segment of a PE
// study names.
const std::vector<std::string_view>& PulmonaryArteryContext();

// Ischaemic stroke.
const FindingConcept& IschemicStroke();        // stroke, CVA, cerebral infarct, restricted diffusion, early signs
const FindingConcept& LargeVesselOcclusion();  // LVO, M1/M2/basilar occlusion, hyperdense MCA sign
const FindingConcept& TransientIschemicAttack();

// Intracranial haemorrhage and its subtypes, then bleeding elsewhere.
const FindingConcept& SubduralHematoma();        // SDH; a chronic SDH is still a present collection
const FindingConcept& EpiduralHematoma();        // EDH
const FindingConcept& SubarachnoidHemorrhage();  // SAH
const FindingConcept& IntracranialHemorrhage();  // ICH, IPH, IVH, hemorrhagic transformation
const FindingConcept& OtherBleeding();           // hemorrhage, hematoma, hemothorax, bleeding elsewhere

}  // namespace medreact

#endif  // MEDREACT_APPS_TRIAGE_FINDINGS_LEXICON_H_
