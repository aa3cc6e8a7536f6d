// libFuzzer entry point for the "mcp_reply" target; the body is FuzzMcpReply in fuzz_mcp_client.cc.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzMcpReply(data, size);
}
