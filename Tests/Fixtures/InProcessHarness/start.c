// Runs any fixture with in-process recording instead of `leakgraph run`: linked into the fixture
// together with the LeakGraph library's objects (Tests/EndToEndTests/Support/InProcessBuilds.swift)
// and harness.swift. No preloaded library: frees reach the recorder only through the `free`
// imports `lg_install` patches, which is what the in-process tests exercise.
//
// Before `main`, installs the hook (as `LeakChecker.startRecording()` does); at exit, runs
// `LeakChecker.check()` and writes the JSON report to $LEAKGRAPH_INPROCESS_OUTPUT (harness.swift).
#include <stdio.h>
#include <stdlib.h>

#include "CLeakGraphHook.h"

/// harness.swift.
extern void leakgraph_harness_check(void);

static void harness_at_exit(void) { leakgraph_harness_check(); }

__attribute__((constructor)) static void harness_start(void) {
    char error[512] = {0};
    if (lg_install(LG_DEFAULT_MAX_FRAMES, error, sizeof error) != 0) {
        fprintf(stderr, "harness: recording could not start: %s\n", error);
        exit(70);
    }
    atexit(harness_at_exit);
}
