// The test source: which test's scope an allocation belongs to (see CLeakGraphTestObserver.h).

#include "CLeakGraphTestObserver.h"

#include <stdatomic.h>
#include <stddef.h>

/// The current task, and a task's 64-bit id, unique for the life of the process (both are the
/// concurrency runtime's exported entry points, Swift calling convention).
extern __attribute__((swiftcall)) void *swift_task_getCurrent(void);
extern __attribute__((swiftcall)) uint64_t swift_task_getJobTaskId(void *job);

static uint64_t (*lg_observer_begin)(const char *label);
static void (*lg_observer_set_source)(uint64_t (*source)(void));
static _Atomic uint64_t lg_observer_xctest;
static _Atomic(uint64_t (*)(void)) lg_observer_resolver;

/// Entries of the per-thread cache of tasks' answers (a power of two).
#define LG_OBSERVER_CACHE 64u

/// The answers for the tasks that ran on this thread lately, by task id (0: empty). A task's test
/// does not change: the runner binds `Test.current` before it creates the tasks that run a test's
/// cases, and a task inherits its creator's value.
static __thread struct {
    uint64_t task;
    uint64_t token;
} lg_observer_cache[LG_OBSERVER_CACHE];

int lg_observer_configure(const lg_test_observer_api *api) {
    if (api == NULL || api->version < LG_TEST_OBSERVER_API_VERSION || api->test_begin == NULL ||
        api->set_test_source == NULL) {
        return 0;
    }
    lg_observer_begin = api->test_begin;
    lg_observer_set_source = api->set_test_source;
    return 1;
}

uint64_t lg_observer_test_begin(const char *label) { return lg_observer_begin != NULL ? lg_observer_begin(label) : 0; }

void lg_observer_set_xctest_token(uint64_t token) {
    atomic_store_explicit(&lg_observer_xctest, token, memory_order_release);
}

void lg_observer_set_resolver(uint64_t (*resolver)(void)) {
    atomic_store_explicit(&lg_observer_resolver, resolver, memory_order_release);
}

int lg_observer_install(void) {
    if (lg_observer_set_source == NULL) {
        return 0;
    }
    lg_observer_set_source(lg_observer_source);
    return 1;
}

uint64_t lg_observer_source(void) {
    uint64_t xctest = atomic_load_explicit(&lg_observer_xctest, memory_order_acquire);
    if (xctest != 0) {
        return xctest;
    }
    uint64_t (*resolver)(void) = atomic_load_explicit(&lg_observer_resolver, memory_order_acquire);
    if (resolver == NULL) {
        return 0;
    }
    void *task = swift_task_getCurrent();
    if (task == NULL) {
        return 0;  // a thread outside any task: Swift Testing cannot say whose work it is
    }
    uint64_t id = swift_task_getJobTaskId(task);
    unsigned line = (unsigned)(id ^ (id >> 17)) & (LG_OBSERVER_CACHE - 1);
    if (id != 0 && lg_observer_cache[line].task == id) {
        return lg_observer_cache[line].token;
    }
    uint64_t token = resolver();
    lg_observer_cache[line].task = id;
    lg_observer_cache[line].token = token;
    return token;
}
