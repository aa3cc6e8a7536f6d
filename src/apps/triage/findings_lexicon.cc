// The findings lexicon: terms as radiologists write them, with sources.
//
// Term conventions (findings_reader.h): lower case, word stems anchored at a
// word start, abbreviations of three letters or fewer as whole words (their
// capitalised plural "PEs" included). A term with a context counts only when
// a context word is in the same sentence (or a study word anywhere in the
// text): "filling defect" is a pulmonary embolism next to a pulmonary artery
// or on a CT pulmonary angiogram, a venous thrombosis next to a vein, and
// nothing by itself (a filling defect in the renal pelvis is a urothelial
// lesion). Labels are how the planner names a finding in its assessment.
//
// Term sources, per concept below. Where no guideline names the exact words,
// the wording is RadLex's (RSNA radiology lexicon) or the Fleischner Society
// glossary's (Hansell DM et al., Radiology 2008;246:697-722) and common
// report usage.
#include "apps/triage/findings_lexicon.h"

namespace medreact {
namespace {

using Words = std::vector<std::string_view>;
using T = Temporality;

// A pulmonary artery, a lung lobe or a CT pulmonary angiogram in the sentence.
const Words& PulmonaryArteryWords() {
  static const Words words = {"pulmonary arter", "pulmonary trunk", "main pulmonary", "pulmonary arterial",
                              "pulmonary vascula", "pulmonary circulation", "pulmonary outflow", "lobar",
                              "segmental", "subsegmental", "interlobar", "lower lobe", "upper lobe", "middle lobe",
                              "lingula", "rll", "rml", "rul", "lll", "lul", "ctpa", "pulmonary angiogra",
                              "pulmonary ct angiogra", "ct pulmonary angiogra"};
  return words;
}
// A study done for PE, named anywhere in the text.
const Words& PulmonaryAngiogramStudy() {
  static const Words words = {"ctpa", "ct pulmonary angiogra", "pulmonary ct angiogra", "pulmonary angiogra",
                              "pe protocol", "pe-protocol", "pulmonary embolism protocol"};
  return words;
}
// A vein in the sentence.
const Words& VeinWords() {
  static const Words words = {"vein", "venous", "soleal", "gastrocnemius", "cfv", "sfv", "ivc", "vena cava"};
  return words;
}
// A study done for venous thrombosis, named anywhere in the text.
const Words& VenousStudy() {
  static const Words words = {"venous duplex", "venous doppler", "venous ultrasound", "venous compression",
                              "compression ultrasound", "ct venogra", "mr venogra", "venogra",
                              "lower extremity duplex", "lower extremity doppler", "upper extremity duplex"};
  return words;
}
// Emboli and "thrombus" that are not blood clot: no anticoagulation question
// (septic, tumour, fat, air, cement, amniotic emboli; tumour thrombus, the
// tumour growing inside a vein).
const Words& NonThromboticEmboli() {
  static const Words words = {"septic", "tumor", "tumour", "fat", "air", "gas", "cement", "cholesterol",
                              "amniotic", "foreign", "talc", "oil", "lipiodol"};
  return words;
}
// The brain in the sentence (for "infarct", "hemorrhage", "restricted diffusion").
const Words& BrainWords() {
  static const Words words = {
      "brain", "cerebr", "cerebell", "intracranial", "intracerebral", "intraparenchymal", "basal ganglia",
      "thalam", "putamen", "putaminal", "caudate", "internal capsule", "pons", "pontine", "brainstem",
      "brain stem", "midbrain", "frontal", "parietal", "temporal", "occipital", "insula", "insular", "hemispher",
      "convexity", "falx", "falcine", "tentori", "sylvian", "cistern", "sulc", "gyr", "cortex", "cortical",
      "subcortical", "white matter", "periventricular", "corona radiata", "centrum semiovale", "supratentorial",
      "infratentorial", "posterior fossa", "vermis", "mca", "aca", "pca", "vertebrobasilar", "watershed",
      "lacunar", "head ct", "ct head", "ct brain", "brain ct", "mri brain", "brain mri", "mr brain", "head mri"};
  return words;
}
// A head study named anywhere in the text.
const Words& HeadStudy() {
  static const Words words = {"head ct", "ct head", "ct brain", "brain ct", "mri brain", "brain mri", "mr brain",
                              "head mri", "ct of the head", "mri of the brain", "cta head", "head cta",
                              "noncontrast head", "non-contrast head", "dwi", "diffusion-weighted"};
  return words;
}
// Organs whose infarct is not a stroke.
const Words& NonCerebralOrgans() {
  static const Words words = {"myocardial", "cardiac", "splenic", "spleen", "renal", "kidney", "hepatic",
                              "liver", "bowel", "mesenteric", "intestinal", "omental", "pulmonary", "lung",
                              "testicular", "placental", "bone", "medullary", "papillary", "segmental"};
  return words;
}
// The intracranial arteries whose occlusion is a large vessel occlusion.
const Words& IntracranialArteryWords() {
  static const Words words = {"mca", "middle cerebral", "m1", "m2", "basilar", "carotid terminus", "ica terminus",
                              "terminal ica", "intracranial internal carotid", "intracranial ica", "carotid t",
                              "t-occlusion"};
  return words;
}
// A named arterial territory in the sentence: a low density there is how CT
// writes an infarct ("hypodensity in the left MCA territory"). Territories:
// Tatu L et al., "Arterial territories of the human brain", Neurology
// 1998;50:1699-1708; CT reading of infarct as hypoattenuation in a vascular
// territory: AHA/ASA 2019 (Powers, Stroke 2019;50:e344) and ACR
// Appropriateness Criteria, Cerebrovascular Disease (2023).
const Words& VascularTerritoryWords() {
  static const Words words = {"territor", "mca distribution", "aca distribution", "pca distribution",
                              "pica distribution", "aica distribution", "sca distribution",
                              "arterial distribution", "vascular distribution", "middle cerebral artery distribution",
                              "anterior cerebral artery distribution", "posterior cerebral artery distribution",
                              "watershed", "border zone", "borderzone", "lenticulostriate"};
  return words;
}
// A low density that, in a vascular territory, is an infarct; not when the
// word before names another organ ("hepatic hypodensity").
const Words& NotBrainLowDensity() {
  static const Words words = {"hepatic", "liver", "renal", "kidney", "splenic", "pancreatic", "thyroid",
                              "adrenal", "osseous", "bone", "periapical", "cystic"};
  return words;
}
// A loss of the grey-white boundary (an early ischaemic sign) needs one of
// these in the sentence: "preserved grey-white differentiation" is normal.
const Words& LossWords() {
  static const Words words = {"loss", "lost", "blurr", "effac", "indistinct", "obscur", "decreased", "reduced"};
  return words;
}
// "Subdural" alone names a haematoma when the sentence describes blood or a
// collection ("mixed-density left subdural", "8 mm right subdural"), not a
// hygroma, an empyema or a drain.
const Words& SubduralBloodWords() {
  static const Words words = {"acute", "chronic", "subacute", "density", "dense", "hyperdense", "isodense",
                              "hypodense", "blood", "hemorrhag", "haemorrhag", "collection", "mass effect",
                              "midline shift", "mm", "cm", "convexity", "holohemispheric", "layering"};
  return words;
}
const Words& NotSubduralBlood() {
  static const Words words = {"hygroma", "hygromas", "empyema", "drain", "drains", "catheter", "space", "spaces",
                              "electrode", "electrodes", "grid", "effusion", "effusions", "fluid", "pus"};
  return words;
}
const Words& HemorrhagicStrokeWords() {
  static const Words words = {"hemorrhagic", "haemorrhagic", "heat"};
  return words;
}

}  // namespace

// The arterial levels of a CT pulmonary angiogram's reading (Wittram,
// RadioGraphics 2004;24:1219: main, lobar, segmental, subsegmental). Lung
// lobes alone are not here: "motion at the lung bases" on a chest CT is no
// PE question.
const std::vector<std::string_view>& PulmonaryArteryContext() {
  static const Words words = {"pulmonary arter", "pulmonary trunk", "main pulmonary", "pulmonary vascula",
                              "lobar", "interlobar", "segmental", "subsegmental"};
  return words;
}

// PE. ESC 2019 Guidelines for the diagnosis and management of acute pulmonary
// embolism (Konstantinides SV et al., Eur Heart J 2020;41:543-603); CT signs
// (intraluminal filling defect, saddle embolus, emboli by arterial level):
// Wittram C et al., RadioGraphics 2004;24:1219-1238; chronic thromboembolic
// disease and CTEPH: Castañer E et al., RadioGraphics 2009;29:31-50 and the
// ESC/ERS 2022 pulmonary hypertension guidelines (Humbert M et al., Eur Heart
// J 2022;43:3618-3731).
const FindingConcept& PulmonaryEmbolism() {
  static const FindingConcept c{
      .id = "pulmonary_embolism",
      .label = "Pulmonary embolism",
      .terms =
          {
              {.text = "pulmonary embol", .not_after = &NonThromboticEmboli()},
              {.text = "pulmonary thromboembol"},
              {.text = "pulmonary arterial embol"},
              {.text = "saddle embol"},
              {.text = "saddle thromb"},
              {.text = "pe", .not_after = &NonThromboticEmboli()},
              {.text = "ctpa positive"},
              {.text = "filling defect", .context = &PulmonaryArteryWords(), .study = &PulmonaryAngiogramStudy()},
              {.text = "embol", .context = &PulmonaryArteryWords(), .not_after = &NonThromboticEmboli()},
              {.text = "thromboembol", .context = &PulmonaryArteryWords()},
              {.text = "thrombus", .context = &PulmonaryArteryWords(), .not_after = &NonThromboticEmboli()},
              {.text = "thrombi", .context = &PulmonaryArteryWords(), .not_after = &NonThromboticEmboli()},
              {.text = "clot", .context = &PulmonaryArteryWords()},
              {.text = "cteph", .label = "Chronic thromboembolic pulmonary hypertension", .implied = T::kChronic},
              {.text = "chronic thromboembolic", .label = "Chronic thromboembolic disease", .implied = T::kChronic},
          },
      .source = "ESC 2019 acute PE guideline (Konstantinides, Eur Heart J 2020;41:543); CT signs: Wittram, "
                "RadioGraphics 2004;24:1219; chronic PE: Castañer, RadioGraphics 2009;29:31",
  };
  return c;
}

// DVT and other venous thrombosis. ACCP/CHEST Antithrombotic Therapy for VTE
// Disease (Kearon C et al., Chest 2016;149:315-352; Stevens SM et al., Chest
// 2021;160:e545-e608). Non-compressibility of a vein is the ultrasound
// criterion of DVT (Lensing AW et al., N Engl J Med 1989;320:342-345;
// Needleman L et al., SRU consensus, Circulation 2018;137:1505-1515).
const FindingConcept& VenousThrombosis() {
  static const FindingConcept c{
      .id = "venous_thrombosis",
      .label = "DVT",
      .terms =
          {
              {.text = "deep vein thrombos"},
              {.text = "deep venous thrombos"},
              {.text = "dvt"},
              {.text = "venous thromboembol", .label = "Venous thromboembolism"},
              {.text = "vte", .label = "Venous thromboembolism"},
              {.text = "venous thrombos", .label = "Venous thrombosis"},
              {.text = "vein thrombos", .label = "Venous thrombosis"},
              {.text = "non-occlusive thrombus", .label = "Venous thrombosis", .context = &VeinWords(),
               .study = &VenousStudy()},
              {.text = "nonocclusive thrombus", .label = "Venous thrombosis", .context = &VeinWords(),
               .study = &VenousStudy()},
              {.text = "thrombus", .label = "Venous thrombosis", .context = &VeinWords(), .study = &VenousStudy(),
               .not_after = &NonThromboticEmboli()},
              {.text = "thrombi", .label = "Venous thrombosis", .context = &VeinWords(), .study = &VenousStudy(),
               .not_after = &NonThromboticEmboli()},
              {.text = "clot", .label = "Venous thrombosis", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "filling defect", .label = "Venous thrombosis", .context = &VeinWords(),
               .study = &VenousStudy()},
              {.text = "noncompressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "non-compressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "incompressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "not compressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "lack of compressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
              {.text = "loss of compressib", .label = "DVT", .context = &VeinWords(), .study = &VenousStudy()},
          },
      .source = "ACCP/CHEST VTE guideline (Kearon, Chest 2016;149:315; 2021 update); compression ultrasound: "
                "Lensing, N Engl J Med 1989;320:342; SRU consensus, Circulation 2018;137:1505",
  };
  return c;
}

// A clot whose site the text does not name as a pulmonary artery or a vein:
// still a thrombus for the anticoagulation question (an LV or atrial
// thrombus on an anticoagulant is also treatment failure), HIGH RISK by
// keyword. Non-thrombotic emboli are excluded.
const FindingConcept& ThrombusUnnamedSite() {
  static const FindingConcept c{
      .id = "thrombus",
      .label = "Thrombus",
      .terms =
          {
              {.text = "thrombus", .not_after = &NonThromboticEmboli()},
              {.text = "thrombi", .not_after = &NonThromboticEmboli()},
              {.text = "thrombos", .label = "Thrombosis"},
              {.text = "thromboemb", .label = "Thromboembolism"},
              {.text = "thrombotic"},
              {.text = "embol", .label = "Embolism", .not_after = &NonThromboticEmboli()},
              {.text = "clot"},
          },
      .source = "ACCP/CHEST VTE guideline (Kearon, Chest 2016;149:315)",
  };
  return c;
}

// Ischaemic stroke. AHA/ASA 2019 acute ischemic stroke guideline (Powers WJ et
// al., Stroke 2019;50:e344-e418) and 2021 secondary prevention guideline
// (Kleindorfer DO et al., Stroke 2021;52:e364-e467). Restricted diffusion on
// DWI is acute ischaemia (Schellinger PD et al., AAN guideline, Neurology
// 2010;75:177-185); loss of grey-white differentiation and of the insular
// ribbon are ASPECTS early ischaemic changes (Barber PA et al., Lancet
// 2000;355:1670-1674); a lacune is an old small infarct (STRIVE, Wardlaw JM
// et al., Lancet Neurol 2013;12:822-838).
const FindingConcept& IschemicStroke() {
  static const FindingConcept c{
      .id = "ischemic_stroke",
      .label = "Ischemic stroke",
      .terms =
          {
              {.text = "ischemic stroke"},
              {.text = "ischaemic stroke", .label = "Ischaemic stroke"},
              {.text = "stroke", .label = "Stroke", .not_after = &HemorrhagicStrokeWords()},
              {.text = "cerebrovascular accident", .label = "Stroke"},
              {.text = "cva", .label = "Stroke"},
              {.text = "cerebral infarct", .label = "Cerebral infarct"},
              {.text = "cerebellar infarct", .label = "Cerebellar infarct"},
              {.text = "lacunar infarct", .label = "Lacunar infarct"},
              {.text = "lacune", .label = "Lacunar infarct", .implied = T::kChronic},
              {.text = "brain infarct", .label = "Cerebral infarct"},
              {.text = "territory infarct", .label = "Cerebral infarct"},
              {.text = "watershed infarct", .label = "Cerebral infarct"},
              {.text = "ischemic infarct", .label = "Cerebral infarct", .context = &BrainWords(),
               .study = &HeadStudy()},
              {.text = "infarct", .label = "Cerebral infarct", .context = &BrainWords(), .study = &HeadStudy(),
               .not_after = &NonCerebralOrgans()},
              {.text = "restricted diffusion", .label = "Acute infarct (restricted diffusion)",
               .context = &BrainWords(), .study = &HeadStudy(), .implied = T::kAcute},
              {.text = "diffusion restriction", .label = "Acute infarct (restricted diffusion)",
               .context = &BrainWords(), .study = &HeadStudy(), .implied = T::kAcute},
              {.text = "reduced diffusion", .label = "Acute infarct (restricted diffusion)",
               .context = &BrainWords(), .study = &HeadStudy(), .implied = T::kAcute},
              {.text = "reduced diffusivity", .label = "Acute infarct (restricted diffusion)",
               .context = &BrainWords(), .study = &HeadStudy(), .implied = T::kAcute},
              {.text = "restricted diffusivity", .label = "Acute infarct (restricted diffusion)",
               .context = &BrainWords(), .study = &HeadStudy(), .implied = T::kAcute},
              {.text = "grey-white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "gray-white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "grey white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "gray white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "insular ribbon", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              // "loss of differentiation between grey and white matter", "grey/white".
              {.text = "grey and white matter", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "gray and white matter", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "grey/white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "gray/white", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},
              {.text = "lentiform nucle", .label = "Early ischemic change", .context = &LossWords(),
               .implied = T::kAcute},  // obscuration of the lentiform nucleus (ASPECTS)
              // A low density in a named arterial territory: an infarct, of
              // the age the text gives (issue 24).
              {.text = "hypodens", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "hypoattenuat", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "low density", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "low-density", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "low attenuation", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "low-attenuation", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "decreased attenuation", .label = "Cerebral infarct", .context = &VascularTerritoryWords(),
               .not_after = &NotBrainLowDensity()},
              {.text = "early ischemic change", .label = "Early ischemic change", .implied = T::kAcute},
              {.text = "early ischaemic change", .label = "Early ischaemic change", .implied = T::kAcute},
          },
      .source = "AHA/ASA acute ischemic stroke guideline (Powers, Stroke 2019;50:e344); DWI: Schellinger, Neurology "
                "2010;75:177; ASPECTS: Barber, Lancet 2000;355:1670; STRIVE: Wardlaw, Lancet Neurol 2013;12:822; "
                "arterial territories: Tatu, Neurology 1998;50:1699",
  };
  return c;
}

// Large vessel occlusion (ICA terminus, M1/M2, basilar): the thrombectomy
// targets of the AHA/ASA 2019 guideline (Powers, Stroke 2019;50:e344). The
// hyperdense artery sign is intraluminal thrombus (Mair G et al., Stroke
// 2015;46:102-107). Acute unless the text says otherwise: a chronic
// occlusion is reported as such.
const FindingConcept& LargeVesselOcclusion() {
  static const FindingConcept c{
      .id = "large_vessel_occlusion",
      .label = "Large vessel occlusion",
      .terms =
          {
              {.text = "large vessel occlusion", .implied = T::kAcute},
              {.text = "lvo", .implied = T::kAcute},
              {.text = "m1 occlusion", .implied = T::kAcute},
              {.text = "m2 occlusion", .implied = T::kAcute},
              {.text = "tandem occlusion", .implied = T::kAcute},
              {.text = "basilar artery occlusion", .implied = T::kAcute},
              {.text = "basilar occlusion", .implied = T::kAcute},
              {.text = "hyperdense mca", .label = "Hyperdense MCA sign", .implied = T::kAcute},
              {.text = "hyperdense middle cerebral", .label = "Hyperdense MCA sign", .implied = T::kAcute},
              {.text = "dense mca", .label = "Hyperdense MCA sign", .implied = T::kAcute},
              {.text = "hyperdense artery sign", .label = "Hyperdense artery sign", .implied = T::kAcute},
              {.text = "hyperdense vessel sign", .label = "Hyperdense artery sign", .implied = T::kAcute},
              {.text = "hyperdense basilar", .label = "Hyperdense artery sign", .implied = T::kAcute},
              {.text = "hyperdense", .label = "Hyperdense artery sign", .context = &IntracranialArteryWords(),
               .implied = T::kAcute},  // "hyperdense left MCA", "M1 segment is hyperdense"
              {.text = "occlusion", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "occluded", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "cutoff", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "cut-off", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "truncat", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "non-opacification", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "nonopacification", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "lack of opacification", .context = &IntracranialArteryWords(), .implied = T::kAcute},
              {.text = "thrombus", .context = &IntracranialArteryWords(), .implied = T::kAcute},
          },
      .source = "AHA/ASA acute ischemic stroke guideline (Powers, Stroke 2019;50:e344); hyperdense artery sign: "
                "Mair, Stroke 2015;46:102",
  };
  return c;
}

// TIA: a clinical diagnosis, read when the text states it (AHA/ASA tissue
// definition: Easton JD et al., Stroke 2009;40:2276-2293).
const FindingConcept& TransientIschemicAttack() {
  static const FindingConcept c{
      .id = "tia",
      .label = "TIA",
      .terms = {{.text = "transient ischemic attack"}, {.text = "transient ischaemic attack"}, {.text = "tia"}},
      .source = "AHA/ASA TIA definition (Easton, Stroke 2009;40:2276)",
  };
  return c;
}

// Subdural haematoma. A chronic SDH is a present, liquefied collection that
// can expand and rebleed, and antithrombotics are held or reversed before it
// is drained (Kolias AG et al., Nat Rev Neurol 2014;10:570-578): its chronic
// form stays present for the bleeding rule.
const FindingConcept& SubduralHematoma() {
  static const FindingConcept c{
      .id = "subdural_hematoma",
      .label = "Subdural hematoma",
      .terms =
          {
              {.text = "subdural hematoma", .chronic_is_present = true},
              {.text = "subdural haematoma", .label = "Subdural haematoma", .chronic_is_present = true},
              {.text = "subdural hemorrhage", .chronic_is_present = true},
              {.text = "subdural haemorrhage", .label = "Subdural haematoma", .chronic_is_present = true},
              {.text = "subdural blood", .chronic_is_present = true},
              {.text = "subdural collection", .label = "Subdural collection", .chronic_is_present = true},
              {.text = "sdh", .chronic_is_present = true},
              {.text = "subdural", .context = &SubduralBloodWords(), .not_before = &NotSubduralBlood(),
               .chronic_is_present = true},
          },
      .source = "AHA/ASA ICH guideline (Greenberg, Stroke 2022;53:e282); chronic SDH: Kolias, Nat Rev Neurol "
                "2014;10:570",
  };
  return c;
}

// Epidural (extradural) haematoma: Brain Trauma Foundation surgical
// guideline (Bullock MR et al., Neurosurgery 2006;58(3 Suppl):S7-S15).
const FindingConcept& EpiduralHematoma() {
  static const FindingConcept c{
      .id = "epidural_hematoma",
      .label = "Epidural hematoma",
      .terms =
          {
              {.text = "epidural hematoma", .chronic_is_present = true},
              {.text = "epidural haematoma", .chronic_is_present = true},
              {.text = "extradural hematoma", .chronic_is_present = true},
              {.text = "extradural haematoma", .chronic_is_present = true},
              {.text = "epidural hemorrhage", .chronic_is_present = true},
              {.text = "extradural haemorrhage", .chronic_is_present = true},
              {.text = "edh", .chronic_is_present = true},
          },
      .source = "Brain Trauma Foundation: surgical management of acute epidural hematomas (Bullock, Neurosurgery "
                "2006;58:S7)",
  };
  return c;
}

// Subarachnoid haemorrhage: AHA/ASA 2023 aneurysmal SAH guideline (Hoh BL et
// al., Stroke 2023;54:e314-e370).
const FindingConcept& SubarachnoidHemorrhage() {
  static const FindingConcept c{
      .id = "subarachnoid_hemorrhage",
      .label = "Subarachnoid hemorrhage",
      .terms =
          {
              {.text = "subarachnoid hemorrhage"},
              {.text = "subarachnoid haemorrhage", .label = "Subarachnoid haemorrhage"},
              {.text = "subarachnoid blood"},
              {.text = "sah"},
          },
      .source = "AHA/ASA aneurysmal SAH guideline (Hoh, Stroke 2023;54:e314)",
  };
  return c;
}

// Intracerebral/intraparenchymal and intraventricular haemorrhage,
// haemorrhagic transformation of an infarct (ECASS classes: Fiorelli M et al.,
// Stroke 1999;30:2280-2284) and "hemorrhage" beside a brain word. AHA/ASA
// 2022 spontaneous ICH guideline (Greenberg SM et al., Stroke
// 2022;53:e282-e361).
const FindingConcept& IntracranialHemorrhage() {
  static const FindingConcept c{
      .id = "intracranial_hemorrhage",
      .label = "Intracranial hemorrhage",
      .terms =
          {
              {.text = "intracranial hemorrhage"},
              {.text = "intracranial haemorrhage", .label = "Intracranial haemorrhage"},
              {.text = "intracerebral hemorrhage"},
              {.text = "intracerebral haemorrhage", .label = "Intracranial haemorrhage"},
              {.text = "intraparenchymal hemorrhage"},
              {.text = "intraparenchymal haemorrhage", .label = "Intracranial haemorrhage"},
              {.text = "intraparenchymal hematoma"},
              {.text = "intraparenchymal haematoma", .label = "Intracranial haemorrhage"},
              {.text = "parenchymal hemorrhage"},
              {.text = "parenchymal haemorrhage", .label = "Intracranial haemorrhage"},
              {.text = "parenchymal hematoma"},
              {.text = "intracranial bleed"},
              {.text = "intracerebral bleed"},
              {.text = "brain bleed"},
              {.text = "hemorrhagic stroke", .label = "Hemorrhagic stroke"},
              {.text = "haemorrhagic stroke", .label = "Haemorrhagic stroke"},
              {.text = "hemorrhagic transformation", .label = "Hemorrhagic transformation"},
              {.text = "haemorrhagic transformation", .label = "Haemorrhagic transformation"},
              {.text = "hemorrhagic conversion", .label = "Hemorrhagic transformation"},
              {.text = "hemorrhagic contusion", .label = "Hemorrhagic contusion"},
              {.text = "haemorrhagic contusion", .label = "Haemorrhagic contusion"},
              {.text = "intraventricular hemorrhage", .label = "Intraventricular hemorrhage"},
              {.text = "intraventricular haemorrhage", .label = "Intraventricular haemorrhage"},
              {.text = "intraventricular blood", .label = "Intraventricular hemorrhage"},
              {.text = "ivh", .label = "Intraventricular hemorrhage"},
              {.text = "ich"},
              {.text = "iph"},
              {.text = "hemorrhag", .context = &BrainWords(), .study = &HeadStudy()},
              {.text = "haemorrhag", .label = "Intracranial haemorrhage", .context = &BrainWords(),
               .study = &HeadStudy()},
              {.text = "hematoma", .context = &BrainWords(), .study = &HeadStudy()},
              {.text = "haematoma", .label = "Intracranial haemorrhage", .context = &BrainWords(),
               .study = &HeadStudy()},
              {.text = "bleed", .context = &BrainWords(), .study = &HeadStudy()},
          },
      .source = "AHA/ASA spontaneous ICH guideline (Greenberg, Stroke 2022;53:e282); hemorrhagic transformation: "
                "Fiorelli, Stroke 1999;30:2280",
  };
  return c;
}

// Bleeding elsewhere: ACC Expert Consensus Decision Pathway on Bleeding in
// Patients on Oral Anticoagulants (Tomaselli GF et al., J Am Coll Cardiol
// 2020;76:594-622). A chronic hematoma is still a collection.
const FindingConcept& OtherBleeding() {
  static const FindingConcept c{
      .id = "bleeding",
      .label = "Hemorrhage",
      .terms =
          {
              {.text = "active extravasation", .label = "Active bleeding"},
              {.text = "contrast extravasation", .label = "Active bleeding"},
              {.text = "hemorrhag", .label = "Hemorrhage"},
              {.text = "haemorrhag", .label = "Haemorrhage"},
              {.text = "hematoma", .label = "Hematoma", .chronic_is_present = true},
              {.text = "haematoma", .label = "Haematoma", .chronic_is_present = true},
              {.text = "hemothorax", .label = "Hemothorax"},
              {.text = "haemothorax", .label = "Haemothorax"},
              {.text = "hemoperitoneum", .label = "Hemoperitoneum"},
              {.text = "haemoperitoneum", .label = "Haemoperitoneum"},
              {.text = "hemopericardium", .label = "Hemopericardium"},
              {.text = "bleed", .label = "Bleeding"},
          },
      .source = "ACC bleeding on oral anticoagulants pathway (Tomaselli, J Am Coll Cardiol 2020;76:594)",
  };
  return c;
}

}  // namespace medreact
