// DICOM JSON (PS3.18 F.2) of a dataset, de-identified by PS3.15 Annex E's
// Basic Application Level Confidentiality Profile unless asked not to.
// Part of the DICOM plugin (medreact_dicom.so; DicomFile::Metadata is the
// public entry, through dicom_plugin_abi.h).
#ifndef MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_DICOM_METADATA_H_
#define MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_DICOM_METADATA_H_

#include <string>

class DcmDataset;

namespace medreact::imaging {

// A copy of `dataset` with bulk data left out and, unless keep_phi, the
// profile applied, written as DICOM JSON text by DCMTK into *out (the host
// parses and checks it). On failure returns false with the reason in *out,
// naming the file by `name`. Does not modify `dataset`.
bool DatasetToJson(const DcmDataset& dataset, const std::string& name, bool keep_phi, std::string* out);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_DICOM_METADATA_H_
