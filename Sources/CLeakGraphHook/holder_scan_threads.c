// Stopping every other thread for the holder scan, and resuming it (holder_scan.h).
//
// A realtime signal is sent to each thread in /proc/self/task; its handler runs on the thread's own
// stack (no SA_ONSTACK) and waits on a futex. On x86_64 the handler records where the thread was
// interrupted (its stack pointer) and its signal frame (the kernel's copy of the thread's registers):
// the scan reads the thread's general-purpose registers and the vector registers XSAVE wrote, and the
// stack from the red zone below the interrupted stack pointer up — every live frame — and nothing
// between: the handler's own frames and the gaps of the signal frame the kernel leaves unwritten hold
// stale words of dead frames, which would count as holders (a missed orphan; docs/how-it-works.md has
// the measurement). Elsewhere the handler records its own stack address and the stack is read from
// there up, registers and gaps included (conservative). libdispatch's worker threads block every
// signal but the synchronous ones (SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE): a
// thread whose mask (SigBlk in /proc/self/task/TID/status) blocks the realtime signal is sent SIGSYS
// instead, whose handler is chained: any SIGSYS that is not the scan's own request goes to the
// program's previous disposition. Threads neither signal can reach make the scan abstain: nothing is
// proven, so nothing is reported.

#include "holder_scan.h"

#ifdef __linux__

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <unistd.h>

/// How long the scan waits for every thread to stop before it abstains.
#define LG_SCAN_STOP_TIMEOUT_NS (2ull * 1000 * 1000 * 1000)
/// Milliseconds a stopped thread waits for the resume at most; a scan that lasts longer abstains.
#define LG_SCAN_WAIT_LIMIT 5000u
/// Bytes read per process_vm_readv call.
typedef struct lg_scan_thread {
    _Atomic int tid;
    _Atomic uint32_t generation;
    _Atomic int stopped;
    /// Where the scan reads the thread's stack from (0: the thread did not stop).
    _Atomic uintptr_t low;
    /// The thread's signal frame (`ucontext_t`) when its registers are read from it, else 0.
    _Atomic uintptr_t context;
} lg_scan_thread;

static lg_scan_thread *lg_scan_threads;
static _Atomic uint32_t lg_scan_generation;
static _Atomic uint32_t lg_scan_resumed;
/// The generation of the last scan a stopped thread left before it was resumed (it waited too long).
static _Atomic uint32_t lg_scan_left_early;
static _Atomic int lg_scan_signal;
static _Atomic int lg_scan_fallback_installed;
/// The program's SIGSYS disposition before the fallback handler was chained in front of it.
static struct sigaction lg_scan_previous_sys;

static long lg_futex(_Atomic uint32_t *word, int op, uint32_t value) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, NULL, NULL, 0);
}

uint64_t lg_scan_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/// The stop handler: only acts on the scan's own signal of the current generation; records where
/// this thread's stack begins (its registers are in the signal frame above) and waits for resume.
/// Hands a SIGSYS that is not the scan's own to the program's previous disposition.
static void lg_scan_forward_sys(int signal_number, siginfo_t *info, void *context) {
    struct sigaction *previous = &lg_scan_previous_sys;
    if ((previous->sa_flags & SA_SIGINFO) != 0 && previous->sa_sigaction != NULL &&
        (void *)previous->sa_sigaction != (void *)SIG_IGN && (void *)previous->sa_sigaction != (void *)SIG_DFL) {
        previous->sa_sigaction(signal_number, info, context);
    } else if ((previous->sa_flags & SA_SIGINFO) == 0 && previous->sa_handler != SIG_DFL &&
               previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signal_number);
    } else if (previous->sa_handler == SIG_DFL) {
        // The default action (terminate with a core dump): restore it and deliver the signal again,
        // once this handler returns and unblocks it.
        sigaction(signal_number, previous, NULL);
        syscall(SYS_tgkill, getpid(), (int)syscall(SYS_gettid), signal_number);
    }
}

