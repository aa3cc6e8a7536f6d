// SHA-256 (FIPS 180-4), for content addresses: the images a cxr run keeps
// in its run folder are named and checked by it (service/run_images.h).
// Not for secrets (no constant-time claims); one pass over a buffer.
#ifndef MEDREACT_CORE_SHA256_H_
#define MEDREACT_CORE_SHA256_H_

#include <string>
#include <string_view>

namespace medreact {

// The digest of `data` as 64 lowercase hex characters.
std::string Sha256Hex(std::string_view data);

}  // namespace medreact

#endif  // MEDREACT_CORE_SHA256_H_
