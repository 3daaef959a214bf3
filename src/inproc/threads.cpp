// pthread_create interposition: libstrobe defines pthread_create, so threads
// created by the program (when libstrobe is preloaded or linked ahead of
// libc) start in a trampoline that registers them with the running session
// before their start routine runs, so their first samples are not missed.
// /proc/self/task rescans (session.cpp) cover threads created otherwise. As
// the thread exits, its name then is kept (a rename after its first sample
// would otherwise be lost with the thread).
// Builds with sanitizers leave this out (STROBE_INPROC_NO_INTERPOSE): their
// runtimes interpose pthread_create themselves and must run first in a new
// thread.
#ifndef STROBE_INPROC_NO_INTERPOSE

#include <dlfcn.h>
#include <pthread.h>

#include <new>

#include "inproc/session.hpp"

namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

CreateFn realCreate() {
  static CreateFn fn = reinterpret_cast<CreateFn>(::dlsym(RTLD_NEXT, "pthread_create"));
  return fn;
}

struct Start {
  void* (*fn)(void*);
  void* arg;
  bool internal;
};

// Destroyed as its thread exits, whether the start routine returns or calls
// pthread_exit (thread_local destructors run either way).
struct ExitHook {
  bool armed = false;
  ~ExitHook() {
    if (armed) strobe::inproc::onThreadExit();
  }
};
thread_local ExitHook t_exit_hook;

void* trampoline(void* p) {
  Start s = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  strobe::inproc::setInternalThreadFlag(s.internal);
  strobe::inproc::onThreadStart();
  t_exit_hook.armed = true;
  return s.fn(s.arg);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*fn)(void*),
                                                                     void* arg) {
  CreateFn real = realCreate();
  if (real == nullptr) return EAGAIN;
  auto* s = new (std::nothrow) Start{fn, arg, strobe::inproc::isInternalThread()};
  if (s == nullptr) return real(thread, attr, fn, arg);
  int rc = real(thread, attr, trampoline, s);
  if (rc != 0) delete s;
  return rc;
}

#endif  // STROBE_INPROC_NO_INTERPOSE
