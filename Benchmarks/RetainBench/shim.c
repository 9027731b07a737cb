// A symbol-interposing retain hook, the option LeakGraph does not use, for scripts/bench-retain:
// preloaded, it defines `swift_retain` and `swift_release`, counts each retain and forwards to the
// runtime's through dlsym(RTLD_NEXT). Calls compiled code makes through the PLT reach it; calls the
// runtime makes inside libswiftCore do not.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

/// Retains seen (the benchmark's timed phases are single-threaded: a plain counter).
uint64_t retain_shim_count;

static void *(*real_retain)(void *);
static void (*real_release)(void *);

void *swift_retain(void *object) {
    if (real_retain == 0) {
        real_retain = (void *(*)(void *))dlsym(RTLD_NEXT, "swift_retain");
    }
    retain_shim_count++;
    return real_retain(object);
}

void swift_release(void *object) {
    if (real_release == 0) {
        real_release = (void (*)(void *))dlsym(RTLD_NEXT, "swift_release");
    }
    real_release(object);
}
