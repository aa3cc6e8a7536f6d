// libFuzzer entry point for the "mcp_message" target; the body is FuzzMcpMessage in fuzz_mcp.cc.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzMcpMessage(data, size);
}
