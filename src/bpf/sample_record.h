/* The records strobe's BPF program (strobe.bpf.c) writes into its ring
 * buffer, one per event, read by src/bpf/records.hpp. Shared by the BPF
 * program (C, clang -target bpf) and strobe (C++): plain fixed-width types,
 * no padding the compilers could lay out differently.
 *
 * A record is a header (struct strobe_record) followed by `nsections`
 * sections, each a struct strobe_section and `size` bytes of data, padded
 * to 8 bytes; record.size counts every byte, padding included. A reader
 * skips the section kinds it does not know, so a later program may append
 * new kinds (interpreter frames: STROBE_SEC_RUNTIME) without breaking an
 * older reader, and a reader never trusts a size it has not checked.
 *
 * Sample records (STROBE_REC_SAMPLE) carry what perf's SAMPLE records
 * carry for the same call-graph mode:
 *   -g fp      STROBE_SEC_USTACK (addresses) or STROBE_SEC_USTACK_BUILD_ID
 *              (build-id + file offset frames, where the kernel can tell)
 *   -g dwarf   STROBE_SEC_REGS + STROBE_SEC_STACK (+ STROBE_SEC_USTACK, the
 *   / auto     kernel's frame-pointer walk, spliced where CFI ends early)
 *   -k         STROBE_SEC_KSTACK
 * A section the program could not fill is left out, and a flag says why. */
#ifndef STROBE_BPF_SAMPLE_RECORD_H
#define STROBE_BPF_SAMPLE_RECORD_H

#ifdef __cplusplus
#include <cstdint>
#define STROBE_U8 uint8_t
#define STROBE_U16 uint16_t
#define STROBE_U32 uint32_t
#define STROBE_U64 uint64_t
#define STROBE_S32 int32_t
#else
#define STROBE_U8 __u8
#define STROBE_U16 __u16
#define STROBE_U32 __u32
#define STROBE_U64 __u64
#define STROBE_S32 __s32
#endif

/* Record kinds. */
#define STROBE_REC_SAMPLE 1     /* a CPU sample of a target thread */
#define STROBE_REC_SWITCH_OUT 2 /* a target thread left its CPU (--off-cpu), with its stack */
#define STROBE_REC_SWITCH_IN 3  /* a target thread got a CPU again (--off-cpu) */

/* Section kinds. */
#define STROBE_SEC_KSTACK 1          /* u64 kernel addresses, leaf first */
#define STROBE_SEC_USTACK 2          /* u64 user addresses, leaf first (frame-pointer walk) */
#define STROBE_SEC_USTACK_BUILD_ID 3 /* struct strobe_build_id_frame, leaf first */
#define STROBE_SEC_REGS 4            /* u64 user registers, perf's order for STROBE_REGS_MASK */
#define STROBE_SEC_STACK 5           /* user stack bytes from the sampled sp upwards */
/* Interpreter frames read by the program at the sample (CPython: the
 * thread's _PyInterpreterFrame chain): struct strobe_runtime_frame, leaf
 * first. */
#define STROBE_SEC_RUNTIME 6

/* Record flags: what the program could not complete. */
#define STROBE_F_KSTACK_FAILED (1u << 0) /* bpf_get_stack refused the kernel stack */
#define STROBE_F_USTACK_FAILED (1u << 1) /* bpf_get_stack refused the user stack */
#define STROBE_F_NO_USER (1u << 2)       /* no user context: a kernel thread, an exiting task */
#define STROBE_F_STACK_SHORT (1u << 3)   /* the stack copy met an unreadable page first */
#define STROBE_F_STACK_FAILED (1u << 4)  /* not one byte of the user stack was readable */
#define STROBE_F_PREEMPTED (1u << 5)     /* switch-out: still runnable (preempted) */
/* Interpreter frames: more than fit, or one unreadable. */
#define STROBE_F_RUNTIME_SHORT (1u << 6)
#define STROBE_F_RUNTIME_NO_THREAD \
  (1u << 7) /* an interpreter process: the thread's state not found */

