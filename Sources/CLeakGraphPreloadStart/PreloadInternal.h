// Inside libLeakGraphPreload.so only: what its C files share. The library is small on purpose: the
// allocation hook, the exit and signal plumbing, and the periodic checks' timer, in C. The checker
// (the heap walk, the analysis, the report: Swift, Foundation, libdw) is a second library loaded the
// first time a check runs (CheckerLibrary.c).
#ifndef CLEAKGRAPH_PRELOAD_INTERNAL_H
#define CLEAKGRAPH_PRELOAD_INTERNAL_H

#include "CLeakGraphContract.h"

/// What the constructor read from the environment before `main`, handed to the checker with every
/// check. Its strings point into this library's static buffers. Written by the constructor only
/// (and `output_path` by a followed process at exit), before any check can run.
extern lg_checker_request lg_preload_request;

/// The checker library's entry points, loaded on first use.
typedef struct lg_checker {
    lg_checker_check_fn check;
    lg_checker_monitor_check_fn monitor_check;
} lg_checker;

/// The checker library, loaded (`dlopen`, then its entry points checked) on the first call, from the
/// folder of this library. Thread-safe; later calls return the same value at once. NULL when it
/// cannot be loaded: one sentence saying why is in `error` (which may be NULL). `*load_nanoseconds`
/// (may be NULL) gets how long this call spent loading (0 when it was loaded already).
const lg_checker *lg_checker_load(char *error, unsigned long error_len, unsigned long long *load_nanoseconds);

/// Runs the final check of this process: loads the checker and calls its check, or writes why it
/// could not to `<output>` + `LG_REPORT_ERROR_SUFFIX`. `exit_status` and `signal` as
/// `lg_checker_check_fn`. Stops the periodic checks first (a check under way finishes).
void lg_preload_final_check(int exit_status, int signal);

/// Starts the periodic checks (`LG_ENV_MONITOR_INTERVAL`): the check signal's handler and a thread
/// that waits for the interval or the signal, then loads the checker and asks it for one check.
/// Nothing is loaded before the first check.
void lg_monitor_start(unsigned long interval_ms, int check_signal);

/// Stops the periodic checks: a check under way finishes first; returns when the thread has ended
/// (at once when called on that thread). Idempotent.
void lg_monitor_stop(void);

/// The signal that asks for a check now, 0 when none (or its handler could not be installed).
int lg_monitor_check_signal(void);

/// Writes `message` to `<output><suffix>` with `open` and `write` (no stdio, no allocation).
void lg_preload_write_beside_output(const char *suffix, const char *message);

#endif
