// The periodic checks of `leakgraph run --every`: a thread that waits for the interval (from the end
// of one check to the start of the next) or for the check signal, then asks the checker library for
// one check (`LeakMonitor.checkNow()` there). The checker is loaded at the first check, not before:
// a program that is checked every ten minutes carries nothing of it for its first ten minutes.
//
// The check signal's handler only posts a semaphore (async-signal-safe). The thread unblocks the
// signal for itself, so a check signal sent to the process is taken even where the program blocks
// it in its own threads.
#include "PreloadInternal.h"
#include "CLeakGraphHook.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sem_t lg_wakeup;
static unsigned long lg_interval_ms;
static int lg_check_signal;
static atomic_int lg_stopping;
static atomic_int lg_running;
static pthread_t lg_thread;

int lg_monitor_check_signal(void) { return lg_check_signal; }

/// The check signal's handler: only `sem_post`. `errno` is kept.
static void lg_check_signal_handler(int signal) {
    (void)signal;
    int saved = errno;
    sem_post(&lg_wakeup);
    errno = saved;
}

/// Waits until the interval has passed or the semaphore is posted (the posts are drained).
static void lg_wait_for_check(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    unsigned long long nanoseconds = (unsigned long long)deadline.tv_nsec + (lg_interval_ms % 1000) * 1000000ull;
    deadline.tv_sec += (time_t)(lg_interval_ms / 1000 + nanoseconds / 1000000000ull);
    deadline.tv_nsec = (long)(nanoseconds % 1000000000ull);
    while (sem_timedwait(&lg_wakeup, &deadline) != 0) {
        if (errno == ETIMEDOUT) return;
    }
    while (sem_trywait(&lg_wakeup) == 0) {
    }
}

static void *lg_periodic_thread(void *unused) {
    (void)unused;
    if (lg_check_signal != 0) {
        sigset_t check;
        sigemptyset(&check);
        sigaddset(&check, lg_check_signal);
        pthread_sigmask(SIG_UNBLOCK, &check, NULL);
    }
    int warned = 0;
    for (;;) {
        lg_wait_for_check();
        if (atomic_load(&lg_stopping)) break;
        char error[512];
        unsigned long long load_nanoseconds = 0;
        const lg_checker *checker = lg_checker_load(error, sizeof error, &load_nanoseconds);
        if (checker == NULL) {
            if (!warned) {
                // Standard error, as the monitor's log goes there; once.
                char line[600];
                int length = snprintf(line, sizeof line, "LeakGraph: no periodic check can run: %s\n", error);
                if (length > 0) {
                    ssize_t ignored =
                        write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
                    (void)ignored;
                }
                warned = 1;
            }
            continue;
        }
        lg_checker_request request = lg_preload_request;
        request.load_nanoseconds = load_nanoseconds;
        checker->monitor_check(&request);
    }
    return NULL;
}

/// In a child made by `fork()` without `exec` the thread does not exist: no periodic checks there, and
/// nothing to stop at its exit.
static void lg_periodic_after_fork(void) { atomic_store(&lg_running, 0); }

void lg_monitor_start(unsigned long interval_ms, int check_signal) {
    if (interval_ms == 0 || sem_init(&lg_wakeup, 0, 0) != 0) return;
    pthread_atfork(NULL, NULL, lg_periodic_after_fork);
    lg_interval_ms = interval_ms;
    if (check_signal != 0) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = lg_check_signal_handler;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        lg_check_signal = sigaction(check_signal, &action, NULL) == 0 ? check_signal : 0;
    }
    // The thread takes no signal but the check signal (it unblocks that one itself): the others go to
    // the program's threads, as without LeakGraph. Faults stay deliverable, and SIGSYS, which the
    // holder scan may use to stop a thread that blocks its own signal.
    sigset_t all, previous;
    sigfillset(&all);
    int keep[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS};
    for (unsigned index = 0; index < sizeof(keep) / sizeof(keep[0]); index++)
        sigdelset(&all, keep[index]);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    if (pthread_create(&lg_thread, NULL, lg_periodic_thread, NULL) == 0) atomic_store(&lg_running, 1);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

void lg_monitor_stop(void) {
    if (!atomic_exchange(&lg_running, 0)) return;
    atomic_store(&lg_stopping, 1);
    sem_post(&lg_wakeup);
    if (pthread_equal(pthread_self(), lg_thread)) return;
    pthread_join(lg_thread, NULL);
}
