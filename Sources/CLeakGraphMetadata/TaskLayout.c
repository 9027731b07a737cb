// The layout of a Swift concurrency task (`AsyncTask`) that LeakGraph reads: where the task keeps the
// closure context it runs, and its status flags. Learned from swift/ABI/Task.h, TaskPrivate.h and
// Task.cpp (swift_task_create_commonImpl) and measured on Swift 6.3.1 x86_64 (docs/how-it-works.md,
// "Tasks"); used only when the runtime reports the layout it was measured on.
//
// One malloc block holds the task (`_swift_concurrency_debug_asyncTaskSize` bytes), its fragments
// (child, group child, future: wait queue, result type, error, result storage), the async context
// prefix and the initial async context. The prefix ends 16 bytes before the initial context with
// {closure context, error}; its closure context is the retained context of the function the task
// runs, released when that function returns (`completeTaskWithClosure`).

#include "CLeakGraphMetadata.h"

#include <dlfcn.h>

/// The task layout version this file was written for (`_swift_concurrency_debug_internal_layout_version`).
#define LG_TASK_LAYOUT_VERSION 1u
/// `sizeof(AsyncTask)` on 64-bit platforms for that version.
#define LG_TASK_SIZE 208u
/// JobFlags (32 bits at +32): the task is a child task (async let, task group).
#define LG_JOB_IS_CHILD (1u << 24)
/// JobFlags: the task has a future fragment (it produces a result).
#define LG_JOB_IS_FUTURE (1u << 25)
/// JobFlags: the task is a task group's child.
#define LG_JOB_IS_GROUP_CHILD (1u << 26)
/// JobFlags: the task is an async let's child.
#define LG_JOB_IS_ASYNC_LET (1u << 27)
/// Offset of the future fragment's fields: wait queue, result type, error (then the result).
#define LG_FUTURE_FRAGMENT_HEADER 24u

static int lg_task_layout_state;  // 0 unknown, 1 known, -1 unsupported

bool lg_task_layout_known(void) {
    int state = __atomic_load_n(&lg_task_layout_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        const unsigned *version = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_internal_layout_version");
        const size_t *size = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskSize");
        state = version != NULL && size != NULL && *version == LG_TASK_LAYOUT_VERSION &&
                        *size == LG_TASK_SIZE && sizeof(void *) == 8
                    ? 1
                    : -1;
        __atomic_store_n(&lg_task_layout_state, state, __ATOMIC_RELEASE);
    }
    return state == 1;
}

static size_t lg_align(size_t value, size_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

ptrdiff_t lg_task_closure_context_offset(const void *task) {
    if (!lg_task_layout_known()) return -1;
    const unsigned char *bytes = task;
    uint32_t job_flags = *(const uint32_t *)(bytes + 32);
    if ((job_flags & 0xFFu) != 0) return -1;  // not a task job
    if (job_flags & (LG_JOB_IS_CHILD | LG_JOB_IS_GROUP_CHILD | LG_JOB_IS_ASYNC_LET)) return -1;
    size_t header = LG_TASK_SIZE;
    if (job_flags & LG_JOB_IS_FUTURE) {
        const unsigned char *result_type = *(const unsigned char *const *)(bytes + header + 8);
        if (result_type == NULL) return -1;
        const unsigned char *witnesses = *(const unsigned char *const *)(result_type - 8);
        if (witnesses == NULL) return -1;
        size_t result_size = *(const size_t *)(witnesses + 64);
        size_t alignment = (*(const uint32_t *)(witnesses + 80) & 0xFFu) + 1;
        if (alignment < 8) alignment = 8;
        // The result's storage is aligned as the whole block is, past the fragment's three words.
        size_t storage = lg_align(header + LG_FUTURE_FRAGMENT_HEADER, alignment);
        header = storage + result_size + 32;  // FutureAsyncContextPrefix: 4 words
    } else {
        header += 24;  // AsyncContextPrefix: 3 words
    }
    header = lg_align(header, 16);
    return (ptrdiff_t)header - 16;
}

unsigned lg_async_stream_waiter_retains(bool throwing) {
    if (!lg_task_layout_known()) return 0;
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "$sSo19_SwiftStdlibVersionasE7currentABvgZ");
    if (version == NULL) return 0;
    uint32_t value = version();
    // Measured on 6.3.1, -Onone and -O clients alike (the code is libswift_Concurrency's):
    // `AsyncStream._Storage.next()` keeps two retains on its storage in the waiting task's async frames
    // (its `cancel` method value and the cancellation handler's copy of it) while the task is suspended
    // on its continuation; `AsyncThrowingStream._Storage.next()` keeps one.
    if ((value >> 16) != 6 || ((value >> 8) & 0xFF) != 3) return 0;
    return throwing ? 1 : 2;
}

uint32_t lg_task_status_flags(const void *task) {
    return __atomic_load_n((const uint32_t *)((const unsigned char *)task + 96), __ATOMIC_ACQUIRE);
}
