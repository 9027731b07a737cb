// See CLeakGraphCLISignals.h.
#include "CLeakGraphCLISignals.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static atomic_int lg_cli_child;

void lg_cli_forward_to(pid_t child) { atomic_store(&lg_cli_child, (int)child); }

/// Forwards the signal to the child unless the terminal sent it to the whole process group.
static void lg_cli_forward(int signal, siginfo_t *info, void *context) {
    (void)context;
    pid_t child = (pid_t)atomic_load(&lg_cli_child);
    if (child <= 0) return;
    if (info != NULL && info->si_code == SI_KERNEL) return;
    kill(child, signal);
}

int lg_cli_install_forwarding(int signal) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = lg_cli_forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(signal, &action, NULL);
}

void lg_cli_die_of(int signal) {
    fflush(NULL);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    struct sigaction fallback;
    memset(&fallback, 0, sizeof(fallback));
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(signal);
    _exit(128 + signal);
}
