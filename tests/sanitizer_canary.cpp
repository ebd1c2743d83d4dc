// A planted bug: reads one element past a heap array . Built and run
// only in the sanitizer build (INFOFLOW_SANITIZE), where the test passes only if ASan reports it:
// proof that the sanitizer run would catch such a bug in the project's own code.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char**) {
  std::vector<int> v(static_cast<std::size_t>(argc) + 3, 7);
  const int past_end = v.data()[v.size()];  // heap-buffer-overflow
  std::printf("%d\n", past_end);
  return 0;
}
