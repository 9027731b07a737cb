// Runs inside the checked program. Written in C because it must run before `main`, before any
// Swift code of the program, and must not allocate Swift objects before the hook is in place — and
// so that a program pays for the hook alone until a check runs: the checker (Swift, Foundation,
// libdw) is loaded then (CheckerLibrary.c). What it reads and writes is the preload contract
// (CLeakGraphContract.h).
#include <dlfcn.h>
#include "CLeakGraphPreloadStart.h"
#include "CLeakGraphContract.h"
#include "CLeakGraphHook.h"
#include "TerminationSignals.h"
#include "CrashReport.h"
#include "PreloadInternal.h"
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LG_STRINGIFY(x) #x
#define LG_NUMBER_TEXT(x) LG_STRINGIFY(x)

static char lg_output_path[PATH_MAX];
/// With LG_ENV_FOLLOW: the directory each process writes its own report into (empty otherwise).
static char lg_follow_directory[PATH_MAX - 64];
static char lg_program_path[PATH_MAX];
static char lg_why[1024];
/// LG_ENV_HISTORY, kept because the environment is restored before the hook is installed.
static char lg_history[4096];
static char lg_monitor_directory[PATH_MAX];
static char lg_snapshot_path[PATH_MAX];
static char lg_monitor_snapshot_directory[PATH_MAX];
static unsigned long lg_monitor_signal = LG_MONITOR_SIGNAL_DEFAULT;

lg_checker_request lg_preload_request = {
    .output_path = lg_output_path,
    .program_path = lg_program_path,
    .why = lg_why,
    .orphan_scan = 1,
    .monitor_directory = lg_monitor_directory,
    .snapshot_path = lg_snapshot_path,
    .monitor_snapshot_directory = lg_monitor_snapshot_directory,
};

const char *lg_preload_output_path(void) { return lg_output_path[0] ? lg_output_path : NULL; }

/// Reads the monitor's settings (`LG_ENV_MONITOR_*`); invalid values leave the monitor off (interval)
/// or the default signal.
static void lg_read_monitor_request(void) {
    unsigned long value = 0;
    if (!lg_contract_parse_number(getenv(LG_ENV_MONITOR_INTERVAL), LG_MONITOR_INTERVAL_LIMIT, &value) || value == 0) {
        return;
    }
    lg_preload_request.monitor_interval_ms = value;
    const char *directory = getenv(LG_ENV_MONITOR_DIRECTORY);
    if (directory && strlen(directory) < sizeof(lg_monitor_directory)) strcpy(lg_monitor_directory, directory);
    const char *snapshots = getenv(LG_ENV_MONITOR_SNAPSHOT_DIRECTORY);
    if (snapshots && strlen(snapshots) < sizeof(lg_monitor_snapshot_directory))
        strcpy(lg_monitor_snapshot_directory, snapshots);
    if (lg_contract_parse_number(getenv(LG_ENV_MONITOR_SIGNAL), 64, &value)) lg_monitor_signal = value;
}

