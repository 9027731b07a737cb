// A stand-in for libLeakGraphPreload.so that plays the preload side of the `leakgraph run` contract
// without hooking anything, so the end-to-end tests can check the CLI's side on its own
// (LEAKGRAPH_PRELOAD_LIBRARY points the CLI at it). What it does is chosen by environment variables:
//   FAKE_ENV_DUMP=PATH   at load, write the contract variables to PATH (`NAME=value`, `(unset)`)
//   FAKE_MODE=refuse     at load, write a refusal sentence to $LEAKGRAPH_OUTPUT.error
//   FAKE_MODE=clean      at exit, write a report with no leaks to $LEAKGRAPH_OUTPUT
//   FAKE_MODE=leak       at exit, write a report with one leaked self-loop `Fixture.Node`
//   FAKE_MODE=garbage    at exit, write something that is not JSON
//   FAKE_MODE=rendered   at exit, write the `leak` report and beside it a text summary body reading
//                        `TEXT RENDERED BY THE PROGRAM` and a synopsis naming $LEAKGRAPH_PROGRAM, no
//                        arguments and exit status $FAKE_SYNOPSIS_STATUS (default 0)
//   (unset)              write nothing
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const contract_variables[] = {
    "LD_PRELOAD", "LEAKGRAPH_ORIGINAL_LD_PRELOAD", "LEAKGRAPH_OUTPUT", "LEAKGRAPH_FRAMES", "LEAKGRAPH_PROGRAM",
    "LEAKGRAPH_RENDER", "LEAKGRAPH_MONITOR_INTERVAL", "LEAKGRAPH_MONITOR_DIRECTORY", "LEAKGRAPH_MONITOR_SIGNAL",
    "LEAKGRAPH_HELD_SIGNALS",
};

/// Writes `text` to `<output><suffix>`.
static void write_beside(const char *output, const char *suffix, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s", output, suffix);
    FILE *file = fopen(path, "w");
    if (file != NULL) {
        fputs(text, file);
        fclose(file);
    }
}

static int mode_is(const char *mode) {
    const char *value = getenv("FAKE_MODE");
    return value != NULL && strcmp(value, mode) == 0;
}

__attribute__((constructor)) static void fake_preload_start(void) {
    const char *dump = getenv("FAKE_ENV_DUMP");
    if (dump != NULL) {
        FILE *file = fopen(dump, "w");
        if (file != NULL) {
            for (size_t i = 0; i < sizeof contract_variables / sizeof contract_variables[0]; i++) {
                const char *value = getenv(contract_variables[i]);
                fprintf(file, "%s=%s\n", contract_variables[i], value != NULL ? value : "(unset)");
            }
            fclose(file);
        }
    }
    // The signals leakgraph run holds until the preload's handlers exist: this one has none, so it
    // unblocks them at once, as the real library does once its own are installed.
    const char *held = getenv("LEAKGRAPH_HELD_SIGNALS");
    if (held != NULL) {
        unsigned long mask = strtoul(held, NULL, 10);
        sigset_t released;
        sigemptyset(&released);
        for (int number = 1; number <= 31; number++) {
            if (mask & (1ul << (number - 1))) sigaddset(&released, number);
        }
        pthread_sigmask(SIG_UNBLOCK, &released, NULL);
    }
    const char *output = getenv("LEAKGRAPH_OUTPUT");
    if (output != NULL && mode_is("refuse")) {
        char path[4096];
        snprintf(path, sizeof path, "%s.error", output);
        FILE *file = fopen(path, "w");
        if (file != NULL) {
            fputs("the Swift runtime 9.9 is not supported by this LeakGraph\n", file);
            fclose(file);
        }
    }
}

__attribute__((destructor)) static void fake_preload_finish(void) {
    const char *output = getenv("LEAKGRAPH_OUTPUT");
    if (output == NULL || !(mode_is("clean") || mode_is("leak") || mode_is("garbage") || mode_is("rendered"))) {
        return;
    }
    if (mode_is("rendered")) {
        write_beside(output, ".txt", "TEXT RENDERED BY THE PROGRAM\n");
        const char *program = getenv("LEAKGRAPH_PROGRAM");
        const char *status = getenv("FAKE_SYNOPSIS_STATUS");
        char synopsis[8192];
        snprintf(synopsis, sizeof synopsis,
            "{\"leakedObjectsOutsideLibraries\":1,\"program\":{\"arguments\":[],\"exitStatus\":%s,\"path\":\"%s\"},"
            "\"rendered\":[\"text\",\"pretty-json\"],\"summary\":{\"leakedBytes\":32,\"leakedObjects\":1,"
            "\"liveObjects\":4,\"rootCycles\":1,\"trackedObjects\":5},\"version\":1}",
            status != NULL ? status : "0", program != NULL ? program : "");
        write_beside(output, ".synopsis", synopsis);
    }
    FILE *file = fopen(output, "w");
    if (file == NULL) {
        return;
    }
    if (mode_is("garbage")) {
        fputs("{\"schemaVersion\": 1, \"program\": ", file);
    } else {
        int leak = mode_is("leak") || mode_is("rendered");
        fprintf(file,
            "{\"schemaVersion\":1,\"program\":{\"path\":\"\",\"arguments\":[],\"exitStatus\":0},"
            "\"summary\":{\"trackedObjects\":5,\"liveObjects\":4,\"leakedObjects\":%d,\"leakedBytes\":%d,"
            "\"rootCycles\":%d},\"leaks\":[%s],\"references\":[%s],\"cycles\":[%s],\"diagnostics\":[]}\n",
            leak, leak ? 32 : 0, leak,
            leak ? "{\"id\":0,\"address\":\"0x7f0000001000\",\"type\":\"Fixture.Node\",\"kind\":\"class\","
                   "\"size\":32,\"retainCount\":1,\"cycle\":0,\"backtrace\":[{\"function\":\"makeNode()\","
                   "\"file\":\"main.swift\",\"line\":12}]}" : "",
            leak ? "{\"from\":0,\"to\":0,\"label\":\"me\",\"ownership\":\"strong\"}" : "",
            leak ? "{\"id\":0,\"members\":[0],\"holds\":[]}" : "");
    }
    fclose(file);
}