static void lg_scan_handler(int signal_number, siginfo_t *info, void *context) {
    int saved_errno = errno;
    uint32_t generation = atomic_load_explicit(&lg_scan_generation, memory_order_acquire);
    bool from_scan = info != NULL && info->si_code == SI_TKILL && info->si_pid == getpid() && lg_scan_threads != NULL;
    int tid = (int)syscall(SYS_gettid);
    lg_scan_thread *slot = NULL;
    for (unsigned i = 0; from_scan && i < LG_SCAN_MAX_THREADS; i++) {
        int slot_tid = atomic_load_explicit(&lg_scan_threads[i].tid, memory_order_acquire);
        if (slot_tid == 0) {
            break;
        }
        if (slot_tid == tid) {
            slot = &lg_scan_threads[i];
            break;
        }
    }
    if (slot == NULL) {
        // Not a stop request of the scan: SIGSYS goes on to the program's disposition.
        if (signal_number == SIGSYS) {
            lg_scan_forward_sys(signal_number, info, context);
        }
        errno = saved_errno;
        return;
    }
    if (atomic_load_explicit(&slot->generation, memory_order_acquire) == generation &&
        atomic_load_explicit(&lg_scan_resumed, memory_order_acquire) != generation) {
        volatile uintptr_t marker = 0;
        uintptr_t low = (uintptr_t)&marker;
        uintptr_t frame = 0;
#if defined(__x86_64__)
        if (context != NULL) {
            // The interrupted frames begin at the stack pointer; a leaf function may keep live words in
            // the 128-byte red zone below it, which the kernel skipped when it built the signal frame.
            uintptr_t sp = (uintptr_t)((const ucontext_t *)context)->uc_mcontext.gregs[REG_RSP];
            if (sp > low + 128) {
                low = (sp - 128) & ~(uintptr_t)7;
                frame = (uintptr_t)context;
            }
        }
#endif
        atomic_store_explicit(&slot->context, frame, memory_order_relaxed);
        atomic_store_explicit(&slot->low, low, memory_order_relaxed);
        atomic_store_explicit(&slot->stopped, 1, memory_order_release);
        // Wait for the resume, comparing against the value just checked (no lost wake-up), in slices
        // of 10 ms and never longer than LG_SCAN_WAIT_LIMIT: a thread never stays stopped for good.
        // A thread that leaves before the resume says so, and that scan abstains.
        for (unsigned slices = 0;; slices++) {
            uint32_t seen = atomic_load_explicit(&lg_scan_resumed, memory_order_acquire);
            if (seen == generation) {
                break;
            }
            if (slices >= LG_SCAN_WAIT_LIMIT / 10) {
                atomic_store_explicit(&lg_scan_left_early, generation, memory_order_release);
                break;
            }
            struct timespec slice = {0, 10 * 1000 * 1000};
            syscall(SYS_futex, (uint32_t *)&lg_scan_resumed, FUTEX_WAIT_PRIVATE, seen, &slice, NULL, 0);
        }
    }
    // A request that arrives after its scan ended is dropped.
    errno = saved_errno;
}

/// Installs the stop handler once, for good (a signal still pending for a thread that did not stop
/// in time must never meet the default action, which ends the process). Returns the signal, or 0
/// when the program already handles it.
static int lg_scan_install(void) {
    int installed = atomic_load(&lg_scan_signal);
    if (installed != 0) {
        return installed;
    }
    if (lg_scan_threads == NULL) {
        void *slots = mmap(NULL, sizeof(lg_scan_thread) * LG_SCAN_MAX_THREADS, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (slots == MAP_FAILED) {
            return 0;
        }
        lg_scan_threads = slots;
    }
    int signal_number = SIGRTMAX - 6;
    struct sigaction previous;
    if (sigaction(signal_number, NULL, &previous) != 0 || previous.sa_handler != SIG_DFL) {
        return 0;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = lg_scan_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) {
        return 0;
    }
    atomic_store(&lg_scan_signal, signal_number);
    return signal_number;
}

int lg_scan_threads_prepare(void) { return lg_scan_install(); }

int lg_scan_thread_id(unsigned index) { return atomic_load(&lg_scan_threads[index].tid); }

/// Chains the handler in front of the program's SIGSYS disposition, once. Returns false when that
/// cannot be done.
static bool lg_scan_install_fallback(void) {
    if (atomic_load(&lg_scan_fallback_installed)) {
        return true;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = lg_scan_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(SIGSYS, NULL, &lg_scan_previous_sys) != 0 || sigaction(SIGSYS, &action, NULL) != 0) {
        return false;
    }
    atomic_store(&lg_scan_fallback_installed, 1);
    return true;
}

/// Whether thread `tid` blocks `signal_number` (SigBlk in /proc/self/task/TID/status). Unknown
/// counts as blocked.
static bool lg_scan_thread_blocks(int tid, int signal_number) {
    char path[64];
    const char *prefix = "/proc/self/task/";
    size_t used = strlen(prefix);
    memcpy(path, prefix, used);
    used += lg_contract_write_decimal((unsigned long)tid, path + used);
    memcpy(path + used, "/status", 8);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return true;
    }
    char buffer[4096];
    ssize_t got = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (got <= 0) {
        return true;
    }
    buffer[got] = 0;
    const char *line = strstr(buffer, "SigBlk:");
    if (line == NULL) {
        return true;
    }
    line += 7;
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    uint64_t mask = lg_scan_parse_hex(&line);
    return (mask >> (signal_number - 1)) & 1u;
}