void lg_preload_write_beside_output(const char *suffix, const char *message) {
    char path[PATH_MAX + 16];
    size_t length = strlen(lg_output_path);
    size_t suffix_length = strlen(suffix);
    if (length + suffix_length + 1 > sizeof(path)) return;
    memcpy(path, lg_output_path, length);
    memcpy(path + length, suffix, suffix_length + 1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t ignored = write(fd, message, strlen(message));
    (void)ignored;
    close(fd);
}

/// Restores the environment the program would have had without `leakgraph run`, so that programs it
/// starts are neither tracked nor write over this program's report.
static void lg_restore_environment(void) {
    const char *original = getenv(LG_ENV_ORIGINAL_LD_PRELOAD);
    if (original) {
        setenv("LD_PRELOAD", original, 1);
    } else {
        unsetenv("LD_PRELOAD");
    }
    unsetenv(LG_ENV_ORIGINAL_LD_PRELOAD);
    unsetenv(LG_ENV_OUTPUT);
    unsetenv(LG_ENV_FRAMES);
    unsetenv(LG_ENV_PROGRAM);
    unsetenv(LG_ENV_RENDER);
    unsetenv(LG_ENV_ALLOCATIONS);
    unsetenv(LG_ENV_MONITOR_INTERVAL);
    unsetenv(LG_ENV_TEST_OBSERVER);
    unsetenv(LG_ENV_MONITOR_DIRECTORY);
    unsetenv(LG_ENV_MONITOR_SIGNAL);
    unsetenv(LG_ENV_MONITOR_SNAPSHOT_DIRECTORY);
    unsetenv(LG_ENV_SNAPSHOT);
    unsetenv(LG_ENV_PARENT_PID);
    unsetenv(LG_ENV_HISTORY);
    unsetenv(LG_ENV_VERBOSE);
}

/// Dies with `leakgraph run`: the program it started itself asks for SIGTERM when its parent dies,
/// and ends at once if that parent is already gone (its parent is then another process).
static void lg_die_with_leakgraph(void) {
    unsigned long parent = 0;
    if (!lg_contract_parse_number(getenv(LG_ENV_PARENT_PID), 4194304, &parent) || parent == 0) return;
    if ((unsigned long)getppid() != parent) return;  // a grandchild (a followed script's program)
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((unsigned long)getppid() != parent) raise(SIGTERM);
}

/// Interposes `free` for the whole program: the Swift runtime's deallocation ends here, and so do
/// the plain `free()`s with which CoreFoundation and compiler helpers release some Swift objects.
/// `lg_free` drops a tracked object's record before freeing it (so no record names reused memory)
/// and passes everything else to glibc after one lookup.
void free(void *pointer) {
    if (pointer != NULL) lg_free(pointer);
}

/// Interposes the concurrency runtime's `swift_task_create`, which the program calls (through its PLT)
/// for every `Task { }`, `Task.detached`, task-group child and `async let`: tasks are allocated with
/// `malloc`, never through `_swift_allocObject`, so this is how the hook learns of them
/// (`lg_task_created`). Calls inside libswift_Concurrency itself do not come here; those tasks stay
/// untracked, which hides leaks through them but never invents one.
__attribute__((swiftcall)) lg_task_and_context swift_task_create(size_t flags, void *options, const void *result_type,
                                                                 void *closure_entry, void *closure_context) {
    static lg_task_create_fn next;
    lg_task_create_fn real = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (real == NULL) {
        real = (lg_task_create_fn)dlsym(RTLD_NEXT, "swift_task_create");
        __atomic_store_n(&next, real, __ATOMIC_RELEASE);
    }
    lg_task_and_context created = real(flags, options, result_type, closure_entry, closure_context);
    lg_task_created(created.task, created.initial_context, closure_context, flags,
                    (uintptr_t)__builtin_frame_address(0));
    return created;
}

/// With LG_ENV_FOLLOW: points `lg_output_path` at this process's report in the follow directory,
/// `<dir>/process-<pid>.json`, from the pid now (a forked child has its own).
static void lg_follow_output_path(void) {
    size_t length = strlen(lg_follow_directory);
    memcpy(lg_output_path, lg_follow_directory, length);
    static const char prefix[] = "/" LG_FOLLOW_REPORT_PREFIX;
    memcpy(lg_output_path + length, prefix, sizeof(prefix) - 1);
    length += sizeof(prefix) - 1;
    length += lg_contract_write_decimal((unsigned long)getpid(), lg_output_path + length);
    memcpy(lg_output_path + length, ".json", sizeof(".json"));
}

/// `dl_iterate_phdr` callback: sets `*found` when the first object (the main program) lists
/// libswiftCore.so among its `DT_NEEDED` libraries, then stops.
static int lg_main_needs_swift(struct dl_phdr_info *info, size_t size, void *found) {
    (void)size;
    const ElfW(Dyn) *dynamic = NULL;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        if (info->dlpi_phdr[index].p_type == PT_DYNAMIC) {
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[index].p_vaddr);
        }
    }
    if (dynamic == NULL) return 1;
    const char *strings = NULL;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_STRTAB) {
            ElfW(Addr) address = entry->d_un.d_ptr;
            strings = (const char *)(address < info->dlpi_addr ? address + info->dlpi_addr : address);
        }
    }
    if (strings == NULL) return 1;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_NEEDED && strcmp(strings + entry->d_un.d_val, "libswiftCore.so") == 0) {
            *(int *)found = 1;
        }
    }
    return 1;
}

/// Whether the main program uses the Swift runtime itself (the preload library loads it into every
/// process, so a loaded runtime says nothing): with LG_ENV_FOLLOW, the shell running a script and
/// the tools it starts are left alone.
static int lg_main_program_uses_swift(void) {
    int found = 0;
    dl_iterate_phdr(lg_main_needs_swift, &found);
    return found;
}

void lg_preload_final_check(int exit_status, int signal) {
    lg_monitor_stop();
    if (lg_follow_directory[0]) lg_follow_output_path();
    char error[512];
    unsigned long long load_nanoseconds = 0;
    const lg_checker *checker = lg_checker_load(error, sizeof error, &load_nanoseconds);
    if (checker == NULL) {
        lg_preload_write_beside_output(LG_REPORT_ERROR_SUFFIX, error);
        return;
    }
    lg_checker_request request = lg_preload_request;
    request.load_nanoseconds = load_nanoseconds;
    checker->check(&request, exit_status, signal);
}

