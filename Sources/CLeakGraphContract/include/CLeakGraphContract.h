// The contract between `leakgraph run` (the CLI, Swift) and `libLeakGraphPreload.so` (C constructor
// and Swift exit check) running inside the checked program: environment variable names, the files
// the library leaves beside the report path, and the frame-count limits. Spelled once, here; Swift
// imports the string and integer macros as constants (`LG_ENV_OUTPUT` is a `String`).
#ifndef CLEAKGRAPH_CONTRACT_H
#define CLEAKGRAPH_CONTRACT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Where the preload library writes the JSON report when the program exits (an absolute path).
#define LG_ENV_OUTPUT "LEAKGRAPH_OUTPUT"
/// How many creation-stack frames to record per object: a decimal integer in
/// 0...LG_FRAMES_LIMIT. Any other value is an error written to `<output>.error`.
#define LG_ENV_FRAMES "LEAKGRAPH_FRAMES"
/// The `LD_PRELOAD` the program had before `leakgraph run` prepended the library; absent when it
/// had none. The constructor restores it so that programs the checked one starts are not checked.
#define LG_ENV_ORIGINAL_LD_PRELOAD "LEAKGRAPH_ORIGINAL_LD_PRELOAD"
/// Overrides where the CLI looks for the preload library (read by the CLI only).
#define LG_ENV_PRELOAD_LIBRARY "LEAKGRAPH_PRELOAD_LIBRARY"
/// The program's path as the report names it (`program.path`): what `leakgraph run` resolved and
/// started. Absent: the report names no path.
#define LG_ENV_PROGRAM "LEAKGRAPH_PROGRAM"
/// What the library writes at exit, so that the CLI need not decode the report: a comma-separated
/// list of the words below. Unknown words are ignored. Absent, or no known word: the JSON report
/// alone, compact, at `<output>` (the CLI decodes it). Otherwise exactly what is listed, then the
/// synopsis, last (`LG_REPORT_SYNOPSIS_SUFFIX`): when it exists, the check is over and every file
/// listed is complete.
#define LG_ENV_RENDER "LEAKGRAPH_RENDER"
/// `1`: the check at exit also counts every live object by type into the report's `liveTypes`
/// (`leakgraph run --live-histogram`). Absent or anything else: it does not.
#define LG_ENV_LIVE_TYPES "LEAKGRAPH_LIVE_TYPES"
/// `1`: count every Swift allocation of the program by type and creation stack from the start (the
/// allocation profile), and put the profile into the report's `allocations` at exit (`leakgraph run
/// --allocations`). Absent or anything else: no profile, and the hook pays nothing for it.
#define LG_ENV_ALLOCATIONS "LEAKGRAPH_ALLOCATIONS"
/// Type names, one a line (any name the report prints, `App.Cache`, `Signal<Swift.Int, Swift.Never>.Observer`,
/// or a short name, `Observer`; names may hold commas): the check at exit also says why the live objects
/// of each are alive, into the report's `why` (`leakgraph run --why TYPE`). Absent or empty: it does
/// not. At most 1,023 bytes.
#define LG_ENV_WHY "LEAKGRAPH_WHY"
/// Type patterns separated by commas (as baseline `type:` patterns: `Member`, `App.Room*`): the objects
/// of those types have every strong retain and release recorded with a stack, so that the check at exit
/// can name where each strong reference into a leaked one was stored (`leakgraph run --history TYPE`).
/// Absent or empty: no history. At most 4,095 bytes; a value the hook refuses is an error written to
/// `<output>.error`.
#define LG_ENV_HISTORY "LEAKGRAPH_HISTORY"

