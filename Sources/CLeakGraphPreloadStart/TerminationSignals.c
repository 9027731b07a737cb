// The final check when the program is told to stop. The handler only records the signal and posts a
// semaphore (both async-signal-safe) and returns: the interrupted thread may hold a lock the check
// needs (the hook's, malloc's), so the check runs on a thread of its own, like the monitor's checks
// while the program runs. That thread writes the report marked with the signal, then puts the
// default action back and raises the signal, so the program dies of it as it would have.
#include "TerminationSignals.h"
#include "PreloadInternal.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/// The signals that end a program by default and that people and supervisors send to stop one.
static const int lg_termination_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
enum { LG_TERMINATION_SIGNAL_COUNT = sizeof(lg_termination_signals) / sizeof(lg_termination_signals[0]) };

static atomic_int lg_final_check_claimed;
static atomic_int lg_received_signal;
static sem_t lg_signal_arrived;
/// Which of `lg_termination_signals` have our handler.
static int lg_installed[LG_TERMINATION_SIGNAL_COUNT];

int lg_final_check_claim(void) {
    int expected = 0;
    return atomic_compare_exchange_strong(&lg_final_check_claimed, &expected, 1);
}

/// Keeps the first signal and wakes the check thread; `errno` is kept.
static void lg_termination_handler(int signal) {
    int saved = errno;
    int expected = 0;
    atomic_compare_exchange_strong(&lg_received_signal, &expected, signal);
    sem_post(&lg_signal_arrived);
    errno = saved;
}

/// Waits for the first signal, runs the final check (unless the check at exit already runs), then
/// dies of the signal with its default action.
static void *lg_termination_thread(void *unused) {
    (void)unused;
    while (sem_wait(&lg_signal_arrived) != 0 && errno == EINTR) {
    }
    int signal = atomic_load(&lg_received_signal);
    if (lg_final_check_claim()) {
        lg_preload_final_check(128 + signal, signal);
    } else {
        // The program is exiting and the check at exit runs: it reports; the signal ends it after.
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof(fallback));
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    kill(getpid(), signal);
    for (;;)
        pause();
    return NULL;
}

/// In a child made by `fork()` without `exec`, the check thread does not exist: the signals get
/// their default action back there, so that they still end it.
static void lg_termination_signals_after_fork(void) {
    for (int index = 0; index < LG_TERMINATION_SIGNAL_COUNT; index++) {
        if (!lg_installed[index]) continue;
        struct sigaction current;
        if (sigaction(lg_termination_signals[index], NULL, &current) == 0 &&
            current.sa_handler == lg_termination_handler) {
            signal(lg_termination_signals[index], SIG_DFL);
        }
    }
}

void lg_termination_signals_install(void) {
    if (sem_init(&lg_signal_arrived, 0, 0) != 0) return;
    // The thread takes no signal itself: they go to the program's threads, as without LeakGraph.
    sigset_t all, previous;
    sigfillset(&all);
    // Faults stay deliverable: a blocked SIGSEGV in this thread would kill the process unreported.
    int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT};
    for (unsigned index = 0; index < sizeof(faults) / sizeof(faults[0]); index++)
        sigdelset(&all, faults[index]);
    // SIGSYS too: the orphan scan's holder scan stops a thread that blocks its realtime signal with a
    // SIGSYS sent to that thread alone (holder_scan.c); a thread it cannot stop makes it abstain.
    sigdelset(&all, SIGSYS);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    int started = pthread_create(&thread, NULL, lg_termination_thread, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (!started) return;
    pthread_detach(thread);
    for (int index = 0; index < LG_TERMINATION_SIGNAL_COUNT; index++) {
        struct sigaction current;
        if (sigaction(lg_termination_signals[index], NULL, &current) != 0) continue;
        // Only where the action is the default: an ignored signal stays ignored, a handler stays.
        if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = lg_termination_handler;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        lg_installed[index] = sigaction(lg_termination_signals[index], &action, NULL) == 0;
    }
    pthread_atfork(NULL, NULL, lg_termination_signals_after_fork);
}