/// Registered with `on_exit` (not `atexit`) for the status the program passes to `exit`, which the
/// report and its text name; `leakgraph run` checks it against the status it sees.
static void lg_preload_at_exit(int status, void *unused) {
    (void)unused;
    if (!lg_output_path[0]) return;
    if (!lg_final_check_claim()) {
        // A terminating signal's check runs: it writes the report, then the signal ends the program.
        for (;;)
            pause();
    }
    lg_preload_final_check(status & 0xff, 0);
}

/// Set by the constructor once the hook is installed: the wrapped `main` registers the exit check.
static int lg_exit_check_wanted;

typedef int (*lg_main_fn)(int argc, char **argv, char **environment);
typedef int (*lg_libc_start_main_fn)(lg_main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                                     void (*rtld_fini)(void), void *stack_end);
/// The program's own `main`.
static lg_main_fn lg_program_main;

/// Runs the program's `main` after registering the exit check. Registered here, not in the constructor:
/// exit handlers run last-registered first, and `__libc_start_main` registers the dynamic linker's
/// finalizer (`_dl_fini`, every library's destructors) before it calls `main` but after the
/// constructors ran. Registered in the constructor, the check would run after every library was
/// finalized — and loading the checker library then would initialize the Swift runtime a second time.
static int lg_main_with_exit_check(int argc, char **argv, char **environment) {
    if (lg_exit_check_wanted) on_exit(lg_preload_at_exit, NULL);
    return lg_program_main(argc, argv, environment);
}