/// Where the check at exit also writes a heap snapshot of the same walk (`leakgraph run --snapshot
/// FILE`; an absolute path): through `<path>.partial`, renamed into place before the synopsis is
/// written. A failure is one sentence in `<output>` + `LG_REPORT_SNAPSHOT_ERROR_SUFFIX`. Absent: none.
#define LG_ENV_SNAPSHOT "LEAKGRAPH_SNAPSHOT"
/// With `LG_ENV_MONITOR_INTERVAL`: the folder (absolute) where every check of the monitor also writes
/// a heap snapshot (`leakgraph-<time>-<check>.lgsnap`, the newest LG_MONITOR_KEPT_SNAPSHOTS kept;
/// `leakgraph run --every D --snapshot-dir DIR`). Absent: none.
#define LG_ENV_MONITOR_SNAPSHOT_DIRECTORY "LEAKGRAPH_MONITOR_SNAPSHOT_DIRECTORY"
/// How many snapshots the monitor keeps in LG_ENV_MONITOR_SNAPSHOT_DIRECTORY.
#define LG_MONITOR_KEPT_SNAPSHOTS 10
/// Set (any value): writing a snapshot at a check, and reading one in `leakgraph snapshot`, say on
/// standard error how long each step took and the file's size (the measurement of scripts/bench-snapshot,
/// docs/performance.md).
#define LG_ENV_SNAPSHOT_STATS "LEAKGRAPH_SNAPSHOT_STATS"
/// `0`: the check at exit does not run the orphan scan (it stops the program's other threads for a
/// moment; docs/how-it-works.md, "Orphaned retains"). Absent or anything else: it does.
#define LG_ENV_ORPHAN_SCAN "LEAKGRAPH_ORPHAN_SCAN"
/// Set (any value): every orphan scan writes one line to standard error — candidates, bytes and
/// mappings read, threads stopped and for how long (the measurement of docs/performance.md).
#define LG_ENV_ORPHAN_SCAN_STATS "LEAKGRAPH_ORPHAN_SCAN_STATS"
/// The folder where `assertNoLeaks` and `.checksForLeaks` write the report of a failed check (an
/// absolute or relative path). Absent or empty: `.build/leakgraph-reports` of the package.
#define LG_ENV_REPORT_DIR "LEAKGRAPH_REPORT_DIR"

/// `1`: follow the processes the program starts (`leakgraph run SCRIPT`). `LG_ENV_OUTPUT` is then a
/// directory: every process that uses the Swift runtime writes its own JSON report there, named
/// `LG_FOLLOW_REPORT_PREFIX<pid>.json` (its `.error` beside it), the path taken at exit so that a
/// forked child does not write over its parent; processes without the Swift runtime (the shell) are
/// left alone. The environment is kept for children (not restored), so grandchildren are followed
/// too. Absent or anything else: only the program itself is checked, and its children are not.
#define LG_ENV_FOLLOW "LEAKGRAPH_FOLLOW"
/// The start of the name of each followed process's report in the `LG_ENV_OUTPUT` directory.
#define LG_FOLLOW_REPORT_PREFIX "process-"

/// The process id of `leakgraph run`. The program it started directly (its parent is that process)
/// asks the kernel for SIGTERM when that process dies (`PR_SET_PDEATHSIG`), so that it is never left
/// behind; when its parent is already another process, `leakgraph run` died before it started, and it
/// ends itself with SIGTERM.
#define LG_ENV_PARENT_PID "LEAKGRAPH_PARENT_PID"

/// The path of the Unix socket where `leakgraph run` symbolizes the program's creation stacks in its
/// own process (the program sends return addresses and gets frames back), so that the program reads
/// no debug information: its checks (the monitor's and the one at exit) connect there when they have
/// stacks to symbolize, and symbolize in the program when it cannot be reached. Absent: the program
/// symbolizes them itself.
#define LG_ENV_SYMBOLIZER "LEAKGRAPH_SYMBOLIZER"

/// The signals `leakgraph run` starts the program with blocked, so that one sent to it before the
/// preload library's handlers are installed (the check signal, SIGINT, SIGTERM, SIGHUP, SIGQUIT
/// forwarded at once) waits instead of killing it: a bitmask in decimal, bit N-1 for signal N (signals
/// 1...LG_HELD_SIGNAL_LIMIT). The preload constructor unblocks them in the thread that runs it (the
/// main thread) when it is done, whatever it did, and removes the variable, so the program's own
/// children unblock nothing. Absent or invalid: nothing is held.
#define LG_ENV_HELD_SIGNALS "LEAKGRAPH_HELD_SIGNALS"
/// The signals `leakgraph run` was started with ignored and forwards all the same: its forwarding
/// handler makes `exec` give the program their default action, so the preload constructor sets them
/// back to ignored, first thing (they are held meanwhile), and removes the variable. The same
/// bitmask as `LG_ENV_HELD_SIGNALS`. Absent or invalid: none.
#define LG_ENV_IGNORED_SIGNALS "LEAKGRAPH_IGNORED_SIGNALS"
/// The highest signal `LG_ENV_HELD_SIGNALS` and `LG_ENV_IGNORED_SIGNALS` can name (the standard signals).
#define LG_HELD_SIGNAL_LIMIT 31

