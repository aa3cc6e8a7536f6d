// DICOM JSON (PS3.18 F.2) of a dataset, de-identified by PS3.15 Annex E's
// Basic Application Level Confidentiality Profile unless asked not to.
// Internal to src/tools/imaging (DicomFile::Metadata is the public entry).
#ifndef MEDREACT_TOOLS_IMAGING_DICOM_METADATA_H_
#define MEDREACT_TOOLS_IMAGING_DICOM_METADATA_H_

#include <string>

#include "medreact/json.h"
#include "medreact/status.h"

class DcmDataset;

namespace medreact::imaging {

// A copy of `dataset` with bulk data left out and, unless keep_phi, the
// profile applied, written as DICOM JSON by DCMTK and parsed back (so the
// result is checked JSON). `name` names the file in errors. Does not modify
// `dataset`.
Result<Json> DatasetToJson(const DcmDataset& dataset, const std::string& name, bool keep_phi);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_DICOM_METADATA_H_
