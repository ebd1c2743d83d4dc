#include "verify/cli.hpp"

int main(int argc, char** argv) {
#ifdef INFOFLOW_SINGLE_SUITE
  return infoflow::cli_main(argc, argv, INFOFLOW_SINGLE_SUITE);
#else
  return infoflow::cli_main(argc, argv);
#endif
}