/// Milliseconds between the periodic leak checks of the monitor that `leakgraph run --every` asks
/// for: a decimal integer in 1...LG_MONITOR_INTERVAL_LIMIT. Absent or invalid: no monitor, only the
/// check at exit. The monitor reports each confirmed leak once, by fingerprint, to standard error
/// (swift-log's default handler) and, with `LG_ENV_MONITOR_DIRECTORY`, as JSON reports.
#define LG_ENV_MONITOR_INTERVAL "LEAKGRAPH_MONITOR_INTERVAL"
/// The folder (absolute) where the monitor writes the JSON report of each check that found new
/// leaks (`leakgraph-<time>-<check>.json`, the newest LG_MONITOR_KEPT_REPORTS kept). Absent: none.
#define LG_ENV_MONITOR_DIRECTORY "LEAKGRAPH_MONITOR_DIRECTORY"
/// The number of the signal that asks the monitor for a check now: a decimal integer in 1...64, or
/// 0 for none. Absent or invalid: LG_MONITOR_SIGNAL_DEFAULT. Only read with LG_ENV_MONITOR_INTERVAL.
#define LG_ENV_MONITOR_SIGNAL "LEAKGRAPH_MONITOR_SIGNAL"
/// SIGUSR2 on Linux.
#define LG_MONITOR_SIGNAL_DEFAULT 12
/// The longest interval accepted (one day, in milliseconds).
#define LG_MONITOR_INTERVAL_LIMIT 86400000
/// How many JSON reports the monitor keeps in LG_ENV_MONITOR_DIRECTORY.
#define LG_MONITOR_KEPT_REPORTS 20

/// `LG_ENV_RENDER` word: write the text summary without its header to `<output>` +
/// `LG_REPORT_TEXT_SUFFIX` (the CLI writes the header, which names the program, from what it saw).
#define LG_RENDER_TEXT "text"
/// `LG_ENV_RENDER` word: write the JSON report at `<output>`, compact.
#define LG_RENDER_JSON "json"
/// `LG_ENV_RENDER` word: write the JSON report at `<output>` pretty-printed (the layout of
/// `leakgraph run --json`); wins over `LG_RENDER_JSON`.
#define LG_RENDER_PRETTY_JSON "pretty-json"
/// `LG_ENV_RENDER` word, with `LG_RENDER_TEXT`: the text lists every root cycle in full (`--expand`).
#define LG_RENDER_EXPAND "expand"
/// `LG_ENV_RENDER` word, with `LG_RENDER_TEXT`: the text lists every walk diagnostic (`--verbose`).
#define LG_RENDER_VERBOSE "verbose"
/// The bit `lg_contract_parse_render` sets for `LG_RENDER_TEXT`.
#define LG_RENDER_BIT_TEXT 1u
/// The bit `lg_contract_parse_render` sets for `LG_RENDER_JSON`.
#define LG_RENDER_BIT_JSON 2u
/// The bit `lg_contract_parse_render` sets for `LG_RENDER_PRETTY_JSON`.
#define LG_RENDER_BIT_PRETTY_JSON 4u
/// The bit `lg_contract_parse_render` sets for `LG_RENDER_EXPAND`.
#define LG_RENDER_BIT_EXPAND 8u
/// The bit `lg_contract_parse_render` sets for `LG_RENDER_VERBOSE`.
#define LG_RENDER_BIT_VERBOSE 16u

