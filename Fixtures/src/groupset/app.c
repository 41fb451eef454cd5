/* The app of the grouping measurement set (Fixtures/make_group_set.py): one bug per crash kind,
 * each reached through its own chain of calls from app_run. Built for arm64, arm64e, x86_64 and
 * the iOS simulator at -O0 and -O2; the set's reports point into those builds. No SDK headers:
 * what the app calls outside itself is declared here and bound at run time. The lines the
 * reports crash at are found by their text (the comments marking them must stay unique): the line
 * marked `crash: KIND`, else (where the optimizer left it no row of its own) the one marked `or: KIND`. */

typedef unsigned long size_t;

/* Swift traps each failed check where it fails; clang would merge a function's traps into one
 * instruction (at line 0) that no symbolicator can tell apart. */
#define NOMERGE __attribute__((nomerge))

void abort(void) __attribute__((noreturn));
void *malloc(size_t size);
char *strcpy(char *dst, const char *src);
void log_result(int kind, long value);
long dispatch_semaphore_wait(void *semaphore, unsigned long long timeout);
void objc_exception_throw(void *exception) __attribute__((noreturn));
void *make_exception(const char *name, const char *reason);
void *objc_msgSend(void *receiver, const char *selector, ...);

struct row { int width; int height; };
struct table { struct row **rows; int count; };
struct prices { const long *values; long count; };
struct user { const char *name; };
struct handler { long (*callback)(void *context); void *context; };
struct node { struct node *left; struct node *right; long weight; };
struct label { void *text; long length; };

/* null-deref: a table with a missing row. */
static int row_width(const struct row *row)
{
    return row->width; /* crash: null-deref */
}

static int layout_rows(const struct table *table)
{
    int sum = 0;
    /* An optimizer that folds row_width's load into the sum leaves no row of its line: */
    for (int i = 0; i < table->count; i++) sum += row_width(table->rows[i]); /* or: null-deref */
    return sum;
}

int screen_table(const struct table *table)
{
    int width = layout_rows(table);
    log_result(1, width);
    return width;
}

/* bounds: Swift's array subscript check, as the compiler emits it (a trap). */
static long element_at(const struct prices *prices, long index)
{
    if (index < 0 || index >= prices->count) NOMERGE __builtin_trap(); /* crash: bounds */
    return prices->values[index];
}

static long total_price(const struct prices *prices, long extra)
{
    long total = 0;
    for (long i = 0; i <= prices->count + extra; i++) total += element_at(prices, i);
    return total;
}

long screen_cart(const struct prices *prices, long extra)
{
    long total = total_price(prices, extra);
    log_result(2, total);
    return total;
}

/* unwrap: a force unwrap of nil (Swift's check, a trap). */
static const struct user *unwrap_user(const struct user *user)
{
    if (!user) NOMERGE __builtin_trap(); /* crash: unwrap */
    return user;
}

static const char *current_user_name(const struct user *user)
{
    return unwrap_user(user)->name;
}

long screen_profile(const struct user *user)
{
    const char *name = current_user_name(user);
    log_result(3, (long)name);
    return name != 0;
}

/* abort: a broken invariant. */
static void validate_state(long state)
{
    if (state < 0) abort(); /* crash: abort */
    log_result(4, state);
}

static void save_document(long state)
{
    validate_state(state);
    log_result(4, state + 1);
}

long screen_editor(long state)
{
    save_document(state);
    log_result(4, state + 2);
    return state;
}

/* exception: an uncaught Objective-C exception thrown from C. */
static void parse_config(const char *text)
{
    if (!text) objc_exception_throw(make_exception("NSInvalidArgumentException", "nil config")); /* crash: exception */
    log_result(5, (long)text);
}

static void load_settings(const char *text)
{
    parse_config(text);
    log_result(5, 1);
}

long screen_settings(const char *text)
{
    load_settings(text);
    log_result(5, 2);
    return 0;
}

/* stack-smash: a name longer than its buffer. */
__attribute__((noinline)) long copy_name(const char *name)
{
    char buffer[16];
    strcpy(buffer, name); /* crash: stack-smash */
    log_result(6, (long)buffer);
    return buffer[0];
}

static long rename_account(const char *name)
{
    long first = copy_name(name);
    log_result(6, first);
    return first;
}

