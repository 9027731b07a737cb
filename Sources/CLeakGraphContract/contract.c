// The functions of the preload contract (CLeakGraphContract.h): no allocation, no stdio, so the
// preload constructor can call them before the program's `main`.
#include "CLeakGraphContract.h"

int lg_contract_parse_number(const char *text, unsigned long limit, unsigned long *value) {
    if (text == 0 || text[0] == '\0') {
        return 0;
    }
    unsigned long parsed = 0;
    for (const char *digit = text; *digit != '\0'; digit++) {
        if (*digit < '0' || *digit > '9') {
            return 0;
        }
        parsed = parsed * 10 + (unsigned long)(*digit - '0');
        if (parsed > limit) {
            return 0;
        }
    }
    *value = parsed;
    return 1;
}

unsigned long lg_contract_write_decimal(unsigned long value, char *out) {
    char digits[24];
    unsigned long count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (unsigned long index = 0; index < count; index++) {
        out[index] = digits[count - 1 - index];
    }
    out[count] = '\0';
    return count;
}

int lg_contract_parse_frames(const char *text, unsigned *frames) {
    unsigned long value = 0;
    if (!lg_contract_parse_number(text, LG_FRAMES_LIMIT, &value)) {
        return 0;
    }
    *frames = (unsigned)value;
    return 1;
}

/// Whether the `length` bytes at `word` spell `known` exactly.
static int lg_contract_word_is(const char *word, unsigned long length, const char *known) {
    unsigned long index = 0;
    for (; index < length; index++) {
        if (known[index] == '\0' || known[index] != word[index]) {
            return 0;
        }
    }
    return known[index] == '\0';
}

unsigned lg_contract_parse_render(const char *text) {
    if (text == 0) {
        return 0;
    }
    unsigned bits = 0;
    const char *word = text;
    for (;;) {
        const char *end = word;
        while (*end != '\0' && *end != ',') {
            end++;
        }
        unsigned long length = (unsigned long)(end - word);
        if (lg_contract_word_is(word, length, LG_RENDER_TEXT)) {
            bits |= LG_RENDER_BIT_TEXT;
        } else if (lg_contract_word_is(word, length, LG_RENDER_JSON)) {
            bits |= LG_RENDER_BIT_JSON;
        } else if (lg_contract_word_is(word, length, LG_RENDER_PRETTY_JSON)) {
            bits |= LG_RENDER_BIT_PRETTY_JSON;
        } else if (lg_contract_word_is(word, length, LG_RENDER_EXPAND)) {
            bits |= LG_RENDER_BIT_EXPAND;
        } else if (lg_contract_word_is(word, length, LG_RENDER_VERBOSE)) {
            bits |= LG_RENDER_BIT_VERBOSE;
        }
        if (*end == '\0') {
            return bits;
        }
        word = end + 1;
    }
}
