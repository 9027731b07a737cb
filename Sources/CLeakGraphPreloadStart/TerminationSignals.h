// Inside libLeakGraphPreload.so only: the final check when a terminating signal arrives that the
// program does not handle itself (TerminationSignals.c), and the claim that makes it and the check
// at exit exclusive.
#ifndef CLEAKGRAPH_TERMINATION_SIGNALS_H
#define CLEAKGRAPH_TERMINATION_SIGNALS_H

/// Installs a handler for SIGINT, SIGTERM, SIGHUP and SIGQUIT where their action is the default
/// (not where the program, or whoever started it, chose to ignore them), and starts the thread that
/// runs the final check when one arrives. A program that installs a handler of its own later takes
/// the signal over (then the check at exit runs if its handler exits).
void lg_termination_signals_install(void);

/// Claims the one final check of this process: returns 1 for the first caller (the exit handler or
/// the signal thread), 0 afterwards.
int lg_final_check_claim(void);

#endif
