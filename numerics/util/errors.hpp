#pragma once
#include <stdexcept>
#include <string>

namespace infoflow {

/// Bad input from a user: a file, an argument, a JSON document. `what()` names the argument and
/// what was expected; the CLI prints it and exits with code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& argument, const std::string& expectation)
      : std::runtime_error(argument + ": " + expectation), argument_(argument) {}
  const std::string& argument() const { return argument_; }

 private:
  std::string argument_;
};

/// A numeric result that must not be reported (NaN, an undecidable ball, a failed hypothesis
/// that a caller asserted). Never swallowed: a check that meets it fails loudly.
class NumericError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace infoflow
