// The start of `libLeakGraphPreload.so`: a constructor that installs the allocation hook before
// the preloaded program's `main`, the process-wide `free` that tells the hook of every death, an exit
// handler (`on_exit`), the final check on a terminating signal, the crash handler and the timer of
// the periodic checks — all in C. The checks themselves run in a second library,
// `LG_CHECKER_LIBRARY_NAME` (the Swift target `LeakGraphPreloadChecker`), loaded the first time a
// check runs (see `lg_checker_request` in CLeakGraphContract.h).
#ifndef CLEAKGRAPH_PRELOAD_START_H
#define CLEAKGRAPH_PRELOAD_START_H

#ifdef __cplusplus
extern "C" {
#endif

/// The report path the constructor read from `LEAKGRAPH_OUTPUT`, or NULL when the library was
/// loaded without `leakgraph run` (then nothing is installed).
const char *lg_preload_output_path(void);

/// Keeps `LEAKGRAPH_TEST_OBSERVER` (read by the constructor before the environment is restored).
void lg_preload_read_test_observer_request(void);

/// Loads the test observer (`LEAKGRAPH_TEST_OBSERVER`) when the program has XCTest's or Swift
/// Testing's runtime library loaded, and starts it with the hook's test-scope functions. Called once
/// by the constructor, after the hook is installed.
void lg_preload_start_test_observer(void);

/// 1 when the test observer started: each leaked object's test scope then names the test that made
/// it (the checker request's `tests_observed`).
int lg_preload_tests_observed(void);

#ifdef __cplusplus
}
#endif

#endif
