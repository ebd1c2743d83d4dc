#pragma once
#include <stdexcept>
#include <string>

namespace infoflow {

/// Bad input from a user: a file, an argument, a JSON document. `what()` names the argument and
/// what was expected; the CLI prints it and exits with code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& argument, const std::string& expectation)
      : std::runtime_error(argument + ": " + expectation), argument_(argument), expectation_(expectation) {}
  const std::string& argument() const { return argument_; }
  /// The message without the argument: what a caller that re-attributes the error keeps.
  const std::string& expectation() const { return expectation_; }

 private:
  std::string argument_;
  std::string expectation_;
};

/// An internal precondition that failed: a bug in the toolkit (or a combination its callers should
/// have refused earlier), never the user's input. `what()` says which function and what it got.
/// The CLI prints it as an internal error (exit 3); `all` records it as that suite failing and goes on.
class ContractError : public std::logic_error {
 public:
  ContractError(const std::string& where, const std::string& violation)
      : std::logic_error(where + ": " + violation) {}
};

/// A numeric result that must not be reported (NaN, an undecidable ball, a failed hypothesis
/// that a caller asserted). Never swallowed: a check that meets it fails loudly.
class NumericError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace infoflow
