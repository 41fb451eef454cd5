#ifndef APP_ENGINE_H
#define APP_ENGINE_H

#ifdef __cplusplus
extern "C" {
#endif

int engine_run(int rounds);

#ifdef __cplusplus
}
#endif

#endif
