// Loads the test observer (`libLeakGraphTestObserver.so`, CLeakGraphContract.h) into a test process,
// so that the report names the test that made each leaked object.

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "CLeakGraphContract.h"
#include "CLeakGraphHook.h"
#include "CLeakGraphPreloadStart.h"

/// The observer's path from `LEAKGRAPH_TEST_OBSERVER`, empty when none.
static char lg_observer_path[PATH_MAX];
/// Whether the observer started.
static int lg_tests_observed;

void lg_preload_read_test_observer_request(void) {
    const char *path = getenv(LG_ENV_TEST_OBSERVER);
    if (path && strlen(path) < sizeof(lg_observer_path)) strcpy(lg_observer_path, path);
}

/// `dl_iterate_phdr` callback: sets `*found` when a loaded module's file name is XCTest's or Swift
/// Testing's runtime library.
static int lg_find_test_library(struct dl_phdr_info *info, size_t size, void *found) {
    (void)size;
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] == 0) return 0;
    const char *slash = strrchr(name, '/');
    const char *file = slash ? slash + 1 : name;
    if (strcmp(file, "libXCTest.so") == 0 || strcmp(file, "libTesting.so") == 0) {
        *(int *)found = 1;
        return 1;
    }
    return 0;
}

void lg_preload_start_test_observer(void) {
    if (!lg_observer_path[0]) return;
    int found = 0;
    dl_iterate_phdr(lg_find_test_library, &found);
    if (!found) return;  // not a test process
    void *library = dlopen(lg_observer_path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    int (*start)(const lg_test_observer_api *) =
        (int (*)(const lg_test_observer_api *))dlsym(library, LG_TEST_OBSERVER_START);
    static const lg_test_observer_api api = {
        .version = LG_TEST_OBSERVER_API_VERSION,
        .test_begin = lg_test_scope_begin,
        .set_test_source = lg_set_test_scope_source,
    };
    if (start != NULL && start(&api) != 0) lg_tests_observed = 1;
}

int lg_preload_tests_observed(void) { return lg_tests_observed; }
