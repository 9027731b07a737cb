// Installation: find the runtime's hook point, check the runtime version, apply the 6.3 retain
// workaround when needed, then swap `_swift_allocObject`. Every check runs before anything is
// changed, so a refusal leaves the program exactly as it was.

#include "lg_internal.h"

#include <stdarg.h>
#include <stdio.h>

void lg_set_error(char *error, size_t error_len, const char *format, ...) {
    if (error == NULL || error_len == 0) {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_len, format, arguments);
    va_end(arguments);
}

#ifdef __linux__

#include <dlfcn.h>

/// `static _SwiftStdlibVersion.current.getter`: returns `major << 16 | minor << 8 | patch` of the
/// loaded libswiftCore. A Swift function with no arguments returning one UInt32, which the C
/// calling convention reads the same way on x86_64 and arm64.
#define LG_STDLIB_VERSION_SYMBOL "$sSo19_SwiftStdlibVersionasE7currentABvgZ"

atomic_int lg_installed;
static pthread_mutex_t lg_install_mutex = PTHREAD_MUTEX_INITIALIZER;
static uint32_t lg_runtime_version;
static uint32_t lg_adapter_replaced;

static int lg_install_locked(unsigned max_frames, lg_mode mode, char *error, size_t error_len) {
    if (atomic_load_explicit(&lg_installed, memory_order_acquire)) {
        if ((int)mode != atomic_load_explicit(&lg_current_mode, memory_order_relaxed)) {
            lg_set_error(error, error_len,
                         "LeakGraph's allocation hook is already installed in another mode.");
            return LG_ERR_CONFLICT;
        }
        atomic_store_explicit(&lg_max_frames, max_frames, memory_order_relaxed);
        return LG_OK;
    }

    _Atomic(lg_alloc_fn) *alloc_slot = dlsym(RTLD_DEFAULT, "_swift_allocObject");
    if (alloc_slot == NULL || dlsym(RTLD_DEFAULT, "swift_isDeallocating") == NULL) {
        lg_set_error(error, error_len,
                     "The Swift runtime's allocation hook point _swift_allocObject was not found: "
                     "LeakGraph needs a dynamically linked Swift runtime (libswiftCore.so).");
        return LG_ERR_RUNTIME_NOT_FOUND;
    }
    uint32_t (*version_getter)(void) =
        (uint32_t(*)(void))dlsym(RTLD_DEFAULT, LG_STDLIB_VERSION_SYMBOL);
    if (version_getter == NULL) {
        lg_set_error(error, error_len,
                     "The Swift runtime's version could not be determined (it predates Swift "
                     "5.7), so LeakGraph does not know whether hooking it is safe.");
        return LG_ERR_UNSUPPORTED_RUNTIME;
    }
    uint32_t version = version_getter();
    uint32_t major = version >> 16;
    uint32_t minor = (version >> 8) & 0xFF;

    // 6.3.x routes swift_retain through an adapter that crashes on tagged values once the
    // allocator is replaced (see retain_adapter.c). Earlier runtimes check first; 6.4 is fixed.
    void **adapter_slot = NULL;
    if (major == 6 && minor == 3) {
        if (lg_retain_adapter_prepare(&adapter_slot, error, error_len) != 0) {
            return LG_ERR_UNSUPPORTED_RUNTIME;
        }
    }

    if (lg_table_init() != 0 || lg_stacks_init() != 0) {
        lg_set_error(error, error_len, "Memory for LeakGraph's allocation table ran out.");
        return LG_ERR_OUT_OF_MEMORY;
    }

    lg_runtime_version = version;
    atomic_store_explicit(&lg_max_frames, max_frames, memory_order_relaxed);
    atomic_store_explicit(&lg_current_mode, (int)mode, memory_order_relaxed);
    if (adapter_slot != NULL) {
        lg_retain_adapter_apply(adapter_slot);
        lg_adapter_replaced = 1;
    }
    lg_alloc_fn previous = atomic_load_explicit(alloc_slot, memory_order_acquire);
    atomic_store_explicit(&lg_original_alloc, previous, memory_order_release);
    atomic_store_explicit(alloc_slot, lg_alloc_hook, memory_order_release);
    atomic_store_explicit(&lg_installed, 1, memory_order_release);
    return LG_OK;
}

int lg_install_mode(unsigned max_frames, lg_mode mode, char *error, size_t error_len) {
    if (error != NULL && error_len > 0) {
        error[0] = '\0';
    }
#if !defined(__x86_64__) && !defined(__aarch64__)
    lg_set_error(error, error_len, "LeakGraph supports Linux on x86_64 and arm64 only.");
    return LG_ERR_UNSUPPORTED_PLATFORM;
#else
    if (max_frames > LG_MAX_FRAMES_LIMIT) {
        lg_set_error(error, error_len, "At most %u frames can be recorded per allocation, not %u.",
                     LG_MAX_FRAMES_LIMIT, max_frames);
        return LG_ERR_INVALID_ARGUMENT;
    }
    if (mode != LG_MODE_TRACK && mode != LG_MODE_RECORD_ONLY && mode != LG_MODE_PASS_THROUGH) {
        lg_set_error(error, error_len, "Unknown recording mode %d.", (int)mode);
        return LG_ERR_INVALID_ARGUMENT;
    }
    // The installing thread's own allocations (libelf, dlsym) must not reach a half-set hook.
    lg_thread_ignore_begin();
    pthread_mutex_lock(&lg_install_mutex);
    int result = lg_install_locked(max_frames, mode, error, error_len);
    pthread_mutex_unlock(&lg_install_mutex);
    lg_thread_ignore_end();
    return result;
#endif
}

int lg_install(unsigned max_frames, char *error, size_t error_len) {
    return lg_install_mode(max_frames, LG_MODE_TRACK, error, error_len);
}

int lg_is_installed(void) {
    return atomic_load_explicit(&lg_installed, memory_order_acquire);
}

void lg_stats(lg_stats_t *stats) {
    *stats = (lg_stats_t){0};
    if (!atomic_load_explicit(&lg_installed, memory_order_acquire)) {
        return;
    }
    lg_table_stats(stats);
    stats->runtime_version = lg_runtime_version;
    stats->retain_adapter_replaced = lg_adapter_replaced;
}

#else /* !__linux__ */

int lg_install_mode(unsigned max_frames, lg_mode mode, char *error, size_t error_len) {
    (void)max_frames;
    (void)mode;
    lg_set_error(error, error_len, "LeakGraph supports Linux on x86_64 and arm64 only.");
    return LG_ERR_UNSUPPORTED_PLATFORM;
}

int lg_install(unsigned max_frames, char *error, size_t error_len) {
    return lg_install_mode(max_frames, LG_MODE_TRACK, error, error_len);
}

int lg_is_installed(void) {
    return 0;
}

void lg_stats(lg_stats_t *stats) {
    *stats = (lg_stats_t){0};
}

#endif /* __linux__ */
