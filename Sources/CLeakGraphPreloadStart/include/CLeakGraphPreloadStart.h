// The start of `libLeakGraphPreload.so`: a constructor that installs the allocation hook before
// the preloaded program's `main`, the process-wide `free` that tells the hook of every death, and
// an exit handler that runs the leak check.
#ifndef CLEAKGRAPH_PRELOAD_START_H
#define CLEAKGRAPH_PRELOAD_START_H

#ifdef __cplusplus
extern "C" {
#endif

/// The report path the constructor read from `LEAKGRAPH_OUTPUT`, or NULL when the library was
/// loaded without `leakgraph run` (then nothing is installed).
const char *lg_preload_output_path(void);

/// Implemented in Swift (LeakGraphPreload, `@_cdecl`): walks the heap, analyses it and writes the
/// report to `output_path` (through `<output_path>.partial`), or one sentence to
/// `<output_path>.error`. Called once, by the exit handler.
void leakgraph_preload_check(const char *output_path);

#ifdef __cplusplus
}
#endif

#endif
