// In-process recording of tasks: the `swift_task_create` imports of the loaded modules are pointed at a
// wrapper that calls the concurrency runtime and records the task (`lg_task_created`), the way the
// `free` imports are pointed at `lg_free`. Under `leakgraph run` the preloaded library defines
// `swift_task_create` itself and nothing is patched.
//
// The program's own `Task { }` calls reach `swift_task_create` through its PLT, and so do Foundation's,
// XCTest's and swift-testing's. Tasks created inside libswift_Concurrency (it calls its own entry point
// directly) and by modules loaded later are not recorded: they stay invisible, which can hide a leak
// through them but never invents one.

#include "lg_internal.h"

#ifdef __linux__

#include <dlfcn.h>

/// The runtime's `swift_task_create`, found before the imports were patched.
static _Atomic(lg_task_create_fn) lg_next_task_create;

/// What the patched imports call: the runtime's `swift_task_create`, then the task is recorded.
__attribute__((swiftcall)) static lg_task_and_context
lg_task_create_hook(size_t flags, void *options, const void *result_type, void *closure_entry, void *closure_context) {
    lg_task_create_fn next = atomic_load_explicit(&lg_next_task_create, memory_order_acquire);
    lg_task_and_context created = next(flags, options, result_type, closure_entry, closure_context);
    lg_task_created(created.task, created.initial_context, closure_context, flags,
                    (uintptr_t)__builtin_frame_address(0));
    return created;
}

int lg_task_imports_patch(void) {
    if (atomic_load_explicit(&lg_next_task_create, memory_order_acquire) == NULL) {
        lg_task_create_fn next = (lg_task_create_fn)dlsym(RTLD_DEFAULT, "swift_task_create");
        if (next == NULL || (void *)next == (void *)lg_task_create_hook) {
            return 0;
        }
        atomic_store_explicit(&lg_next_task_create, next, memory_order_release);
    }
    int failed = 0;
    return lg_imports_patch("swift_task_create", (void *)lg_task_create_hook, &failed);
}

#endif /* __linux__ */