/* perf's x86-64 register numbers (asm/perf_regs.h) of STROBE_SEC_REGS: AX
 * BX CX DX SI DI BP SP IP, R8-R15; values in increasing bit order. */
#define STROBE_REGS_MASK 0xff01ffULL
#define STROBE_REGS_COUNT 17

struct strobe_record {
  STROBE_U16 kind;
  STROBE_U16 flags;
  STROBE_U32 size; /* bytes of the record, header and sections, a multiple of 8 */
  STROBE_U64 time; /* CLOCK_MONOTONIC ns, the clock of perf's records */
  STROBE_U32 pid;  /* the thread's process (tgid) */
  STROBE_U32 tid;
  STROBE_U32 cpu;
  STROBE_U32 nsections;
  STROBE_U64 period; /* sample: the event's period (ns of CPU for cpu-clock) */
  STROBE_U64 ip;     /* sample: the interrupted instruction (a kernel or user address) */
};

struct strobe_section {
  STROBE_U16 kind;
  STROBE_U16 reserved;
  STROBE_U32 size; /* data bytes after this header, before the padding */
};

/* = struct bpf_stack_build_id (linux/bpf.h). */
struct strobe_build_id_frame {
  STROBE_S32 status; /* 0 empty, 1 build_id + offset, 2 ip only */
  STROBE_U8 build_id[20];
  STROBE_U64 offset_or_ip;
};
#define STROBE_BUILD_ID_VALID 1
#define STROBE_BUILD_ID_IP 2

/* STROBE_SEC_RUNTIME: an interpreter frame as the program reads it, named
 * later from the process's memory (src/cpython, record/python_frames.hpp). */
struct strobe_runtime_frame {
  STROBE_U64 code;    /* the code object's address in the process */
  STROBE_U32 offset;  /* the instruction pointer's byte offset from `code` */
  STROBE_U16 flags;   /* STROBE_RT_* */
  STROBE_U16 runtime; /* STROBE_RUNTIME_* */
};
#define STROBE_RUNTIME_CPYTHON 1
/* The first frame its eval-loop activation ran (cpython::kFrameEntry). */
#define STROBE_RT_ENTRY 1
#define STROBE_MAX_RUNTIME_FRAMES 96

/* What the program needs to read a CPython process's frames (the
 * `python_procs` map, by tgid; cpython::Layout's fields of the same names,
 * byte offsets; STROBE_NO_FIELD where the version has none). */
#define STROBE_NO_FIELD 0xffffffffu
#define STROBE_PY_FRAME_READ 256 /* the most of a frame the program reads */
struct strobe_python_proc {
  STROBE_U64 runtime; /* _PyRuntime's address */
  STROBE_U32 runtime_interpreters_head;
  STROBE_U32 interp_next;
  STROBE_U32 interp_threads_head;
  STROBE_U32 tstate_next;
  STROBE_U32 tstate_native_thread_id;
  STROBE_U32 tstate_cframe;        /* 3.11, 3.12 */
  STROBE_U32 tstate_current_frame; /* 3.13+ */
  STROBE_U32 cframe_current_frame; /* 3.11, 3.12 */
  STROBE_U32 frame_code;
  STROBE_U32 frame_previous;
  STROBE_U32 frame_instr;
  STROBE_U32 frame_owner;
  STROBE_U32 frame_is_entry; /* 3.11; 3.12+ mark an activation with a shim frame */
  STROBE_U32 frame_read_size;
};
#define STROBE_PY_OWNER_CSTACK 3 /* the shim frame's owner (3.12+) */

/* Counters the program keeps per CPU (the `counters` map), read by strobe. */
#define STROBE_CTR_LOST_SAMPLES 0  /* sample records the ring had no room for */
#define STROBE_CTR_LOST_SWITCHES 1 /* switch records the ring had no room for */
#define STROBE_CTR_FILTERED 2      /* samples of other processes, dropped before any copy */
#define STROBE_CTR_COUNT 3

#undef STROBE_U8
#undef STROBE_U16
#undef STROBE_U32
#undef STROBE_U64
#undef STROBE_S32

#endif
