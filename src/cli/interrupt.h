// Ctrl-C and SIGTERM for the commands that run agents: the first signal
// cancels the runs (through one process-wide CancellationToken), so they end
// with status `error` ("cancelled") and their traces and partial results are
// written as usual; the command then exits with 128 + the signal's number
// (130 for Ctrl-C, 143 for SIGTERM). A second signal ends the process at once.
// Commands that run no agent keep the default behaviour (the signal ends them).
#ifndef MEDREACT_CLI_INTERRUPT_H_
#define MEDREACT_CLI_INTERRUPT_H_

#include "medreact/cancel.h"

namespace medreact::cli {

// Installs the handlers (once) and returns the token they cancel.
const CancellationToken& InstallInterruptHandlers();

// The signal that cancelled the runs, or 0.
int InterruptSignal();

// `exit_code`, or 128 + the signal when one arrived.
int ExitCodeAfterInterrupt(int exit_code);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_INTERRUPT_H_
