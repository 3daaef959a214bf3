// strobe's demo: a small multi-threaded renderer with one obvious hot path.
// Three worker threads render rows of a Mandelbrot image (escape_time is
// where the CPU goes), then the main thread checksums and sorts the rows.
// Usage: demo [SIZE]  (default 900: about 2 s of CPU on one core)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int kMaxIterations = 3000;

__attribute__((noinline)) int escape_time(double cr, double ci) {
  double zr = 0, zi = 0;
  int i = 0;
  while (i < kMaxIterations && zr * zr + zi * zi < 4.0) {
    double t = zr * zr - zi * zi + cr;
    zi = 2 * zr * zi + ci;
    zr = t;
    ++i;
  }
  return i;
}

__attribute__((noinline)) void render_row(std::vector<uint16_t>& row, int y, int size) {
  for (int x = 0; x < size; ++x) {
    double cr = -2.0 + 2.6 * x / size;
    double ci = -1.3 + 2.6 * y / size;
    row[x] = static_cast<uint16_t>(escape_time(cr, ci));
  }
}

__attribute__((noinline)) uint32_t checksum(const std::vector<uint16_t>& row) {
  uint32_t crc = 0xffffffffu;
  for (uint16_t v : row) {
    for (int b = 0; b < 16; ++b) {
      uint32_t bit = (crc ^ (v >> b)) & 1u;
      crc = (crc >> 1) ^ (bit ? 0xedb88320u : 0u);
    }
  }
  return ~crc;
}

__attribute__((noinline)) void worker(std::vector<std::vector<uint16_t>>& image,
                                      std::atomic<int>& next, int size) {
  for (int y = next++; y < size; y = next++) render_row(image[y], y, size);
}

}  // namespace

int main(int argc, char** argv) {
  int size = argc > 1 ? std::atoi(argv[1]) : 900;
  if (size <= 0) size = 900;
  std::vector<std::vector<uint16_t>> image(size, std::vector<uint16_t>(size));
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i) workers.emplace_back(worker, std::ref(image), std::ref(next), size);
  for (auto& t : workers) t.join();

  std::vector<uint32_t> sums;
  for (const auto& row : image) sums.push_back(checksum(row));
  std::sort(sums.begin(), sums.end());
  std::printf("demo: rendered %dx%d, median row checksum %08x\n", size, size,
              sums[sums.size() / 2]);
  return 0;
}
