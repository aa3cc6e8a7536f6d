// DICOM JSON with the Basic Application Level Confidentiality Profile.
//
// Source: DICOM PS3.15 (Security and System Management Profiles), Annex E
// "Attribute Confidentiality Profiles", Table E.1-1 "Application Level
// Confidentiality Profile Attributes", column "Basic Prof." (2023 editions).
// Its actions, as applied here to a metadata dump of one file:
//   X  remove                 → removed
//   Z  empty (zero length)    → kept with an empty value ({"vr": ...}, no "Value")
//   D  dummy value            → removed (a dump has nothing to be consistent with)
//   U  replace UID with one consistent within the set → removed: one file has
//      no set to be consistent within, and a fresh UID would look authentic
//   X/Z, X/D, Z/D, X/Z/D, X/Z/U → the first letter (X, else Z)
// Private attributes (odd groups, creators included) are removed, as the
// profile does without its "Retain Safe Private" option. The options that keep
// dates ("Retain Longitudinal Temporal Information") and UIDs are not offered:
// keep_phi keeps everything instead. Not a complete implementation of the
// table (it has several hundred rows, many for modalities and SR content this
// reader never meets); the rows below are the ones that identify a patient,
// a person, an institution, a device or a time in image headers, and
// "Content Sequence" (SR text) is removed whole.
#include "tools/imaging/dicom_plugin/dicom_metadata.h"

#include <sstream>
#include <string>
#include <utility>

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdatset.h>
#include <dcmtk/dcmdata/dcelem.h>
#include <dcmtk/dcmdata/dcjson.h>
#include <dcmtk/dcmdata/dcsequen.h>

