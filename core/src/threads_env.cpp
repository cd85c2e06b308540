// core/src/threads_env.cpp: what the environment says about threads: SDK_NUM_THREADS /
// OMP_NUM_THREADS values, the CPU topology (physical cores) and a cgroup CPU quota.
#include <sched.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "parallel.h"

namespace sdk::detail {
namespace {

constexpr long kMaxThreads = 1 << 16;  // a larger value is a typo, not a thread count

// The first integer in a file (a sysfs or cgroup value); false when unreadable.
bool read_long(const char* path, long* out) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  bool ok = std::fscanf(f, "%ld", out) == 1;
  std::fclose(f);
  return ok;
}

int ceil_div(long a, long b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace

int parse_thread_count(const char* value) {
  if (!value) return 0;
  const char* p = value;
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  long n = 0;
  bool digits = false;
  for (; std::isdigit(static_cast<unsigned char>(*p)); ++p, digits = true) {
    n = n * 10 + (*p - '0');
    if (n > kMaxThreads) return 0;
  }
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (!digits || n < 1 || (*p != '\0' && *p != ',')) return 0;
  return static_cast<int>(n);
}

int cgroup_cpu_limit() {
  // cgroup v2: "max 100000" or "<quota> <period>".
  if (FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    char quota[32] = {0};
    long period = 0;
    int got = std::fscanf(f, "%31s %ld", quota, &period);
    std::fclose(f);
    if (got == 2 && std::string(quota) != "max" && period > 0) {
      long q = std::atol(quota);
      if (q > 0) return ceil_div(q, period);
    }
    return 0;
  }
  long q = 0, period = 0;  // cgroup v1; quota -1 means none
  if (read_long("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &q) &&
      read_long("/sys/fs/cgroup/cpu/cpu.cfs_period_us", &period) && q > 0 && period > 0) {
    return ceil_div(q, period);
  }
  return 0;
}

int read_physical_cores(const cpu_set_t& set) {
  std::set<std::pair<long, long>> cores;  // (package, core id)
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    long package = 0, core = 0;
    if (!read_long((dir + "physical_package_id").c_str(), &package) ||
        !read_long((dir + "core_id").c_str(), &core)) {
      return 0;
    }
    cores.emplace(package, core);
  }
  return static_cast<int>(cores.size());
}

}  // namespace sdk::detail
