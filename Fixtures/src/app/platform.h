/* The few C library and threading calls the app uses, declared by hand so the
 * sources build without an SDK (Mach-O links resolve them at load time). */
#ifndef APP_PLATFORM_H
#define APP_PLATFORM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef __SIZE_TYPE__ size_t;
typedef unsigned int u32;
typedef unsigned char u8;

int printf(const char *format, ...);
void abort(void);
int sched_yield(void);

/* Opaque storage for a pthread_t, large enough on every target. */
typedef struct { void *opaque[2]; } app_thread;
int pthread_create(app_thread *thread, const void *attr, void *(*start)(void *), void *arg);
int pthread_join(app_thread thread, void **result);

#ifdef __cplusplus
}
#endif

#endif
