// The start of `libLeakGraphPreload.so`: a constructor that installs the allocation hook before
// the preloaded program's `main`, and an exit handler that runs the leak check.
#ifndef CLEAKGRAPH_PRELOAD_START_H
#define CLEAKGRAPH_PRELOAD_START_H

#ifdef __cplusplus
extern "C" {
#endif

/// The report path the constructor read from `LEAKGRAPH_OUTPUT`, or NULL when the library was
/// loaded without `leakgraph run` (then nothing is installed).
const char *lg_preload_output_path(void);

#ifdef __cplusplus
}
#endif

#endif