/// `<output>` + this: one sentence saying why there is no report (the hook refused to install,
/// `LEAKGRAPH_FRAMES` was invalid, the report could not be written).
#define LG_REPORT_ERROR_SUFFIX ".error"
/// `<output>` + this: one sentence saying why the snapshot `LG_ENV_SNAPSHOT` asked for was not written
/// (the report is written all the same).
#define LG_REPORT_SNAPSHOT_ERROR_SUFFIX ".snapshot-error"
/// `<output>` + this: the report while it is being written; renamed to `<output>` when complete.
/// The files below are written the same way (their name + this, then renamed).
#define LG_REPORT_PARTIAL_SUFFIX ".partial"
/// `<output>` + this: what the crash handler wrote when the program crashed (SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGABRT, SIGTRAP): no heap walk, only lines of `key value` written with `write(2)` —
/// `signal N`, `address 0x…` (the fault address), `pc 0x…`, `frame 0x…` (return addresses of the
/// faulting thread, innermost first), `allocations N`, `records N` (objects tracked and alive),
/// `stacks N` — then a line `maps` followed by the process's `/proc/self/maps`, so the CLI can
/// symbolize the frames after the process is gone. Written under `.partial`, then renamed.
#define LG_REPORT_CRASH_SUFFIX ".crash"
/// `<output>` + this: the text summary without its header, when `LG_ENV_RENDER` asks for it.
#define LG_REPORT_TEXT_SUFFIX ".txt"
/// `<output>` + this: the report's synopsis (`ReportSynopsis` in LeakGraphReport, JSON): the
/// program the JSON report names, the totals, and what was written. Written last whenever
/// `LG_ENV_RENDER` lists a known word.
#define LG_REPORT_SYNOPSIS_SUFFIX ".synopsis"

/// Where the test observer library is (an absolute path), set by the CLI when it found the library
/// beside the preload library. Absent: no test is named.
#define LG_ENV_TEST_OBSERVER "LEAKGRAPH_TEST_OBSERVER"
/// The test observer: a library the preload library loads into a test process (one that has
/// `libXCTest.so` or `libTesting.so` loaded), from `LG_ENV_TEST_OBSERVER`, so that the report names the test
/// that made each leaked object (`leakgraph test`). It observes XCTest's tests and Swift Testing's
/// current test, opens a test scope per test through the functions it is given, and tells the hook
/// which test each allocation belongs to. Absent: no test is named.
#define LG_TEST_OBSERVER_LIBRARY "libLeakGraphTestObserver.so"
/// The observer's entry point, `int leakgraph_test_observer_start(const lg_test_observer_api *api)`:
/// returns 1 when it observes tests from now on, 0 when it cannot (then no test is named).
#define LG_TEST_OBSERVER_START "leakgraph_test_observer_start"
/// The version of `lg_test_observer_api` the preload library passes.
#define LG_TEST_OBSERVER_API_VERSION 1u

/// What the preload library gives the test observer: its own copy of the hook's test-scope
/// functions (see `lg_test_scope_begin` and `lg_set_test_scope_source` in CLeakGraphHook.h).
typedef struct lg_test_observer_api {
    /// LG_TEST_OBSERVER_API_VERSION.
    unsigned version;
    /// Opens a test scope labelled with the test's name; returns its token, 0 when none is free.
    uint64_t (*test_begin)(const char *label);
    /// Sets the function the hook asks which test's token the current allocation belongs to (0: none).
    void (*set_test_source)(uint64_t (*source)(void));
} lg_test_observer_api;

/// `1`: the check at exit writes to standard error how long each of its steps took (loading the
/// checker, freezing and walking, the orphan scan, the analysis, symbolization, writing) and its peak
/// memory (`leakgraph run --verbose`). Absent or anything else: it does not.
#define LG_ENV_VERBOSE "LEAKGRAPH_VERBOSE"

// MARK: The checker library

/// The library the preload library loads (`dlopen`, from its own folder) the first time a check runs:
/// the heap walk, the analysis and the report, in Swift, with Foundation and libdw. Until then the
/// checked program carries only the allocation hook and the exit and signal plumbing, in C.
#define LG_CHECKER_LIBRARY_NAME "libLeakGraphPreloadChecker.so"
/// The version of `lg_checker_request` and of the entry points below; the preload library refuses a
/// checker library that answers another (`leakgraph_checker_interface_version`).
#define LG_CHECKER_INTERFACE_VERSION 2

