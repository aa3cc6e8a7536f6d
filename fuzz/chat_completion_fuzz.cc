// libFuzzer entry point for the "chat_completion" target; the body is FuzzChatCompletion in fuzz_bodies.cc.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return medreact::fuzz::FuzzChatCompletion(data, size);
}
