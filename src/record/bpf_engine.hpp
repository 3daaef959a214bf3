// The BPF engine (engine.hpp): one perf event per CPU on every task, with
// strobe's BPF program (src/bpf) attached, which keeps the samples of the
// targets' processes (a map of process ids in the kernel, followed through
// fork and exec) and drops every other sample before copying anything; each
// kept sample is one record in a BPF ring buffer: the stacks read at the
// instant of the sample (the kernel's frame-pointer walk, or the user
// registers and a stack copy for strobe's unwinder, the kernel stack with
// -k), decoded here into the same SampleRecord the perf engine's rings give
// the converter. --off-cpu adds the scheduler's sched_switch tracepoint:
// the switch-out's stack and the switch-in, for the same OffCpuPairer.
//
// How it covers threads: launch, attach and -a alike open one event per
// CPU; threads created later are sampled from their first sample with no
// rescan, children from their fork (a launched command is sampled from its
// exec on). The side-band records (MMAP2, COMM, FORK, EXIT) of a launched
// command come from a dummy event per CPU that it inherits from its exec
// on; attached and -a, from the sampling events' own rings, for every
// process, kept for the targets and their descendants only (in time order,
// as FORK records add descendants). THROTTLE records come from the
// sampling events: a throttled CPU is given back to the thread whose
// sample hit the limit (ThrottleAccount), though others may have run there.
// The events are enabled (the program attached) in open(): their records
// wait in the rings until the session drains them.
//
// What it cannot do: --no-inherit (it follows every thread of a process);
// count the CPU no sample covers (its events count every task of a CPU);
// run without BPF (EngineInfo::check says why: bpf/program.hpp). A record
// the ring had no room for is counted as a LOST sample (or a lost switch
// record); samples whose user stack the program could not read at all are
// counted in a warning (a copy that ends early is the unwinder's to report
// in StackEnd, as with the perf engine).
// Thread safety: one thread (the session's).
#pragma once

#include "record/engine.hpp"

namespace strobe::record {

const EngineInfo& bpfEngineInfo();

}  // namespace strobe::record
