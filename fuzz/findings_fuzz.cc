// libFuzzer entry point for the "findings" target; the body is FuzzFindings in fuzz_bodies.cc.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzFindings(data, size);
}
