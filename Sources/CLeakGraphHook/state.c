// The one owner of CLeakGraphHook's state: `lg_state` and the thread-local variables. Every other
// file reads and writes its own part of this struct (see lg_internal.h for which layer owns what).

#include "lg_internal.h"

#ifdef __linux__

lg_state_t lg_state = {
    .max_frames = LG_DEFAULT_MAX_FRAMES,
    .next_free = __libc_free,
    .granule_shift = 4,
    .install_mutex = PTHREAD_MUTEX_INITIALIZER,
    .scope_mutex = PTHREAD_MUTEX_INITIALIZER,
    .scope_ids = {1},
    .stacks = {.mutex = PTHREAD_MUTEX_INITIALIZER},
};

__thread unsigned lg_tls_ignore __attribute__((tls_model("initial-exec")));
__thread lg_thread *lg_tls_thread __attribute__((tls_model("initial-exec")));
__thread unsigned lg_tls_freeze_depth __attribute__((tls_model("initial-exec")));
__thread bool lg_tls_holds_freeze __attribute__((tls_model("initial-exec")));

#endif /* __linux__ */
