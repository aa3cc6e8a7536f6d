// libFuzzer entry point for the "dicom" target; the body is FuzzDicom in fuzz_bodies.cc.
// The DICOM plugin's code is linked into this binary (fuzz/CMakeLists.txt), so
// DicomFile is pointed at it instead of loading medreact_dicom.so.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"
#include "tools/imaging/dicom_image.h"

extern "C" const MedreactDicomApi* medreact_dicom_api(uint32_t abi_version);

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  medreact::imaging::UseLinkedDicomPlugin(medreact_dicom_api(MEDREACT_DICOM_ABI_VERSION));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzDicom(data, size);
}
