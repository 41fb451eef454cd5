#include "platform.h"
#include "records.h"
#include "checksum.h"
#include "engine.h"
#include "../greeter/greeter.h"

static const u32 g_words_a[] = { 0x00000011u, 0x22, 0x33, 0x44 };
static const u32 g_words_b[] = { 0x00000101u, 0x202, 0x303 };
static const struct payload g_payload_a = { 4, 0x1, g_words_a };
static const struct payload g_payload_b = { 3, 0x0, g_words_b };
/* The last record is damaged: its payload has no word array. */
static const struct payload g_payload_bad = { 2, 0x4, 0 };

static const struct record g_records[] = {
    { RECORD_MAGIC, 1, "alpha", &g_payload_a },
    { RECORD_MAGIC, 2, "beta", &g_payload_b },
    { 0x0badf00du, 3, "gamma", &g_payload_b },
    { RECORD_MAGIC, 4, "delta", &g_payload_bad },
};

static inline int record_count(int include_damaged)
{
    int total = (int)(sizeof g_records / sizeof g_records[0]);
    return include_damaged ? total : total - 1;
}

static inline u32 batch_fingerprint(int count)
{
    u32 ids[8];
    for (int i = 0; i < count && i < 8; i++)
        ids[i] = g_records[i].id;
    return checksum_words(ids, (u32)(count < 8 ? count : 8), 0x5eed);
}

static inline int load_and_process(int include_damaged)
{
    int count = record_count(include_damaged);
    u32 fingerprint = batch_fingerprint(count);
    int accepted = process_records(g_records, count);
    printf("batch %08x: %d of %d accepted\n", fingerprint, accepted, count);
    return accepted;
}

/* Called once the application is up (by UIKit on iOS, by main elsewhere). */
__attribute__((noinline)) int app_did_finish_launching(int include_damaged)
{
    int accepted = load_and_process(include_damaged);
    return accepted > 0 ? 0 : 1;
}

__attribute__((noinline)) void *engine_thread_main(void *arg)
{
    int rounds = *(const int *)arg;
    int ran = engine_run(rounds);
    printf("engine ran %d tasks\n", ran);
    return 0;
}

__attribute__((noinline)) void *greeting_thread_main(void *arg)
{
    const char *user = (const char *)arg;
    greeter_say_hello(user, record_digest(&g_records[0]));
    return 0;
}

#if defined(__ENVIRONMENT_IPHONE_OS_VERSION_MIN_REQUIRED__)
int UIApplicationMain(int argc, char **argv, void *principal, void *delegate);
#endif

int main(int argc, char **argv)
{
    static int rounds = 3;
    app_thread engine_thread, greeting_thread;
    pthread_create(&engine_thread, 0, engine_thread_main, &rounds);
    pthread_create(&greeting_thread, 0, greeting_thread_main, (void *)"Ada");
#if defined(__ENVIRONMENT_IPHONE_OS_VERSION_MIN_REQUIRED__)
    return UIApplicationMain(argc, argv, 0, 0);
#else
    (void)argv;
    int status = app_did_finish_launching(argc > 1);
    pthread_join(engine_thread, 0);
    pthread_join(greeting_thread, 0);
    return status;
#endif
}
