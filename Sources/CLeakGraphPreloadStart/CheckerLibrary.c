// Loads the checker library (LG_CHECKER_LIBRARY_NAME) the first time a check runs, from the folder
// this library was preloaded from. Until then a checked program carries no Swift code of LeakGraph,
// no Foundation and no libdw: what a program that never checks pays is the hook and this plumbing.
//
// The checker library holds its own copy of the hook's code (SwiftPM links the C targets into both
// products), but the hook's functions are exported with default visibility and this library is
// preloaded, so the dynamic linker binds the checker's calls to this library's copy — the one whose
// tables hold the records. The checker checks that on its first call (`lg_is_installed`).
//
// Loaded with RTLD_NOW, before any freeze: no lazy binding (which takes the loader's lock) happens
// while other threads wait for the check, and the loader lock a thread of the program may hold is
// only waited for here, where nothing is frozen. The loading thread's own allocations are not
// recorded (module initializers, caches).
#include "PreloadInternal.h"
#include "CLeakGraphHook.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lg_checker_mutex = PTHREAD_MUTEX_INITIALIZER;
static int lg_checker_state;  // 0 not tried, 1 loaded, -1 failed
static lg_checker lg_loaded_checker;
static char lg_checker_error[512];

static unsigned long long lg_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

/// Loads the library and its entry points (mutex held); fills `lg_checker_error` on failure. The
/// folder is the real one of this library (`leakgraph run` may preload it through a symlink).
static int lg_checker_open(void) {
    Dl_info self;
    char path[PATH_MAX];
    if (dladdr((void *)lg_checker_open, &self) == 0 || self.dli_fname == NULL ||
        realpath(self.dli_fname, path) == NULL) {
        snprintf(lg_checker_error, sizeof lg_checker_error,
                 "the preload library cannot tell which folder it was loaded from, so it cannot find %s",
                 LG_CHECKER_LIBRARY_NAME);
        return -1;
    }
    char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
    if (folder + sizeof(LG_CHECKER_LIBRARY_NAME) > sizeof path) {
        snprintf(lg_checker_error, sizeof lg_checker_error, "the path of %s is too long", LG_CHECKER_LIBRARY_NAME);
        return -1;
    }
    memcpy(path + folder, LG_CHECKER_LIBRARY_NAME, sizeof(LG_CHECKER_LIBRARY_NAME));
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(lg_checker_error, sizeof lg_checker_error, "the checker library could not be loaded: %s",
                 why ? why : path);
        return -1;
    }
    lg_checker_version_fn version = (lg_checker_version_fn)dlsym(library, "leakgraph_checker_interface_version");
    lg_loaded_checker.check = (lg_checker_check_fn)dlsym(library, "leakgraph_checker_check");
    lg_loaded_checker.monitor_check = (lg_checker_monitor_check_fn)dlsym(library, "leakgraph_checker_monitor_check");
    if (version == NULL || lg_loaded_checker.check == NULL || lg_loaded_checker.monitor_check == NULL ||
        version() != LG_CHECKER_INTERFACE_VERSION) {
        snprintf(lg_checker_error, sizeof lg_checker_error,
                 "%s is not the checker library of this libLeakGraphPreload.so (another LeakGraph build?)", path);
        return -1;
    }
    return 1;
}

const lg_checker *lg_checker_load(char *error, unsigned long error_len, unsigned long long *load_nanoseconds) {
    if (load_nanoseconds) *load_nanoseconds = 0;
    pthread_mutex_lock(&lg_checker_mutex);
    if (lg_checker_state == 0) {
        unsigned long long start = lg_monotonic_ns();
        lg_thread_ignore_begin();
        lg_checker_state = lg_checker_open();
        lg_thread_ignore_end();
        if (load_nanoseconds) *load_nanoseconds = lg_monotonic_ns() - start;
    }
    int state = lg_checker_state;
    pthread_mutex_unlock(&lg_checker_mutex);
    if (state == 1) return &lg_loaded_checker;
    if (error != NULL && error_len > 0) snprintf(error, error_len, "%s", lg_checker_error);
    return NULL;
}
