// The crash handler: when the program crashes, no heap walk (the heap may be what is broken), only
// what can be written safely — the signal, the faulting thread's return addresses (read through
// `process_vm_readv`, which fails instead of faulting on a bad frame pointer), the hook's counters
// (atomic loads) and the memory map, each preformatted into a stack buffer and written with
// `write(2)`: every call here is async-signal-safe. Then the previous action runs: the Swift
// runtime's backtracer, the program's handler, or the default action, which ends the program.
#include "CrashReport.h"
#include "CLeakGraphContract.h"
#include "CLeakGraphHook.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

static const int lg_crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
enum { LG_CRASH_SIGNAL_COUNT = sizeof(lg_crash_signals) / sizeof(lg_crash_signals[0]) };
enum { LG_CRASH_FRAMES = 64 };

static struct sigaction lg_previous[LG_CRASH_SIGNAL_COUNT];
static char lg_crash_path[PATH_MAX + 16];
static char lg_crash_partial[PATH_MAX + 32];
static volatile sig_atomic_t lg_crashing;
static char lg_alternate_stack[64 * 1024];

/// A line being built in a fixed buffer.
typedef struct {
    char text[128];
    size_t length;
} lg_line;

static void lg_put(lg_line *line, const char *text) {
    while (*text && line->length < sizeof(line->text) - 1)
        line->text[line->length++] = *text++;
}

static void lg_put_decimal(lg_line *line, uint64_t value) {
    char digits[24];
    lg_contract_write_decimal((unsigned long)value, digits);
    lg_put(line, digits);
}

static void lg_put_hex(lg_line *line, uint64_t value) {
    lg_put(line, "0x");
    char digits[20];
    size_t count = 0;
    do {
        digits[count++] = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value != 0);
    while (count > 0 && line->length < sizeof(line->text) - 1)
        line->text[line->length++] = digits[--count];
}

static void lg_write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written <= 0) return;
        bytes += written;
        length -= (size_t)written;
    }
}

static void lg_emit(int fd, lg_line *line) {
    line->text[line->length++] = '\n';
    lg_write_all(fd, line->text, line->length);
    line->length = 0;
}

/// Reads one word at `address` without faulting; 0 when it cannot be read.
static int lg_read_word(uintptr_t address, uintptr_t *value) {
    struct iovec local = {value, sizeof(*value)};
    struct iovec remote = {(void *)address, sizeof(*value)};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(*value);
}

static void lg_crash_handler(int signal, siginfo_t *info, void *context) {
    int index = 0;
    while (index < LG_CRASH_SIGNAL_COUNT && lg_crash_signals[index] != signal)
        index++;
    if (!lg_crashing) {
        lg_crashing = 1;
        int fd = open(lg_crash_partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            lg_line line = {{0}, 0};
            lg_put(&line, "signal ");
            lg_put_decimal(&line, (uint64_t)signal);
            lg_emit(fd, &line);
            if (info != NULL && (signal == SIGSEGV || signal == SIGBUS)) {
                lg_put(&line, "address ");
                lg_put_hex(&line, (uint64_t)(uintptr_t)info->si_addr);
                lg_emit(fd, &line);
            }
#if defined(__x86_64__)
            if (context != NULL) {
                const ucontext_t *ucontext = (const ucontext_t *)context;
                uintptr_t pc = (uintptr_t)ucontext->uc_mcontext.gregs[REG_RIP];
                uintptr_t frame = (uintptr_t)ucontext->uc_mcontext.gregs[REG_RBP];
                lg_put(&line, "pc ");
                lg_put_hex(&line, pc);
                lg_emit(fd, &line);
                // Frame pointers: [rbp] is the caller's rbp, [rbp + 8] the return address.
                for (int count = 0; count < LG_CRASH_FRAMES && frame != 0 && (frame & 7) == 0; count++) {
                    uintptr_t next = 0, returnAddress = 0;
                    if (!lg_read_word(frame, &next) || !lg_read_word(frame + 8, &returnAddress)) break;
                    if (returnAddress == 0) break;
                    lg_put(&line, "frame ");
                    lg_put_hex(&line, returnAddress);
                    lg_emit(fd, &line);
                    if (next <= frame) break;
                    frame = next;
                }
            }
#endif
            lg_stats_t stats;
            lg_stats(&stats);
            lg_put(&line, "allocations ");
            lg_put_decimal(&line, stats.allocations);
            lg_emit(fd, &line);
            lg_put(&line, "records ");
            lg_put_decimal(&line, stats.records);
            lg_emit(fd, &line);
            lg_put(&line, "stacks ");
            lg_put_decimal(&line, stats.stacks);
            lg_emit(fd, &line);
            lg_put(&line, "maps");
            lg_emit(fd, &line);
            int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
            if (maps >= 0) {
                char buffer[4096];
                ssize_t count;
                while ((count = read(maps, buffer, sizeof(buffer))) > 0)
                    lg_write_all(fd, buffer, (size_t)count);
                close(maps);
            }
            close(fd);
            rename(lg_crash_partial, lg_crash_path);
        }
    }
    // Chain: the previous action takes over from here.
    if (index < LG_CRASH_SIGNAL_COUNT) {
        const struct sigaction *previous = &lg_previous[index];
        sigaction(signal, previous, NULL);
        if ((previous->sa_flags & SA_SIGINFO) != 0 && previous->sa_sigaction != NULL) {
            previous->sa_sigaction(signal, info, context);
            return;
        }
        if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
            previous->sa_handler(signal);
            return;
        }
    }
    // The default action: a fault made by the kernel happens again when the instruction is retried;
    // a signal that was sent (abort, kill) or a trap that moved past its instruction is raised again
    // (pending until this handler returns).
    if (info == NULL || info->si_code <= 0 || signal == SIGTRAP || signal == SIGABRT) raise(signal);
}

void lg_crash_report_install(const char *output_path) {
    size_t length = strlen(output_path);
    size_t suffix = strlen(LG_REPORT_CRASH_SUFFIX);
    if (length + suffix + sizeof(LG_REPORT_PARTIAL_SUFFIX) > sizeof(lg_crash_path)) return;
    memcpy(lg_crash_path, output_path, length);
    memcpy(lg_crash_path + length, LG_REPORT_CRASH_SUFFIX, suffix + 1);
    memcpy(lg_crash_partial, lg_crash_path, length + suffix);
    memcpy(lg_crash_partial + length + suffix, LG_REPORT_PARTIAL_SUFFIX, sizeof(LG_REPORT_PARTIAL_SUFFIX));
    stack_t alternate;
    memset(&alternate, 0, sizeof(alternate));
    alternate.ss_sp = lg_alternate_stack;
    alternate.ss_size = sizeof(lg_alternate_stack);
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE) != 0) sigaltstack(&alternate, NULL);
    for (int index = 0; index < LG_CRASH_SIGNAL_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = lg_crash_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(lg_crash_signals[index], &action, &lg_previous[index]) != 0) {
            lg_previous[index].sa_handler = SIG_DFL;
        }
    }
}
