// Units, tasks and threads.
//
// Each unit is two tasks: its line table (file list and rows) and its functions (and their
// ranges). Threads take tasks in unit order from a shared counter, each into its own sink; the
// results are put together in unit order at the end (merge.c), so the result does not depend
// on the number of threads but for string offsets, and for one kind of damage: units that share
// range-list entries (no producer's do), of which the first to read an entry reads it free
// (count_list_entry), so which of them runs out of its bound may depend on the threads. A task
// that fails leaves nothing behind but its message: its unit is skipped.

#include "reader.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void run_task(thread_ctx *t, uint32_t k) {
    reader *rd = t->reader;
    uint32_t unit = k / 2;
    int functions = k % 2;
    const unit_header *h = &rd->units[unit];
    task_result *result = functions ? &rd->functions[unit] : &rd->lines[unit];
    result->thread = (int32_t)t->index;
    sink_counts(&t->s, result->start);
    char message[512];
    message[0] = '\0';
    const uint8_t *line_read[2] = {NULL, NULL};
    t->s.lists_read[0] = t->s.lists_read[1] = NULL;
    int res = FAST_OK;
    if (functions) {
        res = fast_unit_functions(&t->s, &t->abbrevs, &rd->sections, rd->object->big_endian, h);
        if (res == FAST_OK && t->s.drop_unused_functions)
            res = drop_unused_functions(&t->s, result->start[ARR_FUNCTIONS]);
    } else if (h->line_owner == unit) {  // else the unit's line program is another unit's
        res = fast_unit_lines(&t->s, &t->abbrevs, &rd->sections, rd->object->big_endian, h,
                              line_read);
    }
    // A line program is read once: its pages go now (those it shares with the programs either
    // side stay; they go with the section at the end).
    if (res == FAST_OK && !functions && line_read[0])
        release_section_bytes(rd->object, line_read[0], line_read[1], 0);
    // So are a unit's range lists, mostly side by side (what lies between, if anything, is read
    // from the file again when another unit needs it).
    if (res == FAST_OK && functions && t->s.lists_read[0])
        release_section_bytes(rd->object, t->s.lists_read[0], t->s.lists_read[1], 0);
    const char *what = functions ? "DIEs" : "line table";
    if (res == FAST_NO_MEMORY) {
        set_message(message, sizeof(message), "compile unit at 0x%llx: out of memory",
                    (unsigned long long)h->offset);
    } else if (res == FAST_DAMAGED) {
        set_message(message, sizeof(message), "compile unit at 0x%llx: damaged %s, skipped",
                    (unsigned long long)h->offset, what);
    } else if (res == FAST_UNSUPPORTED) {
        set_message(message, sizeof(message),
                    "compile unit at 0x%llx: its %s use a form or an encoding this reader does "
                    "not know, skipped",
                    (unsigned long long)h->offset, what);
    }
    int failed = res != FAST_OK;
    if (failed) sink_truncate(&t->s, result->start);
    if (failed) {
        result->failed = 1;
        result->message = strdup(message);
    }
    sink_counts(&t->s, result->end);
}

// One task of `unit` is done: once every unit before some point is read (threads take tasks
// in unit order, so that point follows them closely), the .debug_info pages before it are
// released. The pages another unit still needs (a reference into an earlier unit)
// are read from the file again.
static void unit_read(reader *rd, uint32_t unit) {
    atomic_fetch_add_explicit(&rd->tasks_done[unit], 1, memory_order_release);
    if (pthread_mutex_trylock(&rd->release_lock) != 0) return;  // another thread is at it
    uint32_t u = rd->units_read;
    while (u < rd->unit_count && atomic_load_explicit(&rd->tasks_done[u], memory_order_acquire) == 2)
        u++;
    rd->units_read = u;
    uint64_t end = u < rd->unit_count ? rd->units[u].offset : rd->sections.info.size;
    if (end >= rd->info_released + release_step(rd->object)) {
        const uint8_t *info = rd->sections.info.data;
        release_section_bytes(rd->object, info + rd->info_released, info + end, 0);
        // The page holding `end` is partly unread: the next release starts there.
        uintptr_t page = (uintptr_t)getpagesize();
        uintptr_t next = ((uintptr_t)(info + end)) & ~(page - 1);
        rd->info_released = next > (uintptr_t)info ? (uint64_t)(next - (uintptr_t)info) : 0;
    }
    pthread_mutex_unlock(&rd->release_lock);
}

static void *thread_main(void *argument) {
    thread_ctx *t = argument;
    reader *rd = t->reader;
    for (;;) {
        uint32_t k = atomic_fetch_add(&rd->next_task, 1);
        if (k >= rd->task_count) break;
        run_task(t, k);
        if (rd->tasks_done) unit_read(rd, k / 2);
    }
    return NULL;
}

