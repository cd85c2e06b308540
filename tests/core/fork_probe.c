/* tests/core/fork_probe.c: fork() while other threads allocate large blocks.
 *
 * Two threads allocate and free 1 MB tensors through the C ABI (no GIL to keep
 * them apart from the forking thread) while the main thread forks; each child
 * allocates a large tensor at once and exits. A child that inherited the large
 * block cache's lock held would hang: the parent kills it after 10 s and
 * counts it. Prints "<hung> <failed>" and exits 0. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sdk/c_api.h"

static volatile int g_stop = 0;

static void* churn(void* arg) {
  const int64_t n = 256 * 1024; /* 1 MB of float32 */
  sdk_device cpu = {SDK_CPU, 0};
  (void)arg;
  while (!g_stop) {
    sdk_tensor* t = NULL;
    if (sdk_empty(1, &n, SDK_FLOAT32, cpu, &t) == SDK_OK) sdk_tensor_release(t);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[2];
  int hung = 0, failed = 0;
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, churn, NULL);
  for (int k = 0; k < 300; ++k) {
    pid_t pid = fork();
    if (pid == 0) {
      const int64_t n = 300 * 1024;
      sdk_device cpu = {SDK_CPU, 0};
      sdk_tensor* t = NULL;
      int ok = sdk_empty(1, &n, SDK_FLOAT32, cpu, &t) == SDK_OK;
      if (ok) sdk_tensor_release(t);
      _exit(ok ? 0 : 3);
    }
    int status = 0, done = 0;
    for (int waited = 0; waited < 10000 && !done; ++waited) {
      done = waitpid(pid, &status, WNOHANG) == pid;
      if (!done) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
      }
    }
    if (!done) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ++hung;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failed;
    }
  }
  g_stop = 1;
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("%d %d\n", hung, failed);
  return 0;
}
