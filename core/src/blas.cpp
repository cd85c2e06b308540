// core/src/blas.cpp: finds and dlopens scipy-openblas32 on first use and forwards GEMM/GEMV/DOT.
//
// Loading lazily keeps `import sdk` from paying for the BLAS. The few CBLAS
// entry points are declared here as function-pointer types (32-bit ints: the
// scipy_openblas32 build); the CBLAS enum values are the standard constants.
#include "blas.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "parallel.h"

namespace sdk::detail::blas {
namespace {

constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;
constexpr int kTrans = 112;

using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                          float, float*, int);
using dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*,
                          int, double, double*, int);
using sgemv_fn = void (*)(int, int, int, int, float, const float*, int, const float*, int, float,
                          float*, int);
using dgemv_fn = void (*)(int, int, int, int, double, const double*, int, const double*, int,
                          double, double*, int);
using sdot_fn = float (*)(int, const float*, int, const float*, int);
using ddot_fn = double (*)(int, const double*, int, const double*, int);
using set_threads_fn = void (*)(int);
// The BLAS's threading hook: it hands each parallel kernel to a callback as `numjobs` jobs,
// job i being dojob(i, jobdata + i * elsize, dojob_data), which must all run at once.
using dojob_fn = void (*)(int, void*, int);
using threads_callback_fn = void (*)(int, dojob_fn, int, size_t, void*, int);
using set_callback_fn = void (*)(threads_callback_fn);
using get_threads_fn = int (*)();

struct Lib {
  void* handle = nullptr;
  sgemm_fn sgemm = nullptr;
  dgemm_fn dgemm = nullptr;
  sgemv_fn sgemv = nullptr;
  dgemv_fn dgemv = nullptr;
  sdot_fn sdot = nullptr;
  ddot_fn ddot = nullptr;
  set_threads_fn set_threads = nullptr;
  set_callback_fn set_callback = nullptr;
  get_threads_fn get_threads = nullptr;
  std::string error;  // why loading failed (empty on success)
};

Lib g_lib;
std::once_flag g_once;

void set_blas_threads(int n) {
  if (g_lib.set_threads) g_lib.set_threads(n < 1 ? 1 : n);
}

// Runs the BLAS's jobs on the core's pool: one set of threads for both, so BLAS workers
// never spin beside pool workers (without it, the BLAS's own threads busy-wait for a while
// after each call, while the pool's threads want the same cores).
void run_blas_jobs(int /*sync*/, dojob_fn dojob, int numjobs, size_t elsize, void* jobdata,
                   int dojob_data) {
  struct Ctx {
    dojob_fn dojob;
    size_t elsize;
    char* jobdata;
    int dojob_data;
  } ctx{dojob, elsize, static_cast<char*>(jobdata), dojob_data};
  run_team(
      numjobs,
      [](void* p, int64_t i) {
        const Ctx& c = *static_cast<const Ctx*>(p);
        c.dojob(static_cast<int>(i), c.jobdata + static_cast<size_t>(i) * c.elsize, c.dojob_data);
      },
      &ctx);
}

// Directory holding libsdk_core.so (found from the address of one of our functions).
std::string own_dir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&own_dir), &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("SDK_BLAS_LIBRARY"); env && *env) c.push_back(env);
  std::string dir = own_dir();
  if (!dir.empty()) c.push_back(dir + "/../../scipy_openblas32/lib/libscipy_openblas.so");
#ifdef SDK_BLAS_BUILD_PATH
  c.push_back(SDK_BLAS_BUILD_PATH);
#endif
  c.push_back("libscipy_openblas.so");
  return c;
}

template <typename F>
bool bind(void* h, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(h, name));
  return f != nullptr;
}

