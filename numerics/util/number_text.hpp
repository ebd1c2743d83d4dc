#pragma once
// Numbers as text: a figure for a table, and a bound that errs on its own side (a certified "sup <= U" must never
// print below U). Used by certify's reports (numerics/certify), and by the suites, the CLI and the report writers
// through reports/text_format.hpp.
#include <string>

namespace infoflow {

/// `digits` significant digits; "+inf", "-inf" or "nan" for non-finite values.
std::string format_number(double v, int digits = 4);

/// A bound as text that errs on its own side: the decimal printed is >= v (upward) or <= v (downward), with the
/// fewest of `digits`..17 significant digits that allow it.
std::string format_bound(double v, int digits, bool upward);

}  // namespace infoflow
