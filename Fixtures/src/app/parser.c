#include "records.h"
#include "checksum.h"

static int g_rejected;

static inline __attribute__((always_inline)) u32 load_word(const struct payload *payload, u32 index)
{
    return payload->words[index];
}

static inline u32 payload_header(const struct record *record)
{
    const struct payload *payload = record->payload;
    u32 first = load_word(payload, 0);
    return first ^ payload->flags;
}

static inline int header_is_valid(const struct record *record)
{
    if (record->magic != RECORD_MAGIC)
        return 0;
    return (payload_header(record) & 0xff000000u) == 0;
}

__attribute__((noinline)) int parse_record(const struct record *record)
{
    if (!header_is_valid(record)) {
        g_rejected++;
        return -1;
    }
    const struct payload *payload = record->payload;
    u32 sum = checksum_words(payload->words, payload->length, record->id);
    return (int)(sum & 0x7fffffff);
}

__attribute__((noinline)) u32 record_digest(const struct record *record)
{
    return checksum_string(record->name) ^ record->id;
}

static inline int process_one(const struct record *record, int index)
{
    int result = parse_record(record);
    if (result < 0)
        printf("record %d (%s) rejected\n", index, record->name);
    return result;
}

__attribute__((noinline)) int process_records(const struct record *records, int count)
{
    int accepted = 0;
    for (int i = 0; i < count; i++) {
        if (process_one(&records[i], i) >= 0)
            accepted++;
    }
    return accepted;
}
