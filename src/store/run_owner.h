// Who holds a run's lease in the run store (run_store.h, "Ownership"): an
// owner id per open store, "host/pid/start/n" (start: the process's start
// time in clock ticks since boot, so a reused pid is another owner; n: this
// process's n-th store), and whether an owner is known to be gone.
// NewRunOwnerId, RunOwnerGone and DescribeRunOwner are declared in
// run_store.h, their users' header; this one adds what only the store needs.
#ifndef MEDREACT_STORE_RUN_OWNER_H_
#define MEDREACT_STORE_RUN_OWNER_H_

#include <string>

namespace medreact {

// Drops a closed store's owner id from this process's live ones, so
// RunOwnerGone calls it gone.
void ForgetOwner(const std::string& owner);

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_OWNER_H_
