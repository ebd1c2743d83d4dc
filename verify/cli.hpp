#pragma once
namespace infoflow {
/// The whole command-line interface. `single_suite`, when given, makes the program behave as
/// `infoflow-verify <single_suite> ...` (the per-theorem executables).
int cli_main(int argc, char** argv, const char* single_suite = nullptr);
}  // namespace infoflow
