// SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-only
/* strobe's BPF program: runs at each sample of a cpu-clock (or other)
 * perf event opened on every CPU, and, with --off-cpu, at each context
 * switch. It reads; it never aggregates: each sample of a target process
 * becomes one record (sample_record.h) in the `events` ring buffer, and a
 * record the ring has no room for is counted (`counters`), as perf counts
 * LOST samples. Samples of other processes are dropped before anything is
 * copied.
 *
 * Targets: `targets` maps a process id (tgid) to its state. A launched
 * command is entered HELD before its exec and becomes ACTIVE at the exec
 * (its pre-exec code, strobe's own, is never sampled); an attached process
 * is ACTIVE from the start; a child forked by an ACTIVE process becomes
 * ACTIVE (sched_process_fork), so descendants are followed from their first
 * instruction, and a process's entry goes when its last thread exits.
 * Threads need no entry: they are their process's. With cfg_filter = 0
 * (system-wide) every process but the idle task is sampled.
 *
 * Kernel types: only the fields read are declared, with
 * preserve_access_index, so libbpf relocates them against the running
 * kernel's BTF (CO-RE); no vmlinux.h is generated or checked in.
 * x86-64 only (the user registers are read in its pt_regs layout). */
/* The uapi types first: libbpf's headers use them. */
#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sample_record.h"

#if !defined(__TARGET_ARCH_x86)
#error "strobe's BPF program reads x86-64 registers: build with -D__TARGET_ARCH_x86"
#endif

/* The helpers that read user memory are for GPL-compatible programs only;
 * this file is offered under GPL-2.0 too (NOTICE). */
char LICENSE[] SEC("license") = "GPL";

/* ---- kernel types: only what is read ---- */

typedef struct {
  int counter;
} atomic_t;

struct signal_struct {
  atomic_t live; /* threads alive: 0 once the last one is exiting */
} __attribute__((preserve_access_index));

struct mm_struct;

struct task_struct {
  int pid;  /* the thread id */
  int tgid; /* the process id */
  struct mm_struct* mm;
  struct signal_struct* signal;
} __attribute__((preserve_access_index));

/* x86-64's saved user registers (the entry code's frame: its layout is ABI). */
struct user_regs {
  unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs,
      flags, sp, ss;
};

/* The perf_event program's context (linux/bpf_perf_event.h, uapi). */
struct bpf_perf_event_data {
  struct user_regs regs;
  __u64 sample_period;
  __u64 addr;
};

/* ---- configuration, set by strobe before loading ---- */

#define MAX_KSTACK 127 /* frames */
#define MAX_USTACK 127 /* frames */
#define MAX_STACK_COPY 65536
#define PAGE 4096

const volatile __u32 cfg_filter = 1;      /* keep only the targets' samples */
const volatile __u32 cfg_kstack = 0;      /* -k: the kernel stack */
const volatile __u32 cfg_ustack = 1;      /* the kernel's frame-pointer walk of the user stack */
const volatile __u32 cfg_build_id = 0;    /* ... as build-id + offset frames */
const volatile __u32 cfg_stack_bytes = 0; /* -g dwarf/auto: user stack bytes to copy (8-aligned) */
const volatile __u32 cfg_switch_stack_bytes = 0; /* --off-cpu: the same at a switch-out */
const volatile __u64 cfg_wakeup_bytes = 0;       /* wake strobe once this much waits in the ring */

/* ---- maps ---- */

#define TARGET_HELD 1
#define TARGET_ACTIVE 2

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);   /* tgid */
  __type(value, __u32); /* TARGET_* */
} targets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 22); /* resized by strobe */
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, STROBE_CTR_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

/* Where a record is put together before it is copied into the ring: one
 * slot per CPU and program kind (a sample's interrupt never nests in the
 * scheduler's tracepoint, which runs with interrupts off; the slots are
 * apart anyway). Too large for a per-CPU array's value. */
#define SCRATCH_BYTES                                                                  \
  (sizeof(struct strobe_record) + 5 * sizeof(struct strobe_section) + MAX_KSTACK * 8 + \
   MAX_USTACK * sizeof(struct strobe_build_id_frame) + STROBE_REGS_COUNT * 8 + MAX_STACK_COPY + \
   STROBE_MAX_RUNTIME_FRAMES * sizeof(struct strobe_runtime_frame))