void load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* err = dlerror();
      tried += "\n  " + path + ": " + (err ? err : "cannot open");
      continue;
    }
    Lib lib;
    lib.handle = h;
    bool ok = bind(h, "scipy_cblas_sgemm", lib.sgemm) && bind(h, "scipy_cblas_dgemm", lib.dgemm) &&
              bind(h, "scipy_cblas_sgemv", lib.sgemv) && bind(h, "scipy_cblas_dgemv", lib.dgemv) &&
              bind(h, "scipy_cblas_sdot", lib.sdot) && bind(h, "scipy_cblas_ddot", lib.ddot);
    bind(h, "scipy_openblas_set_num_threads", lib.set_threads);
    bind(h, "scipy_openblas_set_threads_callback_function", lib.set_callback);
    bind(h, "scipy_openblas_get_num_threads", lib.get_threads);
    if (!ok) {
      tried += "\n  " + path + ": loaded, but it lacks the scipy_cblas_* symbols";
      dlclose(h);
      continue;
    }
    // Before any BLAS call: the hook must be in place before the BLAS runs threaded.
    if (lib.set_callback) lib.set_callback(&run_blas_jobs);
    g_lib = lib;
    set_blas_threads_hook(&set_blas_threads);
    return;
  }
  g_lib.error =
      "BLAS library scipy-openblas32 not found (needed for float32/float64 matmul). Tried:" +
      tried +
      "\nFix: pip install scipy-openblas32, or set SDK_BLAS_LIBRARY to the path of "
      "libscipy_openblas.so";
}

const Lib& lib() {
  std::call_once(g_once, load);
  if (!g_lib.handle) SDK_FAIL(SDK_ERROR_RUNTIME, g_lib.error);
  return g_lib;
}

int to_int(int64_t v, const char* what) {
  SDK_VALUE_CHECK(v >= 0 && v <= INT_MAX, "matmul: ", what, " = ", v,
                  " does not fit the 32-bit BLAS interface");
  return static_cast<int>(v);
}

}  // namespace

int threads() {
  const Lib& l = lib();
  return l.get_threads ? l.get_threads() : 1;
}

bool on_pool() { return available() && g_lib.set_callback != nullptr; }

bool available() {
  std::call_once(g_once, load);
  return g_lib.handle != nullptr;
}

void gemm(sdk_dtype dtype, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
          const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c,
          int64_t ldc) {
  const Lib& l = lib();
  int M = to_int(m, "rows"), N = to_int(n, "cols"), K = to_int(k, "inner size");
  int LDA = to_int(lda, "lda"), LDB = to_int(ldb, "ldb"), LDC = to_int(ldc, "ldc");
  int TA = ta ? kTrans : kNoTrans, TB = tb ? kTrans : kNoTrans;
  if (dtype == SDK_FLOAT32) {
    l.sgemm(kRowMajor, TA, TB, M, N, K, float(alpha), static_cast<const float*>(a), LDA,
            static_cast<const float*>(b), LDB, float(beta), static_cast<float*>(c), LDC);
  } else {
    l.dgemm(kRowMajor, TA, TB, M, N, K, alpha, static_cast<const double*>(a), LDA,
            static_cast<const double*>(b), LDB, beta, static_cast<double*>(c), LDC);
  }
}

void gemv(sdk_dtype dtype, bool ta, int64_t rows, int64_t cols, double alpha, const void* a,
          int64_t lda, const void* x, int64_t incx, double beta, void* y, int64_t incy) {
  const Lib& l = lib();
  int M = to_int(rows, "rows"), N = to_int(cols, "cols"), LDA = to_int(lda, "lda");
  int IX = to_int(incx, "incx"), IY = to_int(incy, "incy");
  int T = ta ? kTrans : kNoTrans;
  if (dtype == SDK_FLOAT32) {
    l.sgemv(kRowMajor, T, M, N, float(alpha), static_cast<const float*>(a), LDA,
            static_cast<const float*>(x), IX, float(beta), static_cast<float*>(y), IY);
  } else {
    l.dgemv(kRowMajor, T, M, N, alpha, static_cast<const double*>(a), LDA,
            static_cast<const double*>(x), IX, beta, static_cast<double*>(y), IY);
  }
}

double dot(sdk_dtype dtype, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy) {
  const Lib& l = lib();
  int N = to_int(n, "size"), IX = to_int(incx, "incx"), IY = to_int(incy, "incy");
  if (dtype == SDK_FLOAT32) {
    return l.sdot(N, static_cast<const float*>(x), IX, static_cast<const float*>(y), IY);
  }
  return l.ddot(N, static_cast<const double*>(x), IX, static_cast<const double*>(y), IY);
}

}  // namespace sdk::detail::blas
