// The program the ELF and DWARF seeds are made of (make_seeds.sh): small,
// freestanding (no C library, so the files stay a few KB), with an inlined
// call chain, a static function, a template and a function split into a
// hot and a cold part, so its DWARF has inline entries and range lists.
namespace tiny {

static volatile unsigned long sink;

template <typename T>
inline __attribute__((always_inline)) T twice(T v) {
  return v + v;
}

inline __attribute__((always_inline)) unsigned long step(unsigned long v) {
  return twice(v) ^ (v >> 3);
}

static __attribute__((noinline)) unsigned long mix(unsigned long v) {
  for (int i = 0; i < 8; ++i) v = step(v);
  return v;
}

__attribute__((noinline, cold)) void rare(unsigned long v) {
  sink = v * 3;
}

__attribute__((noinline)) unsigned long work(unsigned long v) {
  v = mix(v);
  if (__builtin_expect(v == 42, 0)) rare(v);
  return v;
}

}  // namespace tiny

extern "C" void _start() {
  tiny::sink = tiny::work(7);
  for (;;) {
  }
}