int cdw_read_start(cdw_object *object, const cdw_read_options *options, cdw_result *result,
                   cdw_reading **out, char *message, size_t message_size) {
    cdw_read_options defaults;
    memset(&defaults, 0, sizeof(defaults));
    if (!options) options = &defaults;
    memset(result, 0, sizeof(*result));
    *out = NULL;
    reader *rd = calloc(1, sizeof(*rd));
    if (!rd) {
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    pthread_mutex_init(&rd->release_lock, NULL);
    rd->object = object;
    if (find_dwarf_sections(object, &rd->sections, message, message_size) != 0) {
        free_reader(rd);
        return CDW_ERROR;
    }
    // A bit per byte of each range-list section (see count_list_entry); without the memory,
    // every entry counts against the unit's budget.
    const span *lists[2] = {&rd->sections.ranges, &rd->sections.rnglists};
    for (int k = 0; k < 2; k++) {
        if (!lists[k]->data || !lists[k]->size) continue;
        rd->marks.size[k] = lists[k]->size;
        rd->marks.bits[k] = calloc((lists[k]->size + 63) / 64, sizeof(uint64_t));
    }
    char header_message[512];
    header_message[0] = '\0';
    int header_status = scan_units(&rd->sections, object->big_endian, &rd->units,
                                   &rd->unit_count, header_message, sizeof(header_message));
    if (header_status == CDW_ERROR) {
        set_message(message, message_size, "%s", header_message);
        free_reader(rd);
        return CDW_ERROR;
    }
    if (survey_units(rd) != FAST_OK) {
        set_message(message, message_size, "out of memory");
        free_reader(rd);
        return CDW_ERROR;
    }
    rd->task_count = rd->unit_count * 2;
    rd->lines = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(task_result));
    rd->functions = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(task_result));
    if (object->release_base)
        rd->tasks_done = calloc(rd->unit_count ? rd->unit_count : 1, sizeof(atomic_uchar));
    uint32_t threads = options->threads ? options->threads : default_thread_count();
    // Small objects are not worth a thread.
    if (!options->threads && rd->sections.info.size + rd->sections.line.size < (1u << 20))
        threads = 1;
    if (threads > rd->task_count) threads = rd->task_count ? rd->task_count : 1;
    if (threads > 64) threads = 64;
    rd->thread_count = threads;
    rd->threads = calloc(threads, sizeof(thread_ctx));
    rd->string_base = calloc(threads, sizeof(uint64_t));
    int ready = rd->lines && rd->functions && rd->threads && rd->string_base &&
                (rd->tasks_done || !object->release_base);
    for (uint32_t u = 0; ready && u < rd->unit_count; u++)
        rd->lines[u].thread = rd->functions[u].thread = -1;
    int drop_functions = !options->keep_unused && !rd->references_leave_units;
    for (uint32_t i = 0; ready && i < threads; i++) {
        rd->threads[i].reader = rd;
        rd->threads[i].index = i;
        ready = sink_init(&rd->threads[i].s) == 0;
        rd->threads[i].s.marks = &rd->marks;
        rd->threads[i].s.drop_unused_rows = !options->keep_unused;
        rd->threads[i].s.drop_unused_functions = drop_functions;
    }
    if (!ready) {
        set_message(message, message_size, "out of memory");
        free_reader(rd);
        return CDW_ERROR;
    }
    atomic_init(&rd->next_task, 0);
    // Read: every thread takes tasks until none is left (a thread that does not start leaves
    // its share to the others).
    for (uint32_t i = 1; i < threads; i++) {
        rd->threads[i].started =
            pthread_create(&rd->threads[i].thread, NULL, thread_main, &rd->threads[i]) == 0;
    }
    thread_main(&rd->threads[0]);
    for (uint32_t i = 1; i < threads; i++) {
        if (rd->threads[i].started) pthread_join(rd->threads[i].thread, NULL);
    }
    // What only reading needs goes now: abbreviations, interned strings, range-list marks.
    for (int k = 0; k < 2; k++) {
        free((void *)rd->marks.bits[k]);
        rd->marks.bits[k] = NULL;
    }
    for (uint32_t i = 0; i < rd->table_count; i++) abbrev_table_free(&rd->tables[i]);
    free(rd->tables);
    rd->tables = NULL;
    rd->table_count = 0;
    for (uint32_t i = 0; i < threads; i++) {
        thread_ctx *t = &rd->threads[i];
        abbrev_table_free(&t->abbrevs);
        free(t->s.interned);
        t->s.interned = NULL;
        free(t->s.enclosing);
        t->s.enclosing = NULL;
        t->s.enclosing_capacity = 0;
        t->s.interned_capacity = t->s.interned_count = 0;
    }
    release_sections(object);

    // A unit one of whose tasks failed is skipped whole: what its other task read is left out.
    // So is one whose line program another unit failed to read.
    int status = header_status;
    const char *first = header_status != CDW_OK ? header_message : NULL;
    for (uint32_t u = 0; u < rd->unit_count; u++) {
        task_result *tasks[2] = {&rd->lines[u], &rd->functions[u]};
        if (!tasks[0]->failed && !tasks[1]->failed && !rd->lines[rd->units[u].line_owner].failed)
            continue;
        for (int k = 0; k < 2; k++) {
            if (tasks[k]->failed && (status == CDW_OK || first == header_message))
                first = tasks[k]->message ? tasks[k]->message : "out of memory";
            tasks[k]->thread = -1;
        }
        rd->units_dropped = 1;
        status = CDW_PARTIAL;
    }
    if (first) set_message(message, message_size, "%s", first);

    cdw_reading *reading = NULL;
    // One thread's arrays are the result as they are, unless a skipped unit left some behind.
    if (threads == 1 && status == CDW_OK) {
        finish_in_place(rd);
        *result = rd->threads[0].s.r;
        memset(&rd->threads[0].s.r, 0, sizeof(cdw_result));
        free_reader(rd);
        reading = one_piece(result, object);
    } else if (lay_out(rd, result) == 0) {
        reading = calloc(1, sizeof(*reading));
        if (reading) reading->rd = rd;
    }
    if (!reading) {
        if (rd && !(threads == 1 && status == CDW_OK)) free_reader(rd);
        cdw_result_free(result);
        set_message(message, message_size, "out of memory");
        return CDW_ERROR;
    }
    *out = reading;
    return status;
}