namespace medreact::imaging {
namespace {

enum class Action { kRemove, kEmpty };

struct ProfileRow {
  Uint16 group;
  Uint16 element;
  Action action;
  const char* name;  // for the reader; Annex E's letters in the comment
};

constexpr Action X = Action::kRemove;
constexpr Action Z = Action::kEmpty;

// PS3.15 Table E.1-1, Basic Profile column.
constexpr ProfileRow kProfile[] = {
    {0x0008, 0x0012, X, "Instance Creation Date"},           // X/D
    {0x0008, 0x0013, X, "Instance Creation Time"},           // X/Z/D
    {0x0008, 0x0014, X, "Instance Creator UID"},             // U
    {0x0008, 0x0018, X, "SOP Instance UID"},                 // U
    {0x0008, 0x0020, Z, "Study Date"},                       // Z
    {0x0008, 0x0021, X, "Series Date"},                      // X/D
    {0x0008, 0x0022, X, "Acquisition Date"},                 // X/Z
    {0x0008, 0x0023, Z, "Content Date"},                     // Z/D
    {0x0008, 0x002A, X, "Acquisition DateTime"},             // X/D
    {0x0008, 0x0030, Z, "Study Time"},                       // Z
    {0x0008, 0x0031, X, "Series Time"},                      // X/D
    {0x0008, 0x0032, X, "Acquisition Time"},                 // X/Z
    {0x0008, 0x0033, Z, "Content Time"},                     // Z/D
    {0x0008, 0x0050, Z, "Accession Number"},                 // Z
    {0x0008, 0x0080, X, "Institution Name"},                 // X/Z/D
    {0x0008, 0x0081, X, "Institution Address"},              // X
    {0x0008, 0x0082, X, "Institution Code Sequence"},        // X/Z/D
    {0x0008, 0x0090, Z, "Referring Physician's Name"},       // Z
    {0x0008, 0x0092, X, "Referring Physician's Address"},    // X
    {0x0008, 0x0094, X, "Referring Physician's Telephone Numbers"},  // X
    {0x0008, 0x0096, X, "Referring Physician Identification Sequence"},  // X
    {0x0008, 0x0201, X, "Timezone Offset From UTC"},         // X
    {0x0008, 0x1010, X, "Station Name"},                     // X/Z/D
    {0x0008, 0x1030, X, "Study Description"},                // X
    {0x0008, 0x103E, X, "Series Description"},               // X
    {0x0008, 0x1040, X, "Institutional Department Name"},    // X
    {0x0008, 0x1048, X, "Physician(s) of Record"},           // X
    {0x0008, 0x1049, X, "Physician(s) of Record Identification Sequence"},  // X
    {0x0008, 0x1050, X, "Performing Physician's Name"},      // X
    {0x0008, 0x1052, X, "Performing Physician Identification Sequence"},  // X
    {0x0008, 0x1060, X, "Name of Physician(s) Reading Study"},  // X
    {0x0008, 0x1062, X, "Physician(s) Reading Study Identification Sequence"},  // X
    {0x0008, 0x1070, X, "Operators' Name"},                  // X/Z/D
    {0x0008, 0x1072, X, "Operator Identification Sequence"},  // X/D
    {0x0008, 0x1080, X, "Admitting Diagnoses Description"},  // X
    {0x0008, 0x1084, X, "Admitting Diagnoses Code Sequence"},  // X
    {0x0008, 0x1110, X, "Referenced Study Sequence"},        // X/Z
    {0x0008, 0x1111, X, "Referenced Performed Procedure Step Sequence"},  // X/Z/D
    {0x0008, 0x1120, X, "Referenced Patient Sequence"},      // X
    {0x0008, 0x1140, X, "Referenced Image Sequence"},        // X/Z/U
    {0x0008, 0x1155, X, "Referenced SOP Instance UID"},      // U
    {0x0008, 0x2111, X, "Derivation Description"},           // X
    {0x0008, 0x3010, X, "Irradiation Event UID"},            // U
    {0x0010, 0x0010, Z, "Patient's Name"},                   // Z
    {0x0010, 0x0020, Z, "Patient ID"},                       // Z
    {0x0010, 0x0021, X, "Issuer of Patient ID"},             // X
    {0x0010, 0x0030, Z, "Patient's Birth Date"},             // Z
    {0x0010, 0x0032, X, "Patient's Birth Time"},             // X
    {0x0010, 0x0040, Z, "Patient's Sex"},                    // Z
    {0x0010, 0x0050, X, "Patient's Insurance Plan Code Sequence"},  // X
    {0x0010, 0x0101, X, "Patient's Primary Language Code Sequence"},  // X
    {0x0010, 0x0102, X, "Patient's Primary Language Modifier Code Sequence"},  // X
    {0x0010, 0x1000, X, "Other Patient IDs"},                // X
    {0x0010, 0x1001, X, "Other Patient Names"},              // X
    {0x0010, 0x1002, X, "Other Patient IDs Sequence"},       // X
    {0x0010, 0x1005, X, "Patient's Birth Name"},             // X
    {0x0010, 0x1010, X, "Patient's Age"},                    // X
    {0x0010, 0x1020, X, "Patient's Size"},                   // X
    {0x0010, 0x1030, X, "Patient's Weight"},                 // X
    {0x0010, 0x1040, X, "Patient's Address"},                // X
    {0x0010, 0x1050, X, "Insurance Plan Identification"},    // X
    {0x0010, 0x1060, X, "Patient's Mother's Birth Name"},    // X
    {0x0010, 0x1080, X, "Military Rank"},                    // X
    {0x0010, 0x1081, X, "Branch of Service"},                // X
    {0x0010, 0x1090, X, "Medical Record Locator"},           // X
    {0x0010, 0x2000, X, "Medical Alerts"},                   // X
    {0x0010, 0x2110, X, "Allergies"},                        // X
    {0x0010, 0x2150, X, "Country of Residence"},             // X
    {0x0010, 0x2152, X, "Region of Residence"},              // X
    {0x0010, 0x2154, X, "Patient's Telephone Numbers"},      // X
    {0x0010, 0x2160, X, "Ethnic Group"},                     // X
    {0x0010, 0x2180, X, "Occupation"},                       // X
    {0x0010, 0x21A0, X, "Smoking Status"},                   // X
    {0x0010, 0x21B0, X, "Additional Patient History"},       // X
    {0x0010, 0x21C0, X, "Pregnancy Status"},                 // X
    {0x0010, 0x21D0, X, "Last Menstrual Date"},              // X
    {0x0010, 0x21F0, X, "Patient's Religious Preference"},   // X
    {0x0010, 0x2203, X, "Patient's Sex Neutered"},           // X/Z
    {0x0010, 0x2297, X, "Responsible Person"},               // X
    {0x0010, 0x2299, X, "Responsible Organization"},         // X
    {0x0010, 0x4000, X, "Patient Comments"},                 // X
    {0x0018, 0x1000, X, "Device Serial Number"},             // X/Z/D
    {0x0018, 0x1004, X, "Plate ID"},                         // X
    {0x0018, 0x1005, X, "Generator ID"},                     // X
    {0x0018, 0x1007, X, "Cassette ID"},                      // X
    {0x0018, 0x1030, X, "Protocol Name"},                    // X/D
    {0x0018, 0x1400, X, "Acquisition Device Processing Description"},  // X/D
    {0x0018, 0x4000, X, "Acquisition Comments"},             // X
    {0x0018, 0x700A, X, "Detector ID"},                      // X/D
    {0x0020, 0x000D, X, "Study Instance UID"},               // U
    {0x0020, 0x000E, X, "Series Instance UID"},              // U
    {0x0020, 0x0010, Z, "Study ID"},                         // Z
    {0x0020, 0x0052, X, "Frame of Reference UID"},           // U
    {0x0020, 0x0200, X, "Synchronization Frame of Reference UID"},  // U
    {0x0020, 0x3401, X, "Modifying Device ID"},              // X
    {0x0020, 0x3404, X, "Modifying Device Manufacturer"},    // X
    {0x0020, 0x3406, X, "Modified Image Description"},       // X
    {0x0020, 0x4000, X, "Image Comments"},                   // X
    {0x0020, 0x9161, X, "Concatenation UID"},                // U
    {0x0028, 0x1199, X, "Palette Color Lookup Table UID"},   // U
    {0x0032, 0x1032, X, "Requesting Physician"},             // X
    {0x0032, 0x1033, X, "Requesting Service"},               // X
    {0x0032, 0x1060, X, "Requested Procedure Description"},  // X/Z
    {0x0032, 0x4000, X, "Study Comments"},                   // X
    {0x0038, 0x0010, X, "Admission ID"},                     // X
    {0x0038, 0x0300, X, "Current Patient Location"},         // X
    {0x0038, 0x0400, X, "Patient's Institution Residence"},  // X
    {0x0038, 0x0500, X, "Patient State"},                    // X
    {0x0040, 0x0006, X, "Scheduled Performing Physician's Name"},  // X
    {0x0040, 0x0241, X, "Performed Station AE Title"},       // X
    {0x0040, 0x0242, X, "Performed Station Name"},           // X
    {0x0040, 0x0243, X, "Performed Location"},               // X
    {0x0040, 0x0244, X, "Performed Procedure Step Start Date"},  // X
    {0x0040, 0x0245, X, "Performed Procedure Step Start Time"},  // X
    {0x0040, 0x0253, X, "Performed Procedure Step ID"},      // X
    {0x0040, 0x0254, X, "Performed Procedure Step Description"},  // X
    {0x0040, 0x0275, X, "Request Attributes Sequence"},      // X
    {0x0040, 0x1001, X, "Requested Procedure ID"},           // X
    {0x0040, 0x2016, Z, "Placer Order Number / Imaging Service Request"},  // Z
    {0x0040, 0x2017, Z, "Filler Order Number / Imaging Service Request"},  // Z
    {0x0040, 0xA123, X, "Person Name"},                      // D
    {0x0040, 0xA124, X, "UID"},                              // U
    {0x0040, 0xA730, X, "Content Sequence"},                 // X
    {0x0088, 0x0140, X, "Storage Media File-set UID"},       // U
    {0x0400, 0x0561, X, "Original Attributes Sequence"},     // X
    {0x3006, 0x0024, X, "Referenced Frame of Reference UID"},  // U
    {0x4008, 0x0114, X, "Physician Approving Interpretation"},  // X
};

// Binary values above this are bulk data and left out of the JSON.
constexpr Uint32 kMaxInlineBinaryBytes = 1024;

const ProfileRow* FindRow(const DcmTagKey& tag) {
  for (const ProfileRow& row : kProfile) {
    if (row.group == tag.getGroup() && row.element == tag.getElement()) return &row;
  }
  return nullptr;
}

bool IsBulk(DcmElement& element) {
  const DcmTagKey tag = element.getTag();
  const Uint16 group = tag.getGroup();
  if (group == 0x7FE0) return true;                                                   // pixel data (all kinds)
  if ((group & 0xFF00) == 0x6000 && tag.getElement() == 0x3000) return true;          // overlay data
  if (group == 0x5400 && tag.getElement() == 0x1010) return true;                     // waveform data
  switch (element.ident()) {
    case EVR_OB: case EVR_OD: case EVR_OF: case EVR_OL: case EVR_OV: case EVR_OW: case EVR_UN:
    case EVR_ox: case EVR_px: case EVR_pixelSQ:
      return element.getLengthField() > kMaxInlineBinaryBytes;
    default:
      return false;
  }
}

// Applies the profile (unless keep_phi) and drops bulk data, at every level.
void Clean(DcmItem& item, bool keep_phi) {
  for (unsigned long i = item.card(); i-- > 0;) {
    DcmElement* element = item.getElement(i);
    if (element == nullptr) continue;
    const DcmTagKey tag = element->getTag();
    const ProfileRow* row = keep_phi ? nullptr : FindRow(tag);
    if (IsBulk(*element) || (!keep_phi && tag.isPrivate()) || (row != nullptr && row->action == Action::kRemove)) {
      delete item.remove(i);
      continue;
    }
    if (row != nullptr && row->action == Action::kEmpty) {
      element->clear();
      continue;
    }
    if (element->ident() == EVR_SQ) {
      auto* sequence = static_cast<DcmSequenceOfItems*>(element);
      for (unsigned long j = 0; j < sequence->card(); ++j) {
        if (DcmItem* child = sequence->getItem(j)) Clean(*child, keep_phi);
      }
    }
  }
}

}  // namespace

bool DatasetToJson(const DcmDataset& dataset, const std::string& name, bool keep_phi, std::string* out) {
  DcmDataset copy(dataset);
  Clean(copy, keep_phi);
  // Values in another character set become UTF-8 (JSON's); when DCMTK cannot
  // convert them the host's parse says so.
  (void)copy.convertToUTF8();
  std::ostringstream text;
  text << "{";  // DcmDataset::writeJson writes the members only
  DcmJsonFormatCompact format(OFFalse);
  OFCondition cond = copy.writeJson(text, format);
  if (cond.bad()) {
    *out = name + ": cannot write its attributes as DICOM JSON (" + cond.text() + ")";
    return false;
  }
  text << "}";
  *out = std::move(text).str();
  return true;
}

}  // namespace medreact::imaging
