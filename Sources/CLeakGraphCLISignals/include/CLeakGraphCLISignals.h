// The signal handling of the `leakgraph` CLI that must be async-signal-safe, so written in C: the
// handler that forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to the checked program, and dying of
// the signal that ended the program.
#ifndef CLEAKGRAPH_CLI_SIGNALS_H
#define CLEAKGRAPH_CLI_SIGNALS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Sets the process the forwarding handler sends signals to (0: none, the signal is dropped).
void lg_cli_forward_to(pid_t child);

/// Installs the forwarding handler for `signal` (SA_SIGINFO, SA_RESTART). A signal the kernel sent
/// on the terminal's behalf (Ctrl-C: `si_code` SI_KERNEL) is not forwarded: the program, in the same
/// foreground process group, got it already. Returns 0, or -1 with `errno`.
int lg_cli_install_forwarding(int signal);

/// Ends this process with `signal`, as the checked program ended: no core file, the default action
/// restored and the signal unblocked, then raised; exits with 128 + `signal` if it did not end it.
void lg_cli_die_of(int signal) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