/// What the preload library read before `main` (the environment is restored then) and hands the
/// checker library with every check.
typedef struct lg_checker_request {
    /// Where the report goes (`LG_ENV_OUTPUT`, or this process's report in the follow directory).
    const char *output_path;
    /// `LG_ENV_PROGRAM` (empty when none).
    const char *program_path;
    /// The `LG_RENDER_BIT_*` bits of `LG_ENV_RENDER`.
    unsigned render;
    /// `LG_ENV_LIVE_TYPES` is `1`.
    int live_types;
    /// `LG_ENV_WHY` (empty when none).
    const char *why;
    /// The exit check looks for orphans (`LG_ENV_ORPHAN_SCAN` is not `0`).
    int orphan_scan;
    /// `LG_ENV_VERBOSE` is `1`.
    int verbose;
    /// The monitor's report folder (`LG_ENV_MONITOR_DIRECTORY`, empty when none).
    const char *monitor_directory;
    /// The monitor's interval in milliseconds (0: no monitor).
    unsigned long monitor_interval_ms;
    /// `LG_ENV_ALLOCATIONS` is `1` and the allocation profile runs (started before `main`): the final
    /// check puts it in the report.
    int allocations;
    /// Where the final check also writes a heap snapshot of the same walk (`LG_ENV_SNAPSHOT`, empty
    /// when none).
    const char *snapshot_path;
    /// The folder where every check of the monitor also writes a heap snapshot
    /// (`LG_ENV_MONITOR_SNAPSHOT_DIRECTORY`, empty when none).
    const char *monitor_snapshot_directory;
    /// Nanoseconds (CLOCK_MONOTONIC) the preload library spent loading the checker library for this
    /// check (0 when it was loaded already), for `verbose`.
    unsigned long long load_nanoseconds;
    /// 1 when the test observer started (`LG_ENV_TEST_OBSERVER`): each leaked object's test scope then
    /// names the test that made it, and the check names the tests in the report.
    int tests_observed;
} lg_checker_request;

/// Implemented by the checker library (`@_cdecl`): `LG_CHECKER_INTERFACE_VERSION`.
typedef int (*lg_checker_version_fn)(void);
/// Implemented by the checker library: the final check. Walks the heap, analyses it and writes the
/// report to `request->output_path` (through `.partial` names), with the renderings asked for beside
/// it, or one sentence to `<output_path>.error`. `exit_status` is the status the program passed to
/// `exit` (the low 8 bits), or 128 + `signal` when a terminating signal asked for the check (`signal`
/// is 0 otherwise).
typedef void (*lg_checker_check_fn)(const lg_checker_request *request, int exit_status, int signal);
/// Implemented by the checker library: one check of the monitor (`LG_ENV_MONITOR_INTERVAL`), reported
/// as `LeakMonitor` reports (the log, the report folder). The first call makes the monitor.
typedef void (*lg_checker_monitor_check_fn)(const lg_checker_request *request);

/// Creation-stack frames recorded per object when nobody says otherwise.
#define LG_FRAMES_DEFAULT 16
/// The most creation-stack frames the allocation hook can record per object.
#define LG_FRAMES_LIMIT 64

/// Parses a `LEAKGRAPH_FRAMES` value: returns 1 and stores the count in `*frames` when `text` is a
/// decimal integer in 0...LG_FRAMES_LIMIT (no sign, no spaces), otherwise returns 0. Exists so that
/// the C constructor and the Swift side accept exactly the same values.
int lg_contract_parse_frames(const char *text, unsigned *frames);

/// Parses a decimal integer in 0...`limit` (no sign, no spaces): returns 1 and stores it in `*value`,
/// otherwise returns 0. No allocation, no stdio. Reads `LG_ENV_MONITOR_INTERVAL` and
/// `LG_ENV_MONITOR_SIGNAL`.
int lg_contract_parse_number(const char *text, unsigned long limit, unsigned long *value);

/// Writes the decimal digits of `value` at `out` (at most 20 digits and a NUL: 21 bytes) and returns
/// how many digits it wrote. Async-signal-safe: no allocation, no stdio, no locale.
unsigned long lg_contract_write_decimal(unsigned long value, char *out);

/// Parses an `LG_ENV_RENDER` value: the `LG_RENDER_BIT_*` bits of the words it lists (0 for NULL,
/// an empty text or no known word). Words are separated by commas; unknown words are skipped. No
/// allocation, no stdio: the preload constructor calls it before `main`.
unsigned lg_contract_parse_render(const char *text);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_CONTRACT_H */
