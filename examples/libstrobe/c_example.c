/* Profiles one phase of a C program with libstrobe's C API and prints the
 * text report; with an argument, also writes the profile there (the format
 * follows the extension: .pb.gz for pprof, .svg for a flame graph, ...).
 * Build against an installed libstrobe: cc c_example.c $(pkg-config --cflags --libs strobe) */
#include <stdio.h>
#include <strobe/strobe.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void hot(unsigned long n) {
  unsigned long x = sink | 1;
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  sink = x;
}

__attribute__((noinline)) static void cold(unsigned long n) {
  hot(n / 4);
}

int main(int argc, char** argv) {
  strobe_options opt;
  strobe_options_init(&opt);
  opt.frequency = 999;
  if (strobe_start(&opt) != 0) {
    fprintf(stderr, "strobe_start: %s\n", strobe_last_error());
    return 1;
  }
  for (int i = 0; i < 200; ++i) {
    hot(1000000);
    cold(1000000);
  }
  if (strobe_stop() != 0) {
    fprintf(stderr, "strobe_stop: %s\n", strobe_last_error());
    return 1;
  }
  printf("engine: %s, samples: %llu, dropped: %llu\n", strobe_engine_name(),
         (unsigned long long)strobe_sample_count(), (unsigned long long)strobe_dropped_samples());
  strobe_report(stdout);
  if (argc > 1 && strobe_write(argv[1], NULL) != 0) {
    fprintf(stderr, "strobe_write: %s\n", strobe_last_error());
    return 1;
  }
  return 0;
}
