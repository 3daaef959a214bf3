// What bench/perfdata/run.sh has g++ compile while perf records it: a
// dozen standard headers and a little code using them, about 3-4 s of
// cc1plus here; never built by the build.
#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

int main() {
  std::map<std::string, std::vector<int>> m;
  std::unordered_map<int, std::string> u;
  for (int i = 0; i < 100; ++i) {
    m[std::to_string(i)].push_back(i);
    u[i] = std::to_string(i);
  }
  std::sort(m["1"].begin(), m["1"].end());
  std::ostringstream os;
  os << m.size() << u.size() << "\n";
  std::cout << os.str();
}
