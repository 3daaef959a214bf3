// How strobe diff matches what it compares across recordings. Each
// recording numbers its functions, modules and threads its own way, and two
// builds of one program differ in build-id, addresses and often in the
// folder they were built in, so a row is matched by a key made of what
// stays: never by its display (demangled) name, which two functions may
// share. Keys are the parts below joined by '\0':
//
//   function  the module's file name, the symbol name without its clone
//             suffix (the function's own name when it has no symbol name)
//             and the source file's name (two static functions of one name
//             in two files stay two); an unresolved frame: its module's
//             file name and offset (comparable only between identical
//             builds)
//   line      the function's key, the line's file name and its number
//   file      the source file's path (normalized); the module's file name
//             when the file is unknown
//   module    the module's file name
//   thread    the thread's role, else its name (thread ids differ between runs)
//   process   the name of the process's main thread
//
// Thread safety: pure functions over a const Profile. No I/O.
#pragma once

#include <cstdint>
#include <string>

#include "model/aggregate.hpp"
#include "model/frames.hpp"
#include "model/profile.hpp"

namespace strobe::model {

// by: kFunction, kLine, kFile or kModule.
std::string diffKey(const Profile& p, GroupBy by, const Frame& f);
// kThread: the thread's; kProcess: its process's.
std::string diffThreadKey(const Profile& p, GroupBy by, int32_t tid);

// A module's file name: the last component of its path; "[unknown]" for kNone.
std::string moduleFileName(const Profile& p, ModuleId m);

}  // namespace strobe::model
