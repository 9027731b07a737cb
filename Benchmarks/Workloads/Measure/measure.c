// measure: scripts/bench's stopwatch (not a workload). Runs one command and prints its wall time and
// peak resident set size, either of the whole process tree or of every process in it.
//
//   measure OUT -- COMMAND [ARG…]      wait4 mode: like `/usr/bin/time -f '%e %M'`
//   measure -t OUT -- COMMAND [ARG…]   trace mode: also one line per process
//
// OUT receives `wall SECONDS STATUS MAXRSS_KB`: the wall time from fork to the command's exit, its
// exit status (128+N for signal N), and wait4's ru_maxrss. On Linux that rusage is the largest peak of
// the command and of every descendant it waited for: max(CLI, child) for `leakgraph run`, which is not
// the checked program's own peak when the CLI is the larger one (see docs/performance.md).
//
// Trace mode gives each process's own peak: it follows forks, vforks and clones with ptrace
// (PTRACE_O_TRACEEXIT, no syscall tracing, so the traced programs run at full speed between events)
// and, at each thread's exit stop, before the kernel drops the process's memory, reads VmHWM from
// /proc/TID/status. It adds `proc PID HWM_KB EXE` lines, one per process (its last executable).
// Not for programs that ptrace themselves (LeakSanitizer does: use wait4 mode for them).
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCESSES 4096

struct process {
    pid_t pid;
    long hwm_kb;
    char exe[512];
};

static struct process processes[MAX_PROCESSES];
static int process_count;

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static struct process *process_for(pid_t pid) {
    for (int i = 0; i < process_count; i++) {
        if (processes[i].pid == pid) return &processes[i];
    }
    if (process_count == MAX_PROCESSES) return NULL;
    struct process *process = &processes[process_count++];
    process->pid = pid;
    process->hwm_kb = 0;
    process->exe[0] = 0;
    return process;
}

/// Reads the thread group and the memory high-water mark of `tid` while it is stopped at its exit.
static void record_exit(pid_t tid) {
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", tid);
    FILE *status = fopen(path, "r");
    if (!status) return;
    pid_t tgid = tid;
    long hwm = -1;
    while (fgets(line, sizeof(line), status)) {
        if (strncmp(line, "Tgid:", 5) == 0) tgid = (pid_t)atol(line + 5);
        if (strncmp(line, "VmHWM:", 6) == 0) hwm = atol(line + 6);
    }
    fclose(status);
    struct process *process = process_for(tgid);
    if (!process) return;
    if (hwm > process->hwm_kb) process->hwm_kb = hwm;
    snprintf(path, sizeof(path), "/proc/%d/exe", tid);
    ssize_t length = readlink(path, process->exe, sizeof(process->exe) - 1);
    if (length > 0) process->exe[length] = 0;
}

static int exit_code(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 255;
}

int main(int argc, char **argv) {
    int trace = 0, first = 1;
    if (argc > 1 && strcmp(argv[1], "-t") == 0) {
        trace = 1;
        first = 2;
    }
    if (argc < first + 3 || strcmp(argv[first + 1], "--") != 0) {
        fprintf(stderr, "usage: measure [-t] OUT -- COMMAND [ARG...]\n");
        return 64;
    }
    const char *out_path = argv[first];
    char **command = &argv[first + 2];

    double start = seconds_now();
    pid_t child = fork();
    if (child < 0) {
        perror("measure: fork");
        return 70;
    }
    if (child == 0) {
        if (trace) {
            ptrace(PTRACE_TRACEME, 0, NULL, NULL);
            raise(SIGSTOP);
        }
        execvp(command[0], command);
        fprintf(stderr, "measure: cannot run %s: %s\n", command[0], strerror(errno));
        _exit(127);
    }

    int status = 0, result = 255;
    struct rusage usage;
    memset(&usage, 0, sizeof(usage));
    if (!trace) {
        while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
        }
        result = exit_code(status);
    } else {
        if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status)) {
            perror("measure: waitpid");
            return 70;
        }
        long options =
            PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL;
        if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)options) < 0) {
            perror("measure: ptrace");
            return 70;
        }
        start = seconds_now();
        ptrace(PTRACE_CONT, child, NULL, NULL);
        for (;;) {
            struct rusage one;
            pid_t tid = wait4(-1, &status, __WALL, &one);
            if (tid < 0) {
                if (errno == EINTR) continue;
                break;  // ECHILD: every traced task is gone
            }
            if (WIFEXITED(status) || WIFSIGNALED(status)) {
                if (tid == child) {
                    result = exit_code(status);
                    usage = one;
                }
                continue;
            }
            if (!WIFSTOPPED(status)) continue;
            int signal = WSTOPSIG(status);
            int event = status >> 16;
            int deliver = 0;
            if (event == PTRACE_EVENT_EXIT) {
                record_exit(tid);
            } else if (event != 0) {
                // fork, vfork, clone: the new task is traced and starts with a SIGSTOP of its own
            } else if (signal == SIGSTOP) {
                // the first stop of a new task (or a real SIGSTOP, which a benchmark never sends)
            } else if (signal == SIGTRAP) {
                // exec with PTRACE_O_TRACEEXEC unset: the legacy SIGTRAP after execve
            } else {
                deliver = signal;
            }
            ptrace(PTRACE_CONT, tid, NULL, (void *)(long)deliver);
        }
    }
    double wall = seconds_now() - start;

    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 70;
    }
    fprintf(out, "wall %.3f %d %ld\n", wall, result, usage.ru_maxrss);
    for (int i = 0; i < process_count; i++) {
        fprintf(out, "proc %d %ld %s\n", processes[i].pid, processes[i].hwm_kb, processes[i].exe);
    }
    fclose(out);
    return 0;
}
