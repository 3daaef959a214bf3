// The field numbers of pprof's profile.proto
// (github.com/google/pprof/proto/profile.proto) the pprof writers use
// (pprof_writer.cpp, diff_pprof.cpp). Constants only.
#pragma once

#include <protozero/pbf_writer.hpp>

namespace strobe::output::pb {
enum Profile : protozero::pbf_tag_type {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriodType = 11,
  kPeriod = 12,
  kComment = 13,
  kDefaultSampleType = 14,
};
enum ValueType : protozero::pbf_tag_type { kType = 1, kUnit = 2 };
enum Sample : protozero::pbf_tag_type { kLocationId = 1, kValue = 2, kLabel = 3 };
enum Label : protozero::pbf_tag_type { kKey = 1, kStr = 2, kNum = 3 };
enum Mapping : protozero::pbf_tag_type {
  kId = 1,
  kMemoryStart = 2,
  kMemoryLimit = 3,
  kFileOffset = 4,
  kFilename = 5,
  kBuildId = 6,
  kHasFunctions = 7,
  kHasFilenames = 8,
  kHasLineNumbers = 9,
  kHasInlineFrames = 10,
};
enum Location : protozero::pbf_tag_type { kLocId = 1, kMappingId = 2, kAddress = 3, kLine = 4 };
enum Line : protozero::pbf_tag_type { kFunctionId = 1, kLineNo = 2 };
enum Function : protozero::pbf_tag_type {
  kFnId = 1,
  kName = 2,
  kSystemName = 3,
  kFnFilename = 4,
  kStartLine = 5,
};

}  // namespace strobe::output::pb