/// Interposes glibc's `__libc_start_main`, which the program's `_start` calls, to wrap `main`
/// (`lg_main_with_exit_check`). A program linked against a glibc older than 2.34 passes its own
/// `init` and `fini` and expects the old entry point, which runs them; newer ones pass NULL.
int __libc_start_main(lg_main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end) {
    lg_libc_start_main_fn real = NULL;
    if (init != NULL) real = (lg_libc_start_main_fn)dlvsym(RTLD_NEXT, "__libc_start_main", "GLIBC_2.2.5");
    if (real == NULL) real = (lg_libc_start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    lg_program_main = main;
    return real(lg_main_with_exit_check, argc, argv, init, fini, rtld_fini, stack_end);
}

/// Keeps what the CLI asked to render and the program path, read now because the environment is
/// restored before `main`.
static void lg_read_render_request(void) {
    const char *program = getenv(LG_ENV_PROGRAM);
    if (program && strlen(program) < sizeof(lg_program_path)) strcpy(lg_program_path, program);
    lg_preload_request.render = lg_contract_parse_render(getenv(LG_ENV_RENDER));
    const char *live_types = getenv(LG_ENV_LIVE_TYPES);
    lg_preload_request.live_types = live_types != NULL && strcmp(live_types, "1") == 0;
    const char *orphan_scan = getenv(LG_ENV_ORPHAN_SCAN);
    lg_preload_request.orphan_scan = orphan_scan == NULL || strcmp(orphan_scan, "0") != 0;
    const char *verbose = getenv(LG_ENV_VERBOSE);
    lg_preload_request.verbose = verbose != NULL && strcmp(verbose, "1") == 0;
    const char *allocations = getenv(LG_ENV_ALLOCATIONS);
    lg_preload_request.allocations = allocations != NULL && strcmp(allocations, "1") == 0;
    const char *why = getenv(LG_ENV_WHY);
    if (why && strlen(why) < sizeof(lg_why)) strcpy(lg_why, why);
    const char *history = getenv(LG_ENV_HISTORY);
    if (history && strlen(history) < sizeof(lg_history)) strcpy(lg_history, history);
    const char *snapshot = getenv(LG_ENV_SNAPSHOT);
    if (snapshot && strlen(snapshot) < sizeof(lg_snapshot_path)) strcpy(lg_snapshot_path, snapshot);
    lg_read_monitor_request();
    lg_preload_read_test_observer_request();
}

/// Unblocks, in this thread, the signals `leakgraph run` held until the handlers were installed
/// (`LG_ENV_HELD_SIGNALS`, read and removed before): one sent meanwhile is taken now.
static void lg_release_held_signals(unsigned long held) {
    if (held == 0) return;
    sigset_t released;
    sigemptyset(&released);
    for (int signal = 1; signal <= LG_HELD_SIGNAL_LIMIT; signal++) {
        if (held & (1ul << (signal - 1))) sigaddset(&released, signal);
    }
    pthread_sigmask(SIG_UNBLOCK, &released, NULL);
}

/// Reads and removes a signal bitmask variable (`LG_ENV_HELD_SIGNALS`, `LG_ENV_IGNORED_SIGNALS`).
static unsigned long lg_take_signal_mask(const char *name) {
    unsigned long mask = 0;
    if (!lg_contract_parse_number(getenv(name), (1ul << LG_HELD_SIGNAL_LIMIT) - 1, &mask)) mask = 0;
    unsetenv(name);
    return mask;
}

static void lg_preload_start_checking(void);

__attribute__((constructor)) static void lg_preload_start(void) {
    unsigned long held = lg_take_signal_mask(LG_ENV_HELD_SIGNALS);
    unsigned long ignored = lg_take_signal_mask(LG_ENV_IGNORED_SIGNALS);
    // Ignored before anything looks at them: the termination handlers are then not installed there.
    for (int signal = 1; signal <= LG_HELD_SIGNAL_LIMIT; signal++) {
        if (ignored & (1ul << (signal - 1))) {
            struct sigaction ignore;
            memset(&ignore, 0, sizeof(ignore));
            ignore.sa_handler = SIG_IGN;
            sigemptyset(&ignore.sa_mask);
            sigaction(signal, &ignore, NULL);
        }
    }
    lg_preload_start_checking();
    lg_release_held_signals(held);
}

/// Everything the constructor does but the held signals: reads the request, installs the hook, the
/// signal handlers and the periodic checks (an early return leaves the program unchecked).
static void lg_preload_start_checking(void) {
    const char *output = getenv(LG_ENV_OUTPUT);
    if (!output || !*output || strlen(output) >= sizeof(lg_output_path)) return;
    lg_die_with_leakgraph();
    const char *follow = getenv(LG_ENV_FOLLOW);
    if (follow && strcmp(follow, "1") == 0) {
        if (strlen(output) >= sizeof(lg_follow_directory)) return;
        strcpy(lg_follow_directory, output);
        lg_follow_output_path();
        ssize_t length = readlink("/proc/self/exe", lg_program_path, sizeof(lg_program_path) - 1);
        lg_program_path[length > 0 ? length : 0] = 0;
    } else {
        strcpy(lg_output_path, output);
    }
    unsigned frames = LG_FRAMES_DEFAULT;
    const char *frames_text = getenv(LG_ENV_FRAMES);
    if (frames_text && !lg_contract_parse_frames(frames_text, &frames)) {
        // One message, built without stdio (this runs before `main`): the rule, then the value.
        static const char rule[] =
            LG_ENV_FRAMES " must be a whole number of frames from 0 to " LG_NUMBER_TEXT(LG_FRAMES_LIMIT) ", not '";
        char message[sizeof(rule) + 64 + 2];
        size_t used = sizeof(rule) - 1;
        memcpy(message, rule, used);
        for (const char *c = frames_text; *c && used < sizeof(message) - 2; c++)
            message[used++] = *c;
        message[used++] = '\'';
        message[used] = 0;
        lg_preload_write_beside_output(LG_REPORT_ERROR_SUFFIX, message);
        lg_restore_environment();
        lg_output_path[0] = 0;
        return;
    }
    lg_read_render_request();
    // Followed children keep the environment, so that they are checked too.
    if (!lg_follow_directory[0]) lg_restore_environment();
    if (lg_follow_directory[0] && !lg_main_program_uses_swift()) {
        // Not a Swift program (the shell running the script, the tools it starts): nothing to check.
        lg_output_path[0] = 0;
        return;
    }
    char error[512] = {0};
    if (lg_install_preloaded(frames, error, sizeof(error)) != 0) {
        lg_preload_write_beside_output(LG_REPORT_ERROR_SUFFIX,
                                       error[0] ? error : "the allocation hook could not be installed");
        lg_output_path[0] = 0;
        return;
    }
    if (lg_history[0] && lg_history_start(lg_history, error, sizeof(error)) != 0) {
        lg_preload_write_beside_output(LG_REPORT_ERROR_SUFFIX, error);
        lg_output_path[0] = 0;
        return;
    }
    lg_preload_start_test_observer();
    lg_preload_request.tests_observed = lg_preload_tests_observed();
    // The profile counts from the first allocation on (before main): nothing made is missed.
    if (lg_preload_request.allocations && !lg_count_profile_start()) lg_preload_request.allocations = 0;
    lg_exit_check_wanted = 1;
    lg_termination_signals_install();
    lg_crash_report_install(lg_output_path);
    lg_monitor_start(lg_preload_request.monitor_interval_ms, (int)lg_monitor_signal);
}