struct scratch {
  __u8 bytes[SCRATCH_BYTES];
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2); /* 2 x CPUs: set by strobe */
  __type(key, __u32);
  __type(value, struct scratch);
} scratch SEC(".maps");

/* CPython processes among the targets (record/python_frames.hpp finds
 * them from their mappings; strobe enters their layout here), and the
 * thread state of each of their threads once found (checked at each use:
 * a tid is reused, a thread state freed). */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32); /* tgid */
  __type(value, struct strobe_python_proc);
} python_procs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);   /* tid */
  __type(value, __u64); /* PyThreadState address */
} python_threads SEC(".maps");

/* One interpreter frame as read, per CPU. */
struct pyframe {
  __u8 bytes[STROBE_PY_FRAME_READ];
};
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct pyframe);
} pyframe_buf SEC(".maps");

/* ---- helpers ---- */

static __always_inline void count(__u32 which) {
  __u64* v = bpf_map_lookup_elem(&counters, &which);
  if (v) __sync_fetch_and_add(v, 1);
}

static __always_inline int isTarget(__u32 tgid) {
  if (!cfg_filter) return tgid != 0;
  __u32* state = bpf_map_lookup_elem(&targets, &tgid);
  return state && *state == TARGET_ACTIVE;
}

/* Bounds every offset for the verifier: sections are written below this. */
#define OFF_MASK ((1u << 17) - 1)

/* Opens a section at `off`; returns the offset of its data. */
static __always_inline __u32 openSection(struct scratch* s, __u32 off, __u16 kind) {
  off &= OFF_MASK;
  if (off + sizeof(struct strobe_section) > sizeof(s->bytes)) return 0;
  struct strobe_section* sec = (void*)&s->bytes[off];
  sec->kind = kind;
  sec->reserved = 0;
  sec->size = 0;
  return off + sizeof(struct strobe_section);
}

/* Closes the section opened at data offset `data` with `size` bytes;
 * returns the offset after it (padded to 8). */
static __always_inline __u32 closeSection(struct scratch* s, struct strobe_record* r, __u32 data,
                                          __u32 size) {
  __u32 at = (data - sizeof(struct strobe_section)) & OFF_MASK;
  if (at + sizeof(struct strobe_section) > sizeof(s->bytes)) return data;
  struct strobe_section* sec = (void*)&s->bytes[at];
  sec->size = size;
  r->nsections++;
  return data + ((size + 7) & ~7u);
}

/* The user stack: the kernel's frame-pointer walk (addresses or build-id
 * frames). Returns the offset after the section (unchanged on failure). */
