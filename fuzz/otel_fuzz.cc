// libFuzzer entry point for the "otel" target; the body is FuzzOtel in fuzz_bodies.cc.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzOtel(data, size);
}
