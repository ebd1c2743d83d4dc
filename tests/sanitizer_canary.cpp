// Proof that the sanitizer build catches a bug in the project's own code. Built only with
// INFOFLOW_SANITIZE. Two roles:
//   sanitizer_canary plant   reads one element past a heap array (the planted bug) and would exit 0;
//   sanitizer_canary         (the ctest) runs itself with `plant` and CHECKs that AddressSanitizer stopped
//                            it with a heap-buffer-overflow report.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#define CHECK(condition, what)                           \
  do {                                                   \
    if (!(condition)) {                                  \
      std::fprintf(stderr, "CHECK failed: %s\n", what); \
      return 1;                                          \
    }                                                    \
  } while (0)

namespace {

int plant(int argc) {
  std::vector<int> v(static_cast<std::size_t>(argc) + 3, 7);
  const int past_end = v.data()[v.size()];  // heap-buffer-overflow
  std::printf("%d\n", past_end);
  return 0;
}

// Runs `self plant` (no shell), returns its exit status and its stderr.
int run_planted(const char* self, std::string& report) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(self, self, "plant", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) report.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "plant") return plant(argc);
  std::string report;
  const int status = run_planted(argv[0], report);
  CHECK(status != -1, "could not start the planted program");
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "the planted overflow ran to completion unnoticed");
  CHECK(report.find("AddressSanitizer: heap-buffer-overflow") != std::string::npos,
        "no AddressSanitizer heap-buffer-overflow report for the planted overflow");
  std::puts("the sanitizer caught the planted heap overflow");
  return 0;
}