static __always_inline __u32 addUserStack(void* ctx, struct scratch* s, struct strobe_record* r,
                                          __u32 off) {
  const __u32 build_id = cfg_build_id;
  __u32 data = openSection(s, off, build_id ? STROBE_SEC_USTACK_BUILD_ID : STROBE_SEC_USTACK);
  if (data == 0 || data > SCRATCH_BYTES - MAX_USTACK * sizeof(struct strobe_build_id_frame)) {
    return off;
  }
  long n;
  if (build_id) {
    n = bpf_get_stack(ctx, &s->bytes[data], MAX_USTACK * sizeof(struct strobe_build_id_frame),
                      BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
  } else {
    n = bpf_get_stack(ctx, &s->bytes[data], MAX_USTACK * 8, BPF_F_USER_STACK);
  }
  if (n < 0) {
    r->flags |= STROBE_F_USTACK_FAILED;
    return off;
  }
  return closeSection(s, r, data, (__u32)n);
}

static __always_inline __u32 addKernelStack(void* ctx, struct scratch* s, struct strobe_record* r,
                                            __u32 off, __u32 skip) {
  __u32 data = openSection(s, off, STROBE_SEC_KSTACK);
  if (data == 0 || data > SCRATCH_BYTES - MAX_KSTACK * 8) return off;
  long n = bpf_get_stack(ctx, &s->bytes[data], MAX_KSTACK * 8, skip & BPF_F_SKIP_FIELD_MASK);
  if (n < 0) {
    r->flags |= STROBE_F_KSTACK_FAILED;
    return off;
  }
  return closeSection(s, r, data, (__u32)n);
}

/* The user registers in perf's order, then `bytes` of user stack from sp up,
 * a page at a time: the copy ends at the first page that cannot be read (the
 * top of the stack), as perf's does. */
static __always_inline __u32 addRegsAndStack(struct scratch* s, struct strobe_record* r, __u32 off,
                                             const struct user_regs* u, __u32 bytes) {
  __u32 data = openSection(s, off, STROBE_SEC_REGS);
  if (data == 0 || data > SCRATCH_BYTES - STROBE_REGS_COUNT * 8) return off;
  __u64* v = (void*)&s->bytes[data];
  v[0] = u->ax;
  v[1] = u->bx;
  v[2] = u->cx;
  v[3] = u->dx;
  v[4] = u->si;
  v[5] = u->di;
  v[6] = u->bp;
  v[7] = u->sp;
  v[8] = u->ip;
  v[9] = u->r8;
  v[10] = u->r9;
  v[11] = u->r10;
  v[12] = u->r11;
  v[13] = u->r12;
  v[14] = u->r13;
  v[15] = u->r14;
  v[16] = u->r15;
  off = closeSection(s, r, data, STROBE_REGS_COUNT * 8);

  data = openSection(s, off, STROBE_SEC_STACK);
  if (data == 0 || data > SCRATCH_BYTES - MAX_STACK_COPY) return off;
  __u32 done = 0;
  const __u64 sp = u->sp;
  for (int i = 0; i < MAX_STACK_COPY / PAGE + 1; i++) {
    if (done >= bytes || done >= MAX_STACK_COPY) break;
    __u32 chunk = PAGE - ((sp + done) & (PAGE - 1));
    if (chunk > bytes - done) chunk = bytes - done;
    if (chunk > PAGE) break;
    __u32 at = data + done;
    if (at > SCRATCH_BYTES - PAGE) break;
    if (bpf_probe_read_user(&s->bytes[at], chunk, (const void*)(sp + done)) != 0) {
      r->flags |= done == 0 ? STROBE_F_STACK_FAILED : STROBE_F_STACK_SHORT;
      break;
    }
    done += chunk;
  }
  if (done == 0) return off;
  return closeSection(s, r, data, done);
}

/* Copies the record put together in `s` into the ring; counts it lost when
 * there is no room. */
static __always_inline void emit(struct scratch* s, __u32 end, __u32 lost_counter) {
  struct strobe_record* r = (void*)s->bytes;
  __u64 size = ((__u64)end + 7) & ~7ull;
  barrier_var(size);
  if (size > SCRATCH_BYTES || size < sizeof(*r)) return;
  r->size = (__u32)size;
  __u64 flags = BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + size >= cfg_wakeup_bytes) {
    flags = BPF_RB_FORCE_WAKEUP;
  }
  if (bpf_ringbuf_output(&events, s->bytes, size, flags) != 0) count(lost_counter);
}

static __always_inline struct scratch* slot(__u32 which) {
  __u32 key = bpf_get_smp_processor_id() * 2 + which;
  return bpf_map_lookup_elem(&scratch, &key);
}

/* Starts a record in `s`: its header, no section yet. */
static __always_inline struct strobe_record* beginRecord(struct scratch* s, __u16 kind, __u16 flags,
                                                         __u64 time, __u32 pid, __u32 tid,
                                                         __u32 cpu) {
  struct strobe_record* r = (void*)s->bytes;
  r->kind = kind;
  r->flags = flags;
  r->size = 0;
  r->time = time;
  r->pid = pid;
  r->tid = tid;
  r->cpu = cpu;
  r->nsections = 0;
  r->period = 0;
  r->ip = 0;
  return r;
}

static __always_inline void readUserRegs(struct task_struct* task, struct user_regs* u) {
  struct user_regs* regs = (struct user_regs*)bpf_task_pt_regs(task);
  if (bpf_probe_read_kernel(u, sizeof(*u), regs) != 0) __builtin_memset(u, 0, sizeof(*u));
}

/* ---- CPython frames ---- */

/* Thread states looked at per sample at most, over every interpreter. */
#define MAX_PY_THREAD_STATES 512

static __always_inline __u64 readUserU64(__u64 address) {
  __u64 v = 0;
  if (bpf_probe_read_user(&v, sizeof(v), (const void*)address) != 0) return 0;
  return v;
}

