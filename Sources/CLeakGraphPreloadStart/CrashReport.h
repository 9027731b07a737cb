// Inside libLeakGraphPreload.so only: what is left when the program crashes (CrashReport.c).
#ifndef CLEAKGRAPH_CRASH_REPORT_H
#define CLEAKGRAPH_CRASH_REPORT_H

/// Installs the crash handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP on an
/// alternate signal stack (this thread's; a stack overflow on another thread is not caught), keeping
/// each previous action to chain to. It writes `<output_path>` + `LG_REPORT_CRASH_SUFFIX`.
void lg_crash_report_install(const char *output_path);

#endif
