/* Starts libstrobe with the default options (engine auto) through the C API
 * and prints which engine runs and why perf was not used, during the
 * session and after it; inproc_preload_test runs it under a seccomp filter
 * that refuses perf_event_open. */
#include <stdio.h>
#include <strobe/strobe.h>

int main(void) {
  if (strobe_start(NULL) != 0) {
    fprintf(stderr, "%s\n", strobe_last_error());
    return 1;
  }
  printf("running: engine=%s fallback=%s\n", strobe_engine_name(), strobe_engine_fallback_reason());
  if (strobe_stop() != 0) {
    fprintf(stderr, "%s\n", strobe_last_error());
    return 1;
  }
  printf("stopped: engine=%s fallback=%s\n", strobe_engine_name(), strobe_engine_fallback_reason());
  return 0;
}
