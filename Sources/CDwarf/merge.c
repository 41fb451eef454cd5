// Putting the threads' arrays together: the small ones (files, units, directories, strings)
// into the result, the large ones (functions, ranges, rows) into the caller's arrays, each
// thread copying its own share with indexes and string offsets rebased.

#include "reader.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline uint32_t rebase_string(const reader *rd, uint32_t thread, uint32_t offset) {
    return offset ? (uint32_t)(offset + rd->string_base[thread]) : 0;
}

// The result index of the file a function's raw DW_AT_call_file names, given where its unit's
// file list went (base) and its length.
static inline uint32_t call_file_index(uint32_t raw, uint64_t base, uint64_t count) {
    return raw == CALL_FILE_NONE || raw >= count ? 0 : (uint32_t)(base + raw);
}

// Where the pages of an array copied front to back have been released up to.
typedef struct released {
    const uint8_t *base;  // of the array
    uintptr_t up_to;      // address
    uint64_t step;
} released;

static released released_start(const void *base, uint64_t step) {
    uintptr_t page = (uintptr_t)getpagesize();
    // The page the array starts in may hold the allocator's bookkeeping: never released.
    return (released){base, ((uintptr_t)base + page - 1) & ~(page - 1), step};
}

// The array's first `bytes` have been copied and are read no more: their pages go, a step at a
// time, so that the copy and what it copies are not both whole at once.
static void release_copied(released *r, uint64_t bytes) {
    if (!r->base) return;
    uintptr_t end = (uintptr_t)r->base + bytes;
    if (end < r->up_to + r->step) return;
    release_pages((const void *)r->up_to, (const void *)end);
    uintptr_t page = (uintptr_t)getpagesize();
    r->up_to = end & ~(page - 1);
}

// memcpy, releasing the pages of `from` (a malloc'ed block freed afterwards) behind it.
CDW_INTERNAL void copy_releasing(void *to, const void *from, uint64_t bytes, uint64_t step_size) {
    released r = released_start(from, step_size);
    for (uint64_t done = 0; done < bytes;) {
        uint64_t step = bytes - done < step_size ? bytes - done : step_size;
        memcpy((uint8_t *)to + done, (const uint8_t *)from + done, step);
        done += step;
        release_copied(&r, done);
    }
}

// Copies a thread's functions, ranges and rows into the caller's arrays, releasing and then
// freeing the thread's own as it goes (nothing reads them after).
CDW_INTERNAL void copy_large_arrays(thread_ctx *t, const cdw_reading *reading) {
    const reader *rd = t->reader;
    const cdw_result *in = &t->s.r;
    uint32_t me = t->index;
    uint64_t step = release_step(rd->object);
    released functions_released = released_start(in->functions, step);
    released ranges_released = released_start(in->ranges, step);
    released rows_released = released_start(in->rows, step);
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *fr = &rd->functions[u], *lr = &rd->lines[u];
        if (fr->thread == (int32_t)me && reading->functions) {
            const task_result *owner = &rd->lines[rd->units[u].line_owner];
            uint64_t file_base = owner->base[ARR_FILES];
            uint64_t file_count =
                owner->thread >= 0 ? owner->end[ARR_FILES] - owner->start[ARR_FILES] : 0;
            cdw_function *out = reading->functions + fr->base[ARR_FUNCTIONS];
            for (uint64_t i = fr->start[ARR_FUNCTIONS]; i < fr->end[ARR_FUNCTIONS]; i++) {
                cdw_function f = in->functions[i];
                if (f.parent >= 0)
                    f.parent = (int32_t)((uint64_t)f.parent - fr->start[ARR_FUNCTIONS] +
                                         fr->base[ARR_FUNCTIONS]);
                f.first_range =
                    (uint32_t)(f.first_range - fr->start[ARR_RANGES] + fr->base[ARR_RANGES]);
                f.name = rebase_string(rd, me, f.name);
                f.linkage_name = rebase_string(rd, me, f.linkage_name);
                f.call_file = call_file_index(f.call_file, file_base, file_count);
                *out++ = f;
            }
        }
        uint64_t range_count = fr->end[ARR_RANGES] - fr->start[ARR_RANGES];
        if (fr->thread == (int32_t)me && reading->ranges && range_count > 0) {
            memcpy(reading->ranges + fr->base[ARR_RANGES], in->ranges + fr->start[ARR_RANGES],
                   range_count * sizeof(cdw_range));
        }
        if (lr->thread == (int32_t)me && reading->rows) {
            cdw_row *out = reading->rows + lr->base[ARR_ROWS];
            for (uint64_t i = lr->start[ARR_ROWS]; i < lr->end[ARR_ROWS]; i++) {
                cdw_row row = in->rows[i];
                if (row.file)
                    row.file = (uint32_t)(row.file - lr->start[ARR_FILES] + lr->base[ARR_FILES]);
                *out++ = row;
            }
        }
        // A thread's tasks come in unit order, so its arrays are copied front to back.
        if (fr->thread == (int32_t)me) {
            release_copied(&functions_released, fr->end[ARR_FUNCTIONS] * sizeof(cdw_function));
            release_copied(&ranges_released, fr->end[ARR_RANGES] * sizeof(cdw_range));
        }
        if (lr->thread == (int32_t)me) release_copied(&rows_released, lr->end[ARR_ROWS] * sizeof(cdw_row));
    }
    free(t->s.r.functions);
    free(t->s.r.ranges);
    free(t->s.r.rows);
    t->s.r.functions = NULL;
    t->s.r.ranges = NULL;
    t->s.r.rows = NULL;
}