/* A field of the frame read into `f` (0 when out of the part read). */
static __always_inline __u64 frameU64(const struct pyframe* f, __u32 at) {
  if (at > STROBE_PY_FRAME_READ - 8) return 0;
  __u64 v;
  __builtin_memcpy(&v, &f->bytes[at & (STROBE_PY_FRAME_READ - 1)], 8);
  return v;
}
static __always_inline __u8 frameU8(const struct pyframe* f, __u32 at) {
  if (at >= STROBE_PY_FRAME_READ) return 0;
  return f->bytes[at & (STROBE_PY_FRAME_READ - 1)];
}

/* bpf_loop's state for pythonThread: one thread state a step. */
struct py_thread_search {
  __u64 interp, tstate, found;
  __u32 tid, interp_next, interp_threads_head, tstate_next, tstate_native_thread_id;
};

static long pyThreadStep(__u64 index, void* ctx) {
  struct py_thread_search* w = ctx;
  if (w->tstate == 0) {
    if (w->interp == 0) return 1;
    w->interp = readUserU64(w->interp + w->interp_next);
    if (w->interp == 0) return 1;
    w->tstate = readUserU64(w->interp + w->interp_threads_head);
    return 0;
  }
  if (readUserU64(w->tstate + w->tstate_native_thread_id) == w->tid) {
    w->found = w->tstate;
    return 1;
  }
  w->tstate = readUserU64(w->tstate + w->tstate_next);
  return 0;
}

/* The thread state of thread `tid`: the one found before if it is still
 * that thread's, else found anew through the interpreters' thread lists. */
static __always_inline __u64 pythonThread(const struct strobe_python_proc* py, __u32 tid) {
  __u64* cached = bpf_map_lookup_elem(&python_threads, &tid);
  if (cached && *cached != 0 && readUserU64(*cached + py->tstate_native_thread_id) == tid) {
    return *cached;
  }
  struct py_thread_search w = {};
  w.tid = tid;
  w.interp_next = py->interp_next;
  w.interp_threads_head = py->interp_threads_head;
  w.tstate_next = py->tstate_next;
  w.tstate_native_thread_id = py->tstate_native_thread_id;
  w.interp = readUserU64(py->runtime + py->runtime_interpreters_head);
  w.tstate = w.interp ? readUserU64(w.interp + py->interp_threads_head) : 0;
  bpf_loop(MAX_PY_THREAD_STATES, pyThreadStep, &w, 0);
  if (w.found != 0) bpf_map_update_elem(&python_threads, &tid, &w.found, BPF_ANY);
  return w.found;
}

/* bpf_loop's state for addPythonFrames: one frame a step, written into the
 * record in scratch slot `which` from data offset `data`. */
struct py_frame_walk {
  __u64 frame;
  __u32 which, data, n, read_size, by_shim, cut;
  __u32 frame_code, frame_previous, frame_instr, frame_owner, frame_is_entry;
};

static long pyFrameStep(__u64 index, void* ctx) {
  struct py_frame_walk* w = ctx;
  if (w->frame == 0) return 1;
  __u32 zero = 0;
  struct pyframe* f = bpf_map_lookup_elem(&pyframe_buf, &zero);
  struct scratch* s = slot(w->which);
  if (!f || !s) return 1;
  __u32 size = w->read_size;
  if (size > STROBE_PY_FRAME_READ) size = STROBE_PY_FRAME_READ;
  if (size < 8) return 1;
  if (w->n >= STROBE_MAX_RUNTIME_FRAMES ||
      bpf_probe_read_user(f->bytes, size, (const void*)w->frame) != 0) {
    w->cut = 1;
    return 1;
  }
  const __u64 code = frameU64(f, w->frame_code);
  const __u64 instr = frameU64(f, w->frame_instr);
  w->frame = frameU64(f, w->frame_previous);
  __u32 at = (w->data + w->n * sizeof(struct strobe_runtime_frame)) & OFF_MASK;
  if (at > SCRATCH_BYTES - sizeof(struct strobe_runtime_frame)) return 1;
  if (w->by_shim && frameU8(f, w->frame_owner) == STROBE_PY_OWNER_CSTACK) {
    if (w->n > 0) {
      __u32 prev = (at - sizeof(struct strobe_runtime_frame)) & OFF_MASK;
      if (prev <= SCRATCH_BYTES - sizeof(struct strobe_runtime_frame)) {
        ((struct strobe_runtime_frame*)&s->bytes[prev])->flags |= STROBE_RT_ENTRY;
      }
    }
    return 0;
  }
  struct strobe_runtime_frame* out = (void*)&s->bytes[at];
  out->code = code;
  out->offset = instr >= code && instr - code <= 0xffffffffull ? (__u32)(instr - code) : 0;
  out->flags = !w->by_shim && frameU8(f, w->frame_is_entry) != 0 ? STROBE_RT_ENTRY : 0;
  out->runtime = STROBE_RUNTIME_CPYTHON;
  w->n++;
  return 0;
}