long screen_account(const char *name)
{
    long first = rename_account(name);
    log_result(6, first + 1);
    return first;
}

/* jump: a callback pointer overwritten with a pointer to data. */
__attribute__((noinline)) long run_callback(const struct handler *handler)
{
    long result = handler->callback(handler->context); /* crash: jump */
    log_result(7, result);
    return result;
}

static long dispatch_event(const struct handler *handler)
{
    long result = run_callback(handler);
    log_result(7, result + 1);
    return result;
}

long screen_events(const struct handler *handler)
{
    long result = dispatch_event(handler);
    log_result(7, result + 2);
    return result;
}

/* overflow: a recursion as deep as a degenerate tree. */
__attribute__((noinline)) long walk_tree(const struct node *node, long depth)
{
    volatile char scratch[128];
    scratch[depth & 127] = (char)depth; /* crash: overflow */
    if (!node) return scratch[0];
    long weight = walk_tree(node->left, depth + 1) + walk_tree(node->right, depth + 1);
    return weight + node->weight + scratch[1];
}

static long tree_weight(const struct node *root)
{
    long weight = walk_tree(root, 0);
    log_result(8, weight);
    return weight;
}

long screen_tree(const struct node *root)
{
    long weight = tree_weight(root);
    log_result(8, weight + 1);
    return weight;
}

/* divide: Swift's division check, as the compiler emits it (a trap). */
static long average(long total, long count)
{
    if (count == 0) NOMERGE __builtin_trap(); /* crash: divide */
    return total / count;
}

static long summarize(const long *values, long count)
{
    long total = 0;
    for (long i = 0; i < count; i++) total += values[i];
    return average(total, count);
}

long screen_stats(const long *values, long count)
{
    long mean = summarize(values, count);
    log_result(9, mean);
    return mean;
}

/* watchdog: the main thread waiting for work that never comes. */
static long wait_for_catalog(void *semaphore)
{
    long status = dispatch_semaphore_wait(semaphore, ~0ull); /* crash: watchdog */
    log_result(10, status);
    return status;
}

static long load_catalog(void *semaphore)
{
    long status = wait_for_catalog(semaphore);
    log_result(10, status + 1);
    return status;
}

long screen_catalog(void *semaphore)
{
    long status = load_catalog(semaphore);
    log_result(10, status + 2);
    return status;
}

/* memory: a cache that only grows. */
static void *grow_cache(long megabytes)
{
    void *block = malloc((size_t)megabytes << 20); /* crash: memory */
    log_result(11, (long)block);
    return block;
}

static long cache_image(long megabytes)
{
    long count = 0;
    for (long i = 0; i < megabytes; i++) count += grow_cache(i) != 0;
    log_result(11, count);
    return count;
}

long screen_gallery(long megabytes)
{
    long count = cache_image(megabytes);
    log_result(11, count + 1);
    return count;
}

/* simulator: a message to a released label (objc_msgSend faults in the simulator's runtime). */
static long label_length(struct label *label)
{
    long length = (long)objc_msgSend(label->text, "length"); /* crash: simulator */
    log_result(12, length);
    return length;
}

static long draw_label(struct label *label)
{
    long length = label_length(label);
    log_result(12, length + 1);
    return length;
}

long screen_labels(struct label *label)
{
    long length = draw_label(label);
    log_result(12, length + 2);
    return length;
}

/* The dispatch from main: which screen crashes is the argument. */
__attribute__((noinline)) long app_run(int which, void *argument)
{
    long result = 0;
    switch (which) {
    case 1: result = screen_table(argument); break;
    case 2: result = screen_cart(argument, 1); break;
    case 3: result = screen_profile(argument); break;
    case 4: result = screen_editor((long)argument); break;
    case 5: result = screen_settings(argument); break;
    case 6: result = screen_account(argument); break;
    case 7: result = screen_events(argument); break;
    case 8: result = screen_tree(argument); break;
    case 9: result = screen_stats(argument, 0); break;
    case 10: result = screen_catalog(argument); break;
    case 11: result = screen_gallery((long)argument); break;
    case 12: result = screen_labels(argument); break;
    }
    log_result(0, result);
    return result;
}

int main(int argc, char **argv)
{
    long result = app_run(argc, argv[1]);
    log_result(-1, result);
    return (int)result;
}
