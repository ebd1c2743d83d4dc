#pragma once
// The claims ledger (docs/claims.md): every claim of the paper a suite addresses, with a status computed from the
// verdicts of its evidence, never written by hand.
//
//   no evidence                                   open      (the claim says why nothing here decides it)
//   an evidence check that passes, its control too undecided (the check cannot tell the effect from its control)
//   a certified or exact check fails              refuted   (a counterexample, or a defect the check exposes)
//   a fitted or sampled check fails               open      (not reproduced: not a certified counterexample)
//   an evidence check is inconclusive             open      (among them every check that compared nothing)
//   every evidence check passes, each certified   certified (when the claim is certifiable: a class or a domain)
//     or exact
//   every evidence check passes, each fitted or   supported
//     sampled one against a control it separates
//     from
//   otherwise                                     open      (fitted or sampled evidence without such a control)
// A claim names the evidence check whose figure carries it (Claim::figure_check); two claims never share one.
#include "reports/result.hpp"

#include <string>
#include <vector>

namespace infoflow {

/// Settles the status, reason and figure of every claim of `r`. Evidence in another suite ("SUITE/ID") is looked up
/// in `all` (when null or absent there, the claim stays open on it). Throws ContractError when a claim names a check
/// that is not evidence, evidence without an independent route, or one-sided evidence: a claim is never settled by a
/// self-check or by a check that cannot fail.
void settle_claims(SuiteResult& r, const std::vector<SuiteResult>* all = nullptr);

/// settle_claims on every result, each with all of them available for evidence in other suites. Throws ContractError
/// when two claims name the same figure check (each row of the ledger shows a figure of its own).
void settle_all_claims(std::vector<SuiteResult>& results);
void require_distinct_figures(const std::vector<SuiteResult>& results);
/// settle_all_claims on results read from files (`report`, `regress`, `--baseline`): what would be a programming error
/// in a run (a claim on a self-check, evidence without a route) is the file's fault there, an InputError naming
/// `argument` and the suite.
void settle_loaded_claims(std::vector<SuiteResult>& results, const std::string& argument);

/// A check's one readable figure: its `figure`, else the first number of what it measured (6 significant digits).
std::string check_figure(const Check& c);
/// A banded series' figure: its fitted slope and interval beside the stated or derived exponent.
std::string series_figure(const Series& s);

/// One row of the ledger across suites: the claim, the suite that holds it, and its status in a baseline run
/// ("" when the baseline has no such claim or none was given).
struct LedgerRow {
  std::string suite;
  Claim claim;
  std::string baseline_status;
};
/// Every claim of every result, in suite order; with `baseline`, each claim's status there.
std::vector<LedgerRow> claims_ledger(const std::vector<SuiteResult>& results, const std::vector<SuiteResult>* baseline);

/// Whether moving from `before` to `after` is a step backwards (certified → anything else, supported → open or
/// refuted, open → refuted): what the nightly regression flags.
bool claim_regressed(ClaimStatus before, ClaimStatus after);

}  // namespace infoflow