/* The Python frames of thread `tid` of a CPython process, newest first,
 * as cpython::FrameWalker reads them: shim frames (3.12+) left out, each
 * marking the frame above it as its activation's first; into the record
 * in scratch slot `which`, from offset `off`. Returns the offset after
 * them.
 *
 * A global function, so that the verifier checks it once, for any caller,
 * rather than once for every state its callers reach it in, each time
 * with both bpf_loop walks: on_sample's verification went from ~127,000
 * instructions and ~0.4 s of kernel CPU at every start to ~14,000 and
 * ~20 ms. */
__attribute__((noinline)) __u32 addPythonFrames(__u32 which, __u32 off, __u32 tgid, __u32 tid) {
  struct scratch* s = slot(which);
  if (!s) return off;
  struct strobe_record* r = (void*)s->bytes;
  const struct strobe_python_proc* py = bpf_map_lookup_elem(&python_procs, &tgid);
  if (!py) return off;
  const __u64 tstate = pythonThread(py, tid);
  if (tstate == 0) {
    r->flags |= STROBE_F_RUNTIME_NO_THREAD;
    return off;
  }
  struct py_frame_walk w = {};
  if (py->tstate_current_frame != STROBE_NO_FIELD) {
    w.frame = readUserU64(tstate + py->tstate_current_frame);
  } else {
    const __u64 cframe = readUserU64(tstate + py->tstate_cframe);
    w.frame = cframe ? readUserU64(cframe + py->cframe_current_frame) : 0;
  }
  __u32 data = openSection(s, off, STROBE_SEC_RUNTIME);
  if (data == 0 ||
      data > SCRATCH_BYTES - STROBE_MAX_RUNTIME_FRAMES * sizeof(struct strobe_runtime_frame)) {
    return off;
  }
  w.which = which;
  w.data = data;
  w.read_size = py->frame_read_size;
  w.by_shim = py->frame_is_entry == STROBE_NO_FIELD;
  w.frame_code = py->frame_code;
  w.frame_previous = py->frame_previous;
  w.frame_instr = py->frame_instr;
  w.frame_owner = py->frame_owner;
  w.frame_is_entry = py->frame_is_entry;
  /* Shim frames count toward the bound too (cpython::FrameWalker). */
  bpf_loop(STROBE_MAX_RUNTIME_FRAMES + 16, pyFrameStep, &w, 0);
  if (w.cut || w.frame != 0) r->flags |= STROBE_F_RUNTIME_SHORT;
  if (w.n == 0) return off;
  return closeSection(s, r, data, w.n * sizeof(struct strobe_runtime_frame));
}

/* ---- programs ---- */

SEC("perf_event")
int on_sample(struct bpf_perf_event_data* ctx) {
  const __u64 id = bpf_get_current_pid_tgid();
  const __u32 tgid = id >> 32;
  const __u32 tid = (__u32)id;
  if (tid == 0) return 0; /* the idle task: no one's CPU time */
  if (!isTarget(tgid)) {
    count(STROBE_CTR_FILTERED);
    return 0;
  }
  struct scratch* s = slot(0);
  if (!s) return 0;
  struct strobe_record* r = beginRecord(s, STROBE_REC_SAMPLE, 0, bpf_ktime_get_ns(), tgid, tid,
                                        bpf_get_smp_processor_id());
  r->period = ctx->sample_period;
  r->ip = ctx->regs.ip;
  __u32 off = sizeof(*r);
  if (cfg_kstack) off = addKernelStack(ctx, s, r, off, 0);
  struct task_struct* task = bpf_get_current_task_btf();
  if (BPF_CORE_READ(task, mm) == 0) {
    r->flags |= STROBE_F_NO_USER;
  } else {
    if (cfg_ustack) off = addUserStack(ctx, s, r, off);
    if (cfg_stack_bytes != 0) {
      struct user_regs u;
      readUserRegs(task, &u);
      off = addRegsAndStack(s, r, off, &u, cfg_stack_bytes);
    }
    off = addPythonFrames(0, off, tgid, tid);
  }
  emit(s, off, STROBE_CTR_LOST_SAMPLES);
  return 0; /* perf writes nothing of its own for the sample */
}

