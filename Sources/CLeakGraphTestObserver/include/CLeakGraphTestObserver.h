// CLeakGraphTestObserver: the part of the test observer (libLeakGraphTestObserver.so) that runs inside
// the allocation hook — it answers, for every allocation no check scope claims, which test's scope the
// object belongs to. Kept in C for the per-thread cache of tasks' answers (`__thread`).
//
// The answer: the XCTest test running now, when one is (XCTest runs one test at a time, on any thread
// or task); else, with Swift Testing's lookup on, the test that is current in the allocating task
// (`Test.current`, a task-local value the runner binds around each test and its cases, and that the
// tasks a test creates inherit), asked through the resolver once per task and thread; else none.
#ifndef CLEAKGRAPH_TEST_OBSERVER_H
#define CLEAKGRAPH_TEST_OBSERVER_H

#include <stdint.h>

#include "CLeakGraphContract.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Keeps the preload library's functions (`api`) for the calls below. Returns 0 when `api` is of an
/// unknown version or lacks a function.
int lg_observer_configure(const lg_test_observer_api *api);

/// Opens a test scope labelled `label` through the preload library; its token, or 0.
uint64_t lg_observer_test_begin(const char *label);

/// Sets the token of the XCTest test that runs now (0 between tests).
void lg_observer_set_xctest_token(uint64_t token);

/// Turns Swift Testing's lookup on: `resolver` returns the token of the test current in the calling
/// task (opening its scope the first time), or 0; it is called inside the allocation hook, once per
/// task per thread.
void lg_observer_set_resolver(uint64_t (*resolver)(void));

/// Points the hook at `lg_observer_source`. Returns 0 when it was not configured.
int lg_observer_install(void);

/// The test source the hook asks (see the header's discussion).
uint64_t lg_observer_source(void);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_TEST_OBSERVER_H */