typedef struct copy_job {
    thread_ctx *t;
    const cdw_reading *reading;
} copy_job;

static void *copy_main(void *argument) {
    copy_job *job = argument;
    copy_large_arrays(job->t, job->reading);
    return NULL;
}

// Copies a thread's file lists, units, directories and strings into the result.
static void copy_small_arrays(thread_ctx *t, cdw_result *out) {
    const reader *rd = t->reader;
    const cdw_result *in = &t->s.r;
    uint32_t me = t->index;
    memcpy(out->strings + rd->string_base[me], in->strings, in->strings_size);
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *lr = &rd->lines[u];
        if (lr->thread != (int32_t)me) continue;
        for (uint64_t i = lr->start[ARR_FILES]; i < lr->end[ARR_FILES]; i++) {
            cdw_file file = in->files[i];
            file.name = rebase_string(rd, me, file.name);
            if (file.unit != CDW_NO_UNIT)
                file.unit = (uint32_t)(file.unit - lr->start[ARR_UNITS] + lr->base[ARR_UNITS]);
            out->files[lr->base[ARR_FILES] + (i - lr->start[ARR_FILES])] = file;
        }
        for (uint64_t i = lr->start[ARR_UNITS]; i < lr->end[ARR_UNITS]; i++) {
            cdw_unit unit = in->units[i];
            unit.comp_dir = rebase_string(rd, me, unit.comp_dir);
            unit.first_directory = (uint32_t)(unit.first_directory - lr->start[ARR_DIRECTORIES] +
                                              lr->base[ARR_DIRECTORIES]);
            out->units[lr->base[ARR_UNITS] + (i - lr->start[ARR_UNITS])] = unit;
        }
        for (uint64_t i = lr->start[ARR_DIRECTORIES]; i < lr->end[ARR_DIRECTORIES]; i++) {
            out->directories[lr->base[ARR_DIRECTORIES] + (i - lr->start[ARR_DIRECTORIES])] =
                rebase_string(rd, me, in->directories[i]);
        }
    }
}

// Where every task's arrays go in the result; the result's small arrays, filled, and the
// lengths of its large ones. 0, or -1.
CDW_INTERNAL int lay_out(reader *rd, cdw_result *out) {
    uint64_t total[ARR_COUNT] = {0};
    total[ARR_FILES] = 1;  // file 0: no file
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        task_result *tasks[2] = {&rd->lines[u], &rd->functions[u]};
        for (int k = 0; k < 2; k++) {
            for (int a = 0; a < ARR_COUNT; a++) {
                tasks[k]->base[a] = total[a];
                if (tasks[k]->thread >= 0) total[a] += tasks[k]->end[a] - tasks[k]->start[a];
            }
        }
    }
    if (rd->units_dropped && drop_unused_strings(rd) != 0) return -1;
    uint64_t strings = 0;
    for (uint32_t i = 0; i < rd->thread_count; i++) {
        rd->string_base[i] = strings;
        strings += rd->threads[i].s.r.strings_size;
    }
    if (strings > UINT32_MAX || total[ARR_FILES] > UINT32_MAX || total[ARR_RANGES] > UINT32_MAX ||
        total[ARR_FUNCTIONS] > INT32_MAX)
        return -1;
    memset(out, 0, sizeof(*out));
    out->function_count = total[ARR_FUNCTIONS];
    out->range_count = total[ARR_RANGES];
    out->row_count = total[ARR_ROWS];
#define ALLOCATE(array, count, n)                                                          \
    do {                                                                                   \
        out->count = (n);                                                                  \
        out->array = malloc((out->count ? out->count : 1) * sizeof(*out->array));          \
        if (!out->array) return -1;                                                        \
    } while (0)
    ALLOCATE(files, file_count, total[ARR_FILES]);
    ALLOCATE(units, unit_count, total[ARR_UNITS]);
    ALLOCATE(directories, directory_count, total[ARR_DIRECTORIES]);
    ALLOCATE(strings, strings_size, strings);
#undef ALLOCATE
    out->files[0] = (cdw_file){0, 0, CDW_NO_UNIT};
    for (uint32_t i = 0; i < rd->thread_count; i++) {
        // The thread's small arrays are copied: freed, so that the copies do not add up.
        cdw_result *r = &rd->threads[i].s.r;
        copy_small_arrays(&rd->threads[i], out);
        free(r->files);
        free(r->units);
        free(r->directories);
        free(r->strings);
        r->files = NULL;
        r->units = NULL;
        r->directories = NULL;
        r->strings = NULL;
    }
    return 0;
}

