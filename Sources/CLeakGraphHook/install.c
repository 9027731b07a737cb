// Installation, the top layer: find the runtime's hook point, check the runtime version, prepare
// the 6.3 retain workaround when needed, make frees reach `lg_free` (patched imports unless a
// preloaded `free` already does), then swap `_swift_allocObject`. Every check runs before the
// allocator is swapped, so a refusal leaves recording off (patched imports, if any, only forward).

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
#include <string.h>

/// `static _SwiftStdlibVersion.current.getter`: returns `major << 16 | minor << 8 | patch` of the
/// loaded libswiftCore. A Swift function with no arguments returning one UInt32, which the C
/// calling convention reads the same way on x86_64 and arm64.
#define LG_STDLIB_VERSION_SYMBOL "$sSo19_SwiftStdlibVersionasE7currentABvgZ"

/// Whether `address` lies in the module that defines `swift_retain` (libswiftCore).
static bool lg_in_runtime(const void *address) {
    Dl_info runtime;
    Dl_info here;
    void *retain = dlsym(RTLD_DEFAULT, "swift_retain");
    return retain != NULL && dladdr(retain, &runtime) != 0 && dladdr(address, &here) != 0 &&
           runtime.dli_fbase == here.dli_fbase;
}

/// The map's granule for this process's allocator: 32 bytes (shift 5) when `malloc` and the aligned
/// allocators the Swift runtime uses are glibc's, whose chunks are at least 32 bytes apart (MINSIZE
/// on 64-bit targets), so no two live objects start in one granule; else 16 bytes, every Swift
/// object's alignment.
static uint32_t lg_granule_shift_for_allocator(void) {
    void *glibc = dlsym(RTLD_DEFAULT, "gnu_get_libc_version");
    Dl_info library;
    if (glibc == NULL || dladdr(glibc, &library) == 0) {
        return 4;
    }
    const char *allocators[] = {"malloc", "aligned_alloc", "posix_memalign", "memalign", "realloc", "calloc"};
    for (size_t index = 0; index < sizeof allocators / sizeof allocators[0]; index++) {
        void *function = dlsym(RTLD_DEFAULT, allocators[index]);
        Dl_info info;
        if (function == NULL || dladdr(function, &info) == 0 || info.dli_fbase != library.dli_fbase) {
            return 4;
        }
    }
    return 5;
}

/// Looks for another copy of LeakGraph's public API in the module that defines `hook` (the
/// allocation hook already installed) and, when that copy is installed in TRACK mode, makes this
/// copy forward its freeze, stacks, statistics and ignore calls to it. Returns whether it did.
static bool lg_delegate_to(const void *hook) {
    Dl_info info;
    if (dladdr(hook, &info) == 0 || info.dli_fname == NULL) {
        return false;
    }
    void *module = dlopen(info.dli_fname[0] ? info.dli_fname : NULL, RTLD_NOW | RTLD_NOLOAD);
    if (module == NULL) {
        return false;
    }
    lg_delegate delegate = {
        .freeze = (size_t(*)(lg_record **))dlsym(module, "lg_freeze"),
        .unfreeze = (void (*)(lg_record *))dlsym(module, "lg_unfreeze"),
        .freeze_objects = (size_t(*)(uintptr_t **))dlsym(module, "lg_freeze_objects"),
        .frozen_record = (int (*)(uintptr_t, lg_record *))dlsym(module, "lg_frozen_record"),
        .frozen_records = (size_t(*)(const uintptr_t *, size_t, lg_record *))dlsym(module, "lg_frozen_records"),
        .stack = (const uintptr_t *(*)(uint32_t, size_t *))dlsym(module, "lg_stack"),
        .stats = (void (*)(lg_stats_t *))dlsym(module, "lg_stats"),
        .ignore_begin = (void (*)(void))dlsym(module, "lg_thread_ignore_begin"),
        .ignore_end = (void (*)(void))dlsym(module, "lg_thread_ignore_end"),
        .scope_begin = (uint64_t(*)(void))dlsym(module, "lg_scope_begin"),
        .scope_end = (void (*)(uint64_t))dlsym(module, "lg_scope_end"),
        .scope_of = (uint32_t(*)(uintptr_t))dlsym(module, "lg_scope_of"),
        .set_scope_source = (void (*)(lg_scope_source))dlsym(module, "lg_set_scope_source"),
        .freeze_only = (int (*)(void))dlsym(module, "lg_freeze_only"),
        .unfreeze_only = (void (*)(void))dlsym(module, "lg_unfreeze_only"),
    };
    int (*is_installed)(void) = (int (*)(void))dlsym(module, "lg_is_installed");
    dlclose(module);  // RTLD_NOLOAD took a reference; the module stays loaded for its own users
    if ((delegate.freeze_only == NULL) != (delegate.unfreeze_only == NULL)) {
        delegate.freeze_only = NULL;
        delegate.unfreeze_only = NULL;
    }
    if (delegate.freeze == NULL || delegate.freeze == lg_freeze || delegate.unfreeze == NULL ||
        delegate.freeze_objects == NULL || delegate.frozen_record == NULL || delegate.stack == NULL ||
        delegate.stats == NULL || delegate.ignore_begin == NULL || delegate.ignore_end == NULL ||
        is_installed == NULL || !is_installed()) {
        return false;
    }
    lg_stats_t stats;
    delegate.stats(&stats);
    if (stats.free_interception == LG_FREE_NOT_INTERCEPTED) {
        return false;
    }
    lg_state.delegate = delegate;
    atomic_store_explicit(&lg_state.delegated, 1, memory_order_release);
    return true;
}

