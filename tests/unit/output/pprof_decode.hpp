// A small decoder of gzipped profile.proto for tests: enough of the message
// to check what strobe's pprof writer wrote.
#pragma once

#include <zlib.h>
#include <protozero/pbf_reader.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace strobe::test {

struct PbValueType {
  int64_t type = 0, unit = 0;
};
struct PbLabel {
  int64_t key = 0, str = 0, num = 0;
};
struct PbSample {
  std::vector<uint64_t> locations;
  std::vector<int64_t> values;
  std::vector<PbLabel> labels;
};
struct PbMapping {
  uint64_t id = 0, start = 0, limit = 0, offset = 0;
  int64_t filename = 0, build_id = 0;
  bool has_functions = false, has_inline_frames = false;
};
struct PbLine {
  uint64_t function = 0;
  int64_t line = 0;
};
struct PbLocation {
  uint64_t id = 0, mapping = 0, address = 0;
  std::vector<PbLine> lines;
};
struct PbFunction {
  uint64_t id = 0;
  int64_t name = 0, system_name = 0, filename = 0, start_line = 0;
};
struct PbProfile {
  std::vector<PbValueType> sample_types;
  std::vector<PbSample> samples;
  std::map<uint64_t, PbMapping> mappings;
  std::map<uint64_t, PbLocation> locations;
  std::map<uint64_t, PbFunction> functions;
  std::vector<std::string> strings;
  int64_t time_nanos = 0, duration_nanos = 0, period = 0, default_sample_type = 0;
  PbValueType period_type;
  const std::string& s(int64_t i) const { return strings.at(static_cast<size_t>(i)); }
};

inline std::string gunzip(const std::string& in) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw std::runtime_error("inflateInit2");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[1 << 14];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      throw std::runtime_error("inflate failed");
    }
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
}

inline PbValueType decodeValueType(protozero::pbf_reader r) {
  PbValueType v;
  while (r.next()) {
    if (r.tag() == 1)
      v.type = r.get_int64();
    else if (r.tag() == 2)
      v.unit = r.get_int64();
    else
      r.skip();
  }
  return v;
}

inline PbProfile decodePprof(const std::string& gz) {
  std::string raw = gunzip(gz);
  PbProfile p;
  protozero::pbf_reader r(raw);
  while (r.next()) {
    switch (r.tag()) {
      case 1:
        p.sample_types.push_back(decodeValueType(r.get_message()));
        break;
      case 2: {
        PbSample s;
        protozero::pbf_reader m = r.get_message();
        while (m.next()) {
          if (m.tag() == 1) {
            for (uint64_t v : m.get_packed_uint64()) s.locations.push_back(v);
          } else if (m.tag() == 2) {
            for (int64_t v : m.get_packed_int64()) s.values.push_back(v);
          } else if (m.tag() == 3) {
            PbLabel l;
            protozero::pbf_reader lr = m.get_message();
            while (lr.next()) {
              if (lr.tag() == 1)
                l.key = lr.get_int64();
              else if (lr.tag() == 2)
                l.str = lr.get_int64();
              else if (lr.tag() == 3)
                l.num = lr.get_int64();
              else
                lr.skip();
            }
            s.labels.push_back(l);
          } else {
            m.skip();
          }
        }
        p.samples.push_back(s);
        break;
      }
      case 3: {
        PbMapping mp;
        protozero::pbf_reader m = r.get_message();
        while (m.next()) {
          switch (m.tag()) {
            case 1:
              mp.id = m.get_uint64();
              break;
            case 2:
              mp.start = m.get_uint64();
              break;
            case 3:
              mp.limit = m.get_uint64();
              break;
            case 4:
              mp.offset = m.get_uint64();
              break;
            case 5:
              mp.filename = m.get_int64();
              break;
            case 6:
              mp.build_id = m.get_int64();
              break;
            case 7:
              mp.has_functions = m.get_bool();
              break;
            case 10:
              mp.has_inline_frames = m.get_bool();
              break;
            default:
              m.skip();
          }
        }
        p.mappings[mp.id] = mp;
        break;
      }
      case 4: {
        PbLocation l;
        protozero::pbf_reader m = r.get_message();
        while (m.next()) {
          if (m.tag() == 1)
            l.id = m.get_uint64();
          else if (m.tag() == 2)
            l.mapping = m.get_uint64();
          else if (m.tag() == 3)
            l.address = m.get_uint64();
          else if (m.tag() == 4) {
            PbLine ln;
            protozero::pbf_reader lr = m.get_message();
            while (lr.next()) {
              if (lr.tag() == 1)
                ln.function = lr.get_uint64();
              else if (lr.tag() == 2)
                ln.line = lr.get_int64();
              else
                lr.skip();
            }
            l.lines.push_back(ln);
          } else {
            m.skip();
          }
        }
        p.locations[l.id] = l;
        break;
      }
      case 5: {
        PbFunction f;
        protozero::pbf_reader m = r.get_message();
        while (m.next()) {
          switch (m.tag()) {
            case 1:
              f.id = m.get_uint64();
              break;
            case 2:
              f.name = m.get_int64();
              break;
            case 3:
              f.system_name = m.get_int64();
              break;
            case 4:
              f.filename = m.get_int64();
              break;
            case 5:
              f.start_line = m.get_int64();
              break;
            default:
              m.skip();
          }
        }
        p.functions[f.id] = f;
        break;
      }
      case 6:
        p.strings.push_back(r.get_string());
        break;
      case 9:
        p.time_nanos = r.get_int64();
        break;
      case 10:
        p.duration_nanos = r.get_int64();
        break;
      case 11:
        p.period_type = decodeValueType(r.get_message());
        break;
      case 12:
        p.period = r.get_int64();
        break;
      case 14:
        p.default_sample_type = r.get_int64();
        break;
      default:
        r.skip();
    }
  }
  return p;
}

}  // namespace strobe::test
