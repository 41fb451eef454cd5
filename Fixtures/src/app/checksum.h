/* Checksum helpers shared by main.c and parser.c. Everything here is inlined:
 * rotl32 <- mix32 <- checksum_words, a chain three deep. */
#ifndef APP_CHECKSUM_H
#define APP_CHECKSUM_H

#include "platform.h"

static inline __attribute__((always_inline)) u32 rotl32(u32 value, int shift)
{
    return (value << shift) | (value >> (32 - shift));
}

static inline __attribute__((always_inline)) u32 mix32(u32 hash, u32 word)
{
    word *= 0xcc9e2d51u;
    word = rotl32(word, 15);
    word *= 0x1b873593u;
    hash ^= word;
    hash = rotl32(hash, 13);
    return hash * 5u + 0xe6546b64u;
}

static inline __attribute__((always_inline)) u32 checksum_words(const u32 *words, u32 count, u32 seed)
{
    u32 hash = seed;
    for (u32 i = 0; i < count; i++)
        hash = mix32(hash, words[i]);
    return hash ^ count;
}

static inline u32 checksum_string(const char *text)
{
    u32 hash = 0x9747b28cu;
    while (*text)
        hash = mix32(hash, (u8)*text++);
    return hash;
}

#endif
