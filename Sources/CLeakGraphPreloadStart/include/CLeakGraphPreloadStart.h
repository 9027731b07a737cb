// The start of `libLeakGraphPreload.so`: a constructor that installs the allocation hook before
// the preloaded program's `main`, the process-wide `free` that tells the hook of every death, and
// an exit handler (`on_exit`) that runs the leak check.
#ifndef CLEAKGRAPH_PRELOAD_START_H
#define CLEAKGRAPH_PRELOAD_START_H

#ifdef __cplusplus
extern "C" {
#endif

/// The report path the constructor read from `LEAKGRAPH_OUTPUT`, or NULL when the library was
/// loaded without `leakgraph run` (then nothing is installed).
const char *lg_preload_output_path(void);

/// The program path `leakgraph run` gave in `LEAKGRAPH_PROGRAM` (empty when none, or too long).
const char *lg_preload_program_path(void);

/// The `LG_RENDER_BIT_*` bits of what `leakgraph run` asked to render in `LEAKGRAPH_RENDER`.
unsigned lg_preload_render(void);

/// 1 when `leakgraph run` asked for the live-object histogram (`LEAKGRAPH_LIVE_TYPES=1`), else 0.
int lg_preload_live_types(void);

/// The types `leakgraph run --why` asked about (`LEAKGRAPH_WHY`, comma-separated), empty when none.
const char *lg_preload_why(void);
/// The monitor's interval in milliseconds (`LEAKGRAPH_MONITOR_INTERVAL`), 0 when no monitor was asked for.
unsigned long lg_preload_monitor_interval_ms(void);

/// The monitor's report folder (`LEAKGRAPH_MONITOR_DIRECTORY`), empty when none.
const char *lg_preload_monitor_directory(void);

/// The signal that asks for a check now (`LEAKGRAPH_MONITOR_SIGNAL`), 0 when none or when its
/// handler could not be installed.
int lg_preload_monitor_signal(void);

/// Blocks until the check signal arrives (its handler posts a semaphore; several signals before the
/// wait returns may make one return). Called in a loop by the monitor's request thread.
void lg_preload_wait_check_request(void);

/// Keeps `LEAKGRAPH_TEST_OBSERVER` (read by the constructor before the environment is restored).
void lg_preload_read_test_observer_request(void);

/// Loads the test observer (`LEAKGRAPH_TEST_OBSERVER`) when the program has XCTest's or Swift
/// Testing's runtime library loaded, and starts it with the hook's test-scope functions. Called once
/// by the constructor, after the hook is installed.
void lg_preload_start_test_observer(void);

/// 1 when the test observer started: each leaked object's test scope then names the test that made it.
int lg_preload_tests_observed(void);

/// Implemented in Swift (LeakGraphPreload, `@_cdecl`): starts the `LeakMonitor` with the settings
/// above and the thread that turns check signals into requests. Called once by the constructor,
/// after the hook is installed, when a monitor was asked for.
void leakgraph_preload_monitor_start(void);

/// Implemented in Swift (LeakGraphPreload, `@_cdecl`): walks the heap, analyses it and writes the
/// report to `output_path` (through `<output_path>.partial`), with the renderings asked for beside
/// it, or one sentence to `<output_path>.error`. `exit_status` is the status the program passed to
/// `exit` (the low 8 bits, as its parent will see it), or 128 + `signal` when a terminating signal
/// asked for the check (`signal` is 0 otherwise; the report names it). Called once: by the exit
/// handler, or by the thread that handles a terminating signal.
void leakgraph_preload_check(const char *output_path, int exit_status, int signal);

#ifdef __cplusplus
}
#endif

#endif