/// Installs under the install mutex: every check first, then the changes, allocator swap last.
static int lg_install_locked(unsigned max_frames, lg_mode mode, bool preloaded, char *error, size_t error_len) {
    if (atomic_load_explicit(&lg_state.installed, memory_order_acquire)) {
        if ((int)mode != atomic_load_explicit(&lg_state.mode, memory_order_relaxed)) {
            lg_set_error(error, error_len, "LeakGraph's allocation hook is already installed in another mode.");
            return LG_ERR_CONFLICT;
        }
        atomic_store_explicit(&lg_state.max_frames, max_frames, memory_order_relaxed);
        return LG_OK;
    }

    _Atomic(lg_alloc_fn) *alloc_slot = dlsym(RTLD_DEFAULT, "_swift_allocObject");
    if (alloc_slot == NULL || dlsym(RTLD_DEFAULT, "swift_retain") == NULL) {
        lg_set_error(error, error_len,
                     "The Swift runtime's allocation hook point _swift_allocObject was not found: "
                     "LeakGraph needs a dynamically linked Swift runtime (libswiftCore.so).");
        return LG_ERR_RUNTIME_NOT_FOUND;
    }
    lg_alloc_fn previous = atomic_load_explicit(alloc_slot, memory_order_acquire);
    if (!lg_in_runtime((const void *)previous)) {
        // Someone already hooks the allocator. Two hooks would each see half the story; when it is
        // another copy of LeakGraph in TRACK mode (the one `leakgraph run` preloads while this
        // program links its own), this copy forwards to it instead.
        if (mode == LG_MODE_TRACK && lg_delegate_to((const void *)previous)) {
            atomic_store_explicit(&lg_state.mode, LG_MODE_TRACK, memory_order_relaxed);
            atomic_store_explicit(&lg_state.installed, 1, memory_order_release);
            return LG_OK;
        }
        lg_set_error(error, error_len,
                     "The Swift runtime's allocator is already hooked by another tool, so LeakGraph "
                     "cannot record this program's allocations.");
        return LG_ERR_CONFLICT;
    }
    uint32_t (*version_getter)(void) = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, LG_STDLIB_VERSION_SYMBOL);
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

    if (lg_hook_init() != 0 || lg_stacks_init() != 0) {
        lg_set_error(error, error_len, "Memory for LeakGraph's allocation table ran out.");
        return LG_ERR_OUT_OF_MEMORY;
    }

    // Frees must reach lg_free before the first object is recorded. When the process-wide `free`
    // is defined by this very module, it is the preloaded library's, which already calls lg_free.
    lg_free_fn resolved = (lg_free_fn)dlsym(RTLD_DEFAULT, "free");
    Dl_info free_module;
    Dl_info own_module;
    if (resolved != NULL && dladdr((void *)resolved, &free_module) != 0 && dladdr((void *)lg_free, &own_module) != 0 &&
        free_module.dli_fbase == own_module.dli_fbase) {
        preloaded = true;
    }
    if (mode == LG_MODE_TRACK && !preloaded) {
        if (resolved != NULL) {
            atomic_store_explicit(&lg_state.next_free, resolved, memory_order_release);
        }
        int patched = lg_free_imports_patch(lg_free, error, error_len);
        if (patched < 0) {
            return LG_ERR_UNSUPPORTED_RUNTIME;
        }
        lg_state.patched_free_imports = (uint32_t)patched;
        lg_state.free_interception = LG_FREE_PATCHED_IMPORTS;
        // Tasks are not allocated through _swift_allocObject: learn of them where they are created.
        // Not fatal: a task that is not recorded is invisible, so everything it holds counts as held.
        lg_state.patched_task_imports = (uint32_t)lg_task_imports_patch();
    } else if (mode == LG_MODE_TRACK) {
        lg_state.free_interception = LG_FREE_PRELOADED;
    }

    static bool fork_handlers_registered;
    if (!fork_handlers_registered) {
        pthread_atfork(lg_fork_prepare, lg_fork_parent, lg_fork_child);
        fork_handlers_registered = true;
    }

    lg_state.runtime_version = version;
    lg_state.granule_shift = lg_granule_shift_for_allocator();
    atomic_store_explicit(&lg_state.max_frames, max_frames, memory_order_relaxed);
    atomic_store_explicit(&lg_state.mode, (int)mode, memory_order_relaxed);
    if (adapter_slot != NULL) {
        lg_retain_adapter_apply(adapter_slot);
        lg_state.retain_adapter_replaced = 1;
    }
    atomic_store_explicit(&lg_state.original_alloc, previous, memory_order_release);
    atomic_store_explicit(alloc_slot, lg_alloc_hook, memory_order_release);
    atomic_store_explicit(&lg_state.installed, 1, memory_order_release);
    return LG_OK;
}