// With one thread: the sink is the result once call_file values are resolved.
CDW_INTERNAL void finish_in_place(reader *rd) {
    cdw_result *r = &rd->threads[0].s.r;
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        const task_result *fr = &rd->functions[u], *lr = &rd->lines[rd->units[u].line_owner];
        if (fr->thread < 0) continue;
        uint64_t file_base = lr->start[ARR_FILES];
        uint64_t file_count = lr->thread >= 0 ? lr->end[ARR_FILES] - lr->start[ARR_FILES] : 0;
        for (uint64_t i = fr->start[ARR_FUNCTIONS]; i < fr->end[ARR_FUNCTIONS]; i++) {
            r->functions[i].call_file = call_file_index(r->functions[i].call_file, file_base,
                                                        file_count);
        }
    }
}

CDW_INTERNAL uint32_t default_thread_count(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) online = 1;
    return online > 8 ? 8 : (uint32_t)online;
}

CDW_INTERNAL void free_reader(reader *rd) {
    for (uint32_t u = 0; rd->lines && u < rd->unit_count; u++) free(rd->lines[u].message);
    for (uint32_t u = 0; rd->functions && u < rd->unit_count; u++) free(rd->functions[u].message);
    for (uint32_t i = 0; rd->threads && i < rd->thread_count; i++) {
        sink_free(&rd->threads[i].s);
        abbrev_table_free(&rd->threads[i].abbrevs);
    }
    for (uint32_t i = 0; rd->tables && i < rd->table_count; i++) abbrev_table_free(&rd->tables[i]);
    free(rd->tables);
    free(rd->threads);
    free(rd->string_base);
    free(rd->tasks_done);
    free((void *)rd->marks.bits[0]);
    free((void *)rd->marks.bits[1]);
    pthread_mutex_destroy(&rd->release_lock);
    free(rd->lines);
    free(rd->functions);
    free(rd->units);
    free(rd);
}

// Hands the large arrays of a one-piece result to the reading.
CDW_INTERNAL cdw_reading *one_piece(cdw_result *result, const cdw_object *object) {
    cdw_reading *reading = calloc(1, sizeof(*reading));
    if (!reading) return NULL;
    reading->release_step = release_step(object);
    reading->whole.functions = result->functions;
    reading->whole.function_count = result->function_count;
    reading->whole.ranges = result->ranges;
    reading->whole.range_count = result->range_count;
    reading->whole.rows = result->rows;
    reading->whole.row_count = result->row_count;
    result->functions = NULL;
    result->ranges = NULL;
    result->rows = NULL;
    return reading;
}

void cdw_read_finish(cdw_reading *reading, cdw_function *functions, cdw_range *ranges,
                     cdw_row *rows) {
    if (!reading) return;
    reader *rd = reading->rd;
    if (rd) {
        if (functions || ranges || rows) {
            // Each thread copies what it read (an array of no elements may come as NULL).
            reading->functions = functions;
            reading->ranges = ranges;
            reading->rows = rows;
            copy_job *jobs = calloc(rd->thread_count, sizeof(copy_job));
            for (uint32_t i = 0; i < rd->thread_count; i++) {
                rd->threads[i].started = 0;
                if (!jobs) continue;
                jobs[i] = (copy_job){&rd->threads[i], reading};
                if (i > 0) {
                    rd->threads[i].started =
                        pthread_create(&rd->threads[i].thread, NULL, copy_main, &jobs[i]) == 0;
                }
            }
            for (uint32_t i = 0; i < rd->thread_count; i++) {
                if (!rd->threads[i].started) copy_large_arrays(&rd->threads[i], reading);
            }
            for (uint32_t i = 1; i < rd->thread_count; i++) {
                if (rd->threads[i].started) pthread_join(rd->threads[i].thread, NULL);
            }
            free(jobs);
        }
        free_reader(rd);
    } else {
        cdw_result *whole = &reading->whole;
        if (functions && whole->function_count)
            copy_releasing(functions, whole->functions, whole->function_count * sizeof(cdw_function),
                           reading->release_step);
        if (ranges && whole->range_count)
            copy_releasing(ranges, whole->ranges, whole->range_count * sizeof(cdw_range),
                           reading->release_step);
        if (rows && whole->row_count)
            copy_releasing(rows, whole->rows, whole->row_count * sizeof(cdw_row), reading->release_step);
        cdw_result_free(whole);
    }
    free(reading);
}

void cdw_result_free(cdw_result *r) {
    if (!r) return;
    free(r->functions);
    free(r->ranges);
    free(r->rows);
    free(r->files);
    free(r->units);
    free(r->directories);
    free(r->strings);
    memset(r, 0, sizeof(*r));
}