/// Calls `visit` with every thread id of the process but the caller's. Raw getdents64: no malloc.
/// Returns false when /proc/self/task cannot be read.
static bool lg_scan_each_thread(int self, bool (*visit)(int tid, void *context), void *context) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    char buffer[4096] __attribute__((aligned(8)));
    bool ok = true;
    for (;;) {
        long length = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (length < 0) {
            ok = false;
            break;
        }
        if (length == 0) {
            break;
        }
        for (long offset = 0; offset < length;) {
            struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
            offset += entry->d_reclen;
            int tid = 0;
            const char *name = entry->d_name;
            if (*name < '0' || *name > '9') {
                continue;
            }
            for (; *name >= '0' && *name <= '9'; name++) {
                tid = tid * 10 + (*name - '0');
            }
            if (tid != self && !visit(tid, context)) {
                ok = false;
            }
        }
    }
    close(fd);
    return ok;
}

typedef struct lg_scan_threads_state {
    unsigned count;
    bool unknown;
} lg_scan_threads_state;

static bool lg_scan_add_thread(int tid, void *context) {
    lg_scan_threads_state *state = context;
    if (state->count >= LG_SCAN_MAX_THREADS - 1) {
        return false;
    }
    lg_scan_thread *slot = &lg_scan_threads[state->count++];
    atomic_store(&slot->stopped, 0);
    atomic_store(&slot->low, 0);
    atomic_store(&slot->context, 0);
    atomic_store(&slot->tid, tid);
    return true;
}

static bool lg_scan_check_thread(int tid, void *context) {
    lg_scan_threads_state *state = context;
    for (unsigned i = 0; i < state->count; i++) {
        if (atomic_load(&lg_scan_threads[i].tid) == tid) {
            return true;
        }
    }
    state->unknown = true;
    return true;
}