/// The checks and the installation shared by every public entry point.
static int lg_install_with(unsigned max_frames, lg_mode mode, bool preloaded, char *error, size_t error_len) {
    if (error != NULL && error_len > 0) {
        error[0] = '\0';
    }
#if !defined(__x86_64__) && !defined(__aarch64__)
    lg_set_error(error, error_len, "LeakGraph supports Linux on x86_64 and arm64 only.");
    return LG_ERR_UNSUPPORTED_PLATFORM;
#else
    if (max_frames > LG_MAX_FRAMES_LIMIT) {
        lg_set_error(error, error_len, "At most %u frames can be recorded per allocation, not %u.", LG_MAX_FRAMES_LIMIT,
                     max_frames);
        return LG_ERR_INVALID_ARGUMENT;
    }
    if (mode != LG_MODE_TRACK && mode != LG_MODE_RECORD_ONLY && mode != LG_MODE_PASS_THROUGH) {
        lg_set_error(error, error_len, "Unknown recording mode %d.", (int)mode);
        return LG_ERR_INVALID_ARGUMENT;
    }
    // The installing thread's own allocations (dlsym, the symbol-table reader) must not reach a half-set hook.
    lg_thread_ignore_begin();
    pthread_mutex_lock(&lg_state.install_mutex);
    int result = lg_install_locked(max_frames, mode, preloaded, error, error_len);
    pthread_mutex_unlock(&lg_state.install_mutex);
    lg_thread_ignore_end();
    return result;
#endif
}

int lg_install_mode(unsigned max_frames, lg_mode mode, char *error, size_t error_len) {
    return lg_install_with(max_frames, mode, false, error, error_len);
}

int lg_install(unsigned max_frames, char *error, size_t error_len) {
    return lg_install_with(max_frames, LG_MODE_TRACK, false, error, error_len);
}

int lg_install_preloaded(unsigned max_frames, char *error, size_t error_len) {
    return lg_install_with(max_frames, LG_MODE_TRACK, true, error, error_len);
}

int lg_is_installed(void) { return atomic_load_explicit(&lg_state.installed, memory_order_acquire); }

void lg_stats(lg_stats_t *stats) {
    *stats = (lg_stats_t){0};
    if (!atomic_load_explicit(&lg_state.installed, memory_order_acquire)) {
        return;
    }
    if (atomic_load_explicit(&lg_state.delegated, memory_order_acquire)) {
        lg_state.delegate.stats(stats);
        return;
    }
    lg_table_stats(stats);
    stats->ignored = atomic_load_explicit(&lg_state.ignored, memory_order_relaxed);
    stats->deferred_frees = atomic_load_explicit(&lg_state.deferred_frees, memory_order_relaxed);
    stats->stacks = lg_stack_count();
    stats->runtime_version = lg_state.runtime_version;
    stats->patched_task_imports = lg_state.patched_task_imports;
    stats->retain_adapter_replaced = lg_state.retain_adapter_replaced;
    stats->free_interception = lg_state.free_interception;
    stats->patched_free_imports = lg_state.patched_free_imports;
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

int lg_install_preloaded(unsigned max_frames, char *error, size_t error_len) {
    return lg_install_mode(max_frames, LG_MODE_TRACK, error, error_len);
}

int lg_is_installed(void) { return 0; }

void lg_stats(lg_stats_t *stats) { *stats = (lg_stats_t){0}; }

#endif /* __linux__ */
