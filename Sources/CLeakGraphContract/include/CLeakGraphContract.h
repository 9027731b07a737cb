// The contract between `leakgraph run` (the CLI, Swift) and `libLeakGraphPreload.so` (C constructor
// and Swift exit check) running inside the checked program: environment variable names, the files
// the library leaves beside the report path, and the frame-count limits. Spelled once, here; Swift
// imports the string and integer macros as constants (`LG_ENV_OUTPUT` is a `String`).
#ifndef CLEAKGRAPH_CONTRACT_H
#define CLEAKGRAPH_CONTRACT_H

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

/// `<output>` + this: one sentence saying why there is no report (the hook refused to install,
/// `LEAKGRAPH_FRAMES` was invalid, the report could not be written).
#define LG_REPORT_ERROR_SUFFIX ".error"
/// `<output>` + this: the report while it is being written; renamed to `<output>` when complete.
#define LG_REPORT_PARTIAL_SUFFIX ".partial"

/// Creation-stack frames recorded per object when nobody says otherwise.
#define LG_FRAMES_DEFAULT 16
/// The most creation-stack frames the allocation hook can record per object.
#define LG_FRAMES_LIMIT 64

/// Parses a `LEAKGRAPH_FRAMES` value: returns 1 and stores the count in `*frames` when `text` is a
/// decimal integer in 0...LG_FRAMES_LIMIT (no sign, no spaces), otherwise returns 0. Exists so that
/// the C constructor and the Swift side accept exactly the same values.
int lg_contract_parse_frames(const char *text, unsigned *frames);

#ifdef __cplusplus
}
#endif

#endif /* CLEAKGRAPH_CONTRACT_H */