bool lg_scan_stop_threads(lg_scan_stop *stop) {
    int signal_number = atomic_load(&lg_scan_signal);
    pid_t pid = getpid();
    stop->self = (int)syscall(SYS_gettid);
    stop->generation = 0;
    stop->thread_count = 0;
    stop->started_ns = 0;
    memset(lg_scan_threads, 0, sizeof(lg_scan_thread) * LG_SCAN_MAX_THREADS);
    lg_scan_threads_state threads = {0, false};
    if (!lg_scan_each_thread(stop->self, lg_scan_add_thread, &threads)) {
        return false;  // nothing was stopped (generation 0: nothing to resume)
    }
    uint32_t generation = atomic_load(&lg_scan_generation) + 1;
    if (generation == 0) {
        generation = 1;
    }
    for (unsigned i = 0; i < threads.count; i++) {
        atomic_store(&lg_scan_threads[i].generation, generation);
    }
    atomic_store_explicit(&lg_scan_generation, generation, memory_order_release);
    stop->generation = generation;
    stop->thread_count = threads.count;
    stop->started_ns = lg_scan_now_ns();
    bool stopped = true;
    for (unsigned i = 0; i < threads.count; i++) {
        int tid = atomic_load(&lg_scan_threads[i].tid);
        int signal_for_thread = signal_number;
        if (lg_scan_thread_blocks(tid, signal_number)) {
            // A libdispatch worker: it leaves SIGSYS unblocked. A thread that blocks both may be in
            // glibc's start or exit path, where every signal is blocked for a moment: wait up to 50 ms
            // for it to be gone or to take a signal again.
            bool gone = false;
            for (int tries = 0; tries < 50; tries++) {
                if (syscall(SYS_tgkill, pid, tid, 0) != 0 && errno == ESRCH) {
                    gone = true;
                    break;
                }
                if (!lg_scan_thread_blocks(tid, signal_number) || !lg_scan_thread_blocks(tid, SIGSYS)) {
                    break;
                }
                struct timespec pause = {0, 1000 * 1000};
                nanosleep(&pause, NULL);
            }
            if (gone) {
                atomic_store(&lg_scan_threads[i].stopped, 2);
                continue;
            }
            if (lg_scan_thread_blocks(tid, signal_number)) {
                if (lg_scan_thread_blocks(tid, SIGSYS) || !lg_scan_install_fallback()) {
                    stopped = false;
                    break;
                }
                signal_for_thread = SIGSYS;
            }
        }
        if (syscall(SYS_tgkill, pid, tid, signal_for_thread) != 0) {
            atomic_store(&lg_scan_threads[i].stopped, errno == ESRCH ? 2 : 0);
            if (errno != ESRCH) {
                stopped = false;
            }
        }
    }
    while (stopped) {
        bool all = true;
        for (unsigned i = 0; i < threads.count; i++) {
            if (atomic_load_explicit(&lg_scan_threads[i].stopped, memory_order_acquire) == 0) {
                all = false;
                break;
            }
        }
        if (all) {
            break;
        }
        if (lg_scan_now_ns() - stop->started_ns > LG_SCAN_STOP_TIMEOUT_NS) {
            // A thread that exited meanwhile is no holder; any other did not stop.
            for (unsigned i = 0; i < threads.count; i++) {
                if (atomic_load(&lg_scan_threads[i].stopped) == 0 &&
                    !(syscall(SYS_tgkill, pid, atomic_load(&lg_scan_threads[i].tid), 0) != 0 && errno == ESRCH)) {
                    stopped = false;
                }
            }
            break;
        }
        struct timespec pause = {0, 20 * 1000};
        nanosleep(&pause, NULL);
    }
    return stopped;
}

bool lg_scan_threads_unchanged(const lg_scan_stop *stop) {
    lg_scan_threads_state check = {stop->thread_count, false};
    return lg_scan_each_thread(stop->self, lg_scan_check_thread, &check) && !check.unknown;
}

size_t lg_scan_thread_stacks(const lg_scan_stop *stop, uintptr_t *markers) {
    size_t count = 0;
    for (unsigned i = 0; i < stop->thread_count; i++) {
        uintptr_t low = atomic_load(&lg_scan_threads[i].low);
        if (low != 0) {
            markers[count++] = lg_scan_stack_start(atomic_load(&lg_scan_threads[i].tid), low);
        }
    }
    return count;
}

#if defined(__x86_64__)
/// Where XSAVE's standard format (the one of a signal frame) keeps user state component `i` (CPUID leaf
/// 0xD, sub-leaf `i`): its offset and size; 0 for a component this processor does not have.
static uint32_t lg_xstate_offset[64];
static uint32_t lg_xstate_size[64];
static _Atomic int lg_xstate_known;

static void lg_scan_read_xstate_layout(void) {
    if (atomic_load_explicit(&lg_xstate_known, memory_order_acquire)) {
        return;
    }
    for (unsigned component = 2; component < 64; component++) {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        // ECX bit 0: a supervisor component, never in a user signal frame.
        if (__get_cpuid_count(0xD, component, &eax, &ebx, &ecx, &edx) && eax != 0 && (ecx & 1) == 0) {
            lg_xstate_offset[component] = ebx;
            lg_xstate_size[component] = eax;
        }
    }
    atomic_store_explicit(&lg_xstate_known, 1, memory_order_release);
}

/// The most a signal frame on x86_64 can span from its context to the interrupted stack's red zone:
/// the context, `siginfo` and the XSAVE area (about 11 KiB with AMX tiles) and their alignment. A
/// frame whose saved pointers lead farther is one its thread has left: the registers cannot be read.
#define LG_SIGNAL_FRAME_LIMIT ((uintptr_t)64 * 1024)

/// The kernel's mark that a signal frame's FPU state is in XSAVE format (`fpx_sw_bytes.magic1`, in the
/// bytes 464–511 of the legacy area that the processor leaves to software).
#define LG_FP_XSTATE_MAGIC1 0x46505853u

static void lg_scan_visit_aligned(uintptr_t start, uintptr_t end, lg_scan_range_visitor visit, void *context) {
    visit(start & ~(uintptr_t)7, (end + 7) & ~(uintptr_t)7, context);
}
#endif

