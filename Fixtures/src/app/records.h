#ifndef APP_RECORDS_H
#define APP_RECORDS_H

#include "platform.h"

#define RECORD_MAGIC 0x52454331u /* "REC1" */

struct payload {
    u32 length;
    u32 flags;
    const u32 *words;
};

struct record {
    u32 magic;
    u32 id;
    const char *name;
    const struct payload *payload;
};

/* parser.c */
int process_records(const struct record *records, int count);
int parse_record(const struct record *record);
u32 record_digest(const struct record *record);

#endif