/* The frames of the tracepoint's own machinery above __schedule (the
 * program, its trampoline, the tracepoint's iterator) are not the thread's. */
#define SWITCH_KSTACK_SKIP 3

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, _Bool preempt, struct task_struct* prev, struct task_struct* next,
             unsigned int prev_state) {
  const __u32 prev_tgid = BPF_CORE_READ(prev, tgid);
  const __u32 prev_tid = BPF_CORE_READ(prev, pid);
  const __u64 now = bpf_ktime_get_ns();
  const __u32 cpu = bpf_get_smp_processor_id();
  if (prev_tid != 0 && isTarget(prev_tgid)) {
    struct scratch* s = slot(1);
    if (s) {
      struct strobe_record* r =
          beginRecord(s, STROBE_REC_SWITCH_OUT, preempt || prev_state == 0 ? STROBE_F_PREEMPTED : 0,
                      now, prev_tgid, prev_tid, cpu);
      __u32 off = sizeof(*r);
      if (cfg_kstack) off = addKernelStack(ctx, s, r, off, SWITCH_KSTACK_SKIP);
      if (BPF_CORE_READ(prev, mm) == 0) {
        r->flags |= STROBE_F_NO_USER;
      } else {
        /* prev is the task running the tracepoint: its user stack is
         * current's, entered at the user registers' ip. */
        struct user_regs u;
        readUserRegs(prev, &u);
        r->ip = u.ip;
        if (cfg_ustack) off = addUserStack(ctx, s, r, off);
        if (cfg_switch_stack_bytes != 0)
          off = addRegsAndStack(s, r, off, &u, cfg_switch_stack_bytes);
        off = addPythonFrames(1, off, prev_tgid, prev_tid);
      }
      emit(s, off, STROBE_CTR_LOST_SWITCHES);
    }
  }
  const __u32 next_tgid = BPF_CORE_READ(next, tgid);
  const __u32 next_tid = BPF_CORE_READ(next, pid);
  if (next_tid != 0 && isTarget(next_tgid)) {
    struct strobe_record in = {};
    in.kind = STROBE_REC_SWITCH_IN;
    in.size = sizeof(in);
    in.time = now;
    in.pid = next_tgid;
    in.tid = next_tid;
    in.cpu = cpu;
    if (bpf_ringbuf_output(&events, &in, sizeof(in), BPF_RB_NO_WAKEUP) != 0) {
      count(STROBE_CTR_LOST_SWITCHES);
    }
  }
  return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct* parent, struct task_struct* child) {
  if (!cfg_filter) return 0;
  const __u32 parent_tgid = BPF_CORE_READ(parent, tgid);
  const __u32 child_tgid = BPF_CORE_READ(child, tgid);
  if (child_tgid == parent_tgid) return 0; /* a thread: its process's already */
  __u32* state = bpf_map_lookup_elem(&targets, &parent_tgid);
  if (!state || *state != TARGET_ACTIVE) return 0;
  __u32 active = TARGET_ACTIVE;
  bpf_map_update_elem(&targets, &child_tgid, &active, BPF_ANY);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct* p) {
  if (!cfg_filter) return 0;
  const __u32 tgid = BPF_CORE_READ(p, tgid);
  __u32* state = bpf_map_lookup_elem(&targets, &tgid);
  if (state && *state == TARGET_HELD) *state = TARGET_ACTIVE;
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct* p) {
  if (!cfg_filter) return 0;
  /* The last thread of the process: its id may be reused. */
  if (BPF_CORE_READ(p, signal, live.counter) != 0) return 0;
  const __u32 tgid = BPF_CORE_READ(p, tgid);
  bpf_map_delete_elem(&targets, &tgid);
  return 0;
}