bool lg_scan_thread_registers(const lg_scan_stop *stop, lg_scan_range_visitor visit, void *visit_context) {
#if defined(__x86_64__)
    lg_scan_read_xstate_layout();
    for (unsigned i = 0; i < stop->thread_count; i++) {
        uintptr_t frame = atomic_load(&lg_scan_threads[i].context);
        if (frame == 0 || atomic_load(&lg_scan_threads[i].low) == 0) {
            continue;
        }
        // Copied with process_vm_readv, never dereferenced: a thread that waited too long has left its
        // handler (that scan abstains), and its frame may hold anything by now.
        ucontext_t context;
        if (lg_read_memory(frame, &context, sizeof context) != sizeof context) {
            return false;  // its registers cannot be read: the scan abstains
        }
        // Every general-purpose register at the interruption.
        uintptr_t registers = frame + offsetof(ucontext_t, uc_mcontext.gregs);
        lg_scan_visit_aligned(registers, registers + sizeof(gregset_t), visit, visit_context);
        uintptr_t state = (uintptr_t)context.uc_mcontext.fpregs;
        if (state == 0) {
            continue;
        }
        // The kernel puts the FPU state in the same signal frame, just above the context: a pointer
        // elsewhere is a frame the thread has left (anything may be written there by now).
        if (state <= frame || state - frame > LG_SIGNAL_FRAME_LIMIT) {
            return false;
        }
        // The legacy area: x87/MMX registers at 32, XMM0–15 at 160 (to 416); then, with XSAVE, the
        // software bytes at 464 (magic, features, size) and the header's XSTATE_BV at 512 say which
        // components were written (a clear bit: the component is in its initial state, all zeros, and
        // its bytes in the frame are not the thread's).
        unsigned char header[520];
        if (lg_read_memory(state, header, sizeof header) != sizeof header) {
            // Unreadable: the whole signal frame up to the red zone, as a conservative read.
            uintptr_t red_zone = ((uintptr_t)context.uc_mcontext.gregs[REG_RSP] - 128) & ~(uintptr_t)7;
            if (red_zone <= frame || red_zone - frame > LG_SIGNAL_FRAME_LIMIT) {
                return false;  // no signal frame of this thread ends there: the scan abstains
            }
            lg_scan_visit_aligned(frame, red_zone, visit, visit_context);
            continue;
        }
        uint32_t magic, size;
        uint64_t features, written;
        memcpy(&magic, header + 464, sizeof magic);
        if (magic != LG_FP_XSTATE_MAGIC1) {
            lg_scan_visit_aligned(state + 32, state + 416, visit, visit_context);
            continue;
        }
        memcpy(&features, header + 464 + 8, sizeof features);
        memcpy(&size, header + 464 + 16, sizeof size);
        if (size > LG_SIGNAL_FRAME_LIMIT) {
            return false;  // no XSAVE area is that large: not the frame the kernel wrote
        }
        memcpy(&written, header + 512, sizeof written);
        written &= features;
        if ((written & 1) != 0) {
            lg_scan_visit_aligned(state + 32, state + 160, visit, visit_context);
        }
        if ((written & 2) != 0) {
            lg_scan_visit_aligned(state + 160, state + 416, visit, visit_context);
        }
        for (unsigned component = 2; component < 64; component++) {
            uint32_t offset = lg_xstate_offset[component];
            uint32_t length = lg_xstate_size[component];
            if ((written >> component & 1) != 0 && length != 0 && offset >= 576 && offset + length <= size) {
                lg_scan_visit_aligned(state + offset, state + offset + length, visit, visit_context);
            }
        }
    }
#else
    (void)stop, (void)visit, (void)visit_context;  // the stacks are read from the handlers' frames up
#endif
    return true;
}

bool lg_scan_resume_threads(const lg_scan_stop *stop) {
    if (stop->generation == 0) {
        return true;
    }
    // A thread that ran again before the scan ended makes what was read meaningless.
    bool complete = atomic_load_explicit(&lg_scan_left_early, memory_order_acquire) != stop->generation;
    atomic_store_explicit(&lg_scan_resumed, stop->generation, memory_order_release);
    lg_futex(&lg_scan_resumed, FUTEX_WAKE_PRIVATE, INT32_MAX);
    return complete;
}

#endif /* __linux__ */
