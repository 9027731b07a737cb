// Runs inside the checked program. Written in C because it must run before `main`, before any
// Swift code of the program, and must not allocate Swift objects before the hook is in place.
#include "CLeakGraphPreloadStart.h"
#include "CLeakGraphHook.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// Implemented in Swift (LeakGraphPreload): walks the heap, analyses it and writes the report.
extern void leakgraph_preload_check(const char *output_path);

static char lg_output_path[PATH_MAX];

const char *lg_preload_output_path(void) { return lg_output_path[0] ? lg_output_path : NULL; }

/// Writes `message` to `<output>.error` so that `leakgraph run` can report why nothing was checked.
static void lg_write_error(const char *message) {
    char path[PATH_MAX + 8];
    size_t length = strlen(lg_output_path);
    if (length + 7 >= sizeof(path)) return;
    memcpy(path, lg_output_path, length);
    memcpy(path + length, ".error", 7);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t ignored = write(fd, message, strlen(message));
    (void)ignored;
    close(fd);
}

/// Restores the environment the program would have had without `leakgraph run`, so that programs it
/// starts are neither tracked nor write over this program's report.
static void lg_restore_environment(void) {
    const char *original = getenv("LEAKGRAPH_ORIGINAL_LD_PRELOAD");
    if (original) {
        setenv("LD_PRELOAD", original, 1);
    } else {
        unsetenv("LD_PRELOAD");
    }
    unsetenv("LEAKGRAPH_ORIGINAL_LD_PRELOAD");
    unsetenv("LEAKGRAPH_OUTPUT");
    unsetenv("LEAKGRAPH_FRAMES");
}

extern void __libc_free(void *pointer);

/// Interposes `free` for the whole program: a tracked Swift object freed with plain `free()` (not
/// through the runtime's release, e.g. by CoreFoundation) is deferred until LeakGraph drops its
/// record, so the tracker never reads memory that was handed out again. Everything else goes
/// straight to glibc.
void free(void *pointer) {
    if (pointer != NULL && lg_free_intercept(pointer)) {
        return;
    }
    __libc_free(pointer);
}

static void lg_preload_at_exit(void) {
    if (lg_output_path[0]) leakgraph_preload_check(lg_output_path);
}

__attribute__((constructor)) static void lg_preload_start(void) {
    const char *output = getenv("LEAKGRAPH_OUTPUT");
    if (!output || !*output || strlen(output) >= sizeof(lg_output_path)) return;
    strcpy(lg_output_path, output);
    unsigned frames = LG_DEFAULT_MAX_FRAMES;
    const char *frames_text = getenv("LEAKGRAPH_FRAMES");
    if (frames_text && *frames_text) {
        char *end = NULL;
        unsigned long value = strtoul(frames_text, &end, 10);
        if (end && *end == 0 && value <= LG_MAX_FRAMES_LIMIT) frames = (unsigned)value;
    }
    lg_restore_environment();
    char error[512] = {0};
    if (lg_install(frames, error, sizeof(error)) != 0) {
        lg_write_error(error[0] ? error : "the allocation hook could not be installed");
        lg_output_path[0] = 0;
        return;
    }
    atexit(lg_preload_at_exit);
}
