// The one function of the preload contract (CLeakGraphContract.h): no allocation, no stdio, so the
// preload constructor can call it before the program's `main`.
#include "CLeakGraphContract.h"

int lg_contract_parse_frames(const char *text, unsigned *frames) {
    if (text == 0 || text[0] == '\0') {
        return 0;
    }
    unsigned value = 0;
    for (const char *digit = text; *digit != '\0'; digit++) {
        if (*digit < '0' || *digit > '9') {
            return 0;
        }
        value = value * 10 + (unsigned)(*digit - '0');
        if (value > LG_FRAMES_LIMIT) {
            return 0;
        }
    }
    *frames = value;
    return 1;
}
