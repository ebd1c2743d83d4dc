#include "reports/claims.hpp"

#include "numerics/util/errors.hpp"
#include "reports/text_format.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <optional>

namespace infoflow {

namespace {

// The verdict, grade and figure of one piece of evidence, wherever it lives.
struct Evidence {
  std::string ref;
  Verdict verdict = Verdict::Inconclusive;
  Grade grade = Grade::Exact;
  std::string figure;
  std::string note;  // why its verdict was set aside (a control that shows the effect too)
  bool controlled = false;  // a control of it ran and did not show the effect (it separates from its control)
  bool certified_grade() const { return grade == Grade::Certified || grade == Grade::Exact; }
};

const SuiteResult* find_suite(const std::vector<SuiteResult>* all, const std::string& id) {
  if (!all) return nullptr;
  for (const auto& r : *all)
    if (r.suite == id) return &r;
  return nullptr;
}

void require_evidence(const std::string& claim, const std::string& ref, CheckRole role, const std::string& route,
                      bool one_sided) {
  if (role != CheckRole::Evidence)
    throw ContractError("settle_claims", "claim " + claim + " names " + ref + ", a " + role_name(role) + ", as evidence");
  if (route.empty())
    throw ContractError("settle_claims", "claim " + claim + ": evidence " + ref + " has no independent route");
  if (one_sided)
    throw ContractError("settle_claims", "claim " + claim + ": evidence " + ref + " is one-sided (it cannot fail)");
}

// The evidence `ref` (an id in `home`, "series:ID", or "SUITE/ID"), or nothing when it did not run.
std::optional<Evidence> find_evidence(const std::string& claim, const std::string& ref, const SuiteResult& home,
                                      const std::vector<SuiteResult>* all) {
  const SuiteResult* suite = &home;
  std::string id = ref;
  if (const auto slash = ref.find('/'); slash != std::string::npos) {
    suite = find_suite(all, ref.substr(0, slash));
    id = ref.substr(slash + 1);
    if (!suite) return std::nullopt;
  }
  if (id.rfind("series:", 0) == 0) {
    for (const auto& s : suite->series)
      if ("series:" + s.id == id) {
        require_evidence(claim, ref, s.role, s.route, s.one_sided);
        if (!s.band) throw ContractError("settle_claims", "claim " + claim + ": series " + ref + " has no band");
        return Evidence{ref, s.verdict, Grade::Fitted, series_figure(s), "", false};
      }
    return std::nullopt;
  }
  for (const auto& c : suite->checks)
    if (c.id == id) {
      require_evidence(claim, ref, c.role, c.route, c.one_sided);
      Evidence e{ref, c.verdict, c.grade, check_figure(c), "", false};
      // A control that shows the effect too: the check cannot tell, whatever its own verdict.
      for (const auto& k : suite->checks) {
        if (k.role != CheckRole::Control || k.control_of != id) continue;
        if (k.verdict == Verdict::Pass && e.verdict == Verdict::Pass) {
          e.verdict = Verdict::Inconclusive;
          e.note = "its control " + k.id + " shows the effect too";
        } else if (k.verdict != Verdict::Pass) {
          e.controlled = true;
        }
      }
      return e;
    }
  return std::nullopt;
}

// The evidence refs of a claim with "ID*" patterns expanded to every matching check of that suite (in check order).
// A pattern that matches nothing stays as it is (and reads as evidence that did not run).
std::vector<std::string> expanded(const std::vector<std::string>& refs, const SuiteResult& home,
                                  const std::vector<SuiteResult>* all) {
  std::vector<std::string> out;
  for (const auto& ref : refs) {
    if (ref.empty() || ref.back() != '*') {
      out.push_back(ref);
      continue;
    }
    const auto slash = ref.find('/');
    const SuiteResult* suite = slash == std::string::npos ? &home : find_suite(all, ref.substr(0, slash));
    const std::string prefix = slash == std::string::npos ? ref.substr(0, ref.size() - 1)
                                                          : ref.substr(slash + 1, ref.size() - slash - 2);
    const std::string suite_part = slash == std::string::npos ? "" : ref.substr(0, slash + 1);
    std::size_t matched = 0;
    if (suite)
      for (const auto& c : suite->checks)
        if (c.id.compare(0, prefix.size(), prefix) == 0 && c.role == CheckRole::Evidence) {
          out.push_back(suite_part + c.id);
          ++matched;
        }
    if (matched == 0) out.push_back(ref);
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string check_figure(const Check& c) {
  if (!c.figure.empty()) return c.figure;
  const auto scalar = [](const nlohmann::json& v) -> std::string {
    if (v.is_number_float()) return format_number(v.get<double>(), 6);
    if (v.is_number()) return v.dump();
    if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
    return "";
  };
  if (const std::string s = scalar(c.measured); !s.empty()) return s;
  if (c.measured.is_object())
    for (const auto& [k, v] : c.measured.items())
      if (const std::string s = scalar(v); !s.empty()) return k + " " + s;
  return "";
}

std::string series_figure(const Series& s) {
  if (!s.fit) return "";
  std::string f = "slope " + format_number(s.fit->slope, 4) + " [" + format_number(s.fit->interval.lo, 4) + ", " +
                  format_number(s.fit->interval.hi, 4) + "]";
  if (s.exponent) f += ", " + s.exponent->source + " " + format_number(s.exponent->value, 4);
  return f;
}

void settle_claims(SuiteResult& r, const std::vector<SuiteResult>* all) {
  if (r.legacy) return;  // results written before claims: nothing to settle
  // Evidence belongs to a claim: an evidence check no claim names would be a verdict about nothing.
  std::set<std::string> named;
  for (const Claim& c : r.claims)
    for (const auto& ref : expanded(c.evidence, r, all)) named.insert(ref);
  for (const auto& k : r.checks)
    if (k.role == CheckRole::Evidence && !named.count(k.id))
      throw ContractError("settle_claims", "evidence check " + k.id + " of " + r.suite + " is named by no claim");
  for (Claim& c : r.claims) {
    c.figure.clear();
    if (c.evidence.empty()) {
      c.status = ClaimStatus::Open;
      c.reason = c.undecided.empty() ? "nothing here decides it" : c.undecided;
      continue;
    }
    const std::vector<std::string> refs = expanded(c.evidence, r, all);
    // The figure is named, never the first check by default, and it is one of the claim's own evidence checks.
    if (c.figure_check.empty())
      throw ContractError("settle_claims", "claim " + c.id + " does not name the evidence check whose figure carries it");
    const std::string figure_ref = expanded({c.figure_check}, r, all).front();
    // (Evidence in a suite that is not at hand cannot be expanded; the claim is then open on it, below.)
    const auto slash = figure_ref.find('/');
    const bool figure_suite_at_hand = slash == std::string::npos || find_suite(all, figure_ref.substr(0, slash));
    if (figure_suite_at_hand && std::find(refs.begin(), refs.end(), figure_ref) == refs.end())
      throw ContractError("settle_claims", "claim " + c.id + ": its figure check " + c.figure_check + " is not its evidence");
    std::vector<std::string> missing, refuting, not_reproduced, undecided, uncontrolled;
    bool all_certified_grade = true;
    for (const auto& ref : refs) {
      const auto e = find_evidence(c.id, ref, r, all);
      if (!e) {
        missing.push_back(ref);
        continue;
      }
      all_certified_grade &= e->certified_grade();
      if (e->verdict == Verdict::Fail) (e->certified_grade() ? refuting : not_reproduced).push_back(ref);
      else if (e->verdict == Verdict::Inconclusive) undecided.push_back(e->note.empty() ? ref : ref + " (" + e->note + ")");
      else if (!e->certified_grade() && !e->controlled) uncontrolled.push_back(ref);
      if (ref == figure_ref) c.figure = e->figure;
    }
    // The rules of docs/claims.md §1, in order.
    if (!refuting.empty()) {
      c.status = ClaimStatus::Refuted;
      c.reason = "a certified or exact check failed (a counterexample, or a defect the check exposes): " + joined(refuting);
    } else if (!missing.empty()) {
      c.status = ClaimStatus::Open;
      c.reason = "its evidence did not run: " + joined(missing);
    } else if (!not_reproduced.empty()) {
      c.status = ClaimStatus::Open;
      c.reason = "not reproduced at this budget: " + joined(not_reproduced) +
                 " failed (a fitted or sampled check is not a certified counterexample, so it cannot refute the claim)";
    } else if (!undecided.empty()) {
      c.status = ClaimStatus::Open;
      c.reason = "undecided: " + joined(undecided);
    } else if (c.certifiable && all_certified_grade) {
      c.status = ClaimStatus::Certified;
      c.reason = "every evidence check is certified or exact and passed: " + joined(refs);
    } else if (!uncontrolled.empty()) {
      c.status = ClaimStatus::Open;
      c.reason = "fitted or sampled evidence without a control it separates from: " + joined(uncontrolled);
    } else {
      c.status = ClaimStatus::Supported;
      c.reason = "every evidence check passed, each fitted or sampled one against a control that did not show the "
                 "effect: " + joined(refs);
    }
  }
}

void require_distinct_figures(const std::vector<SuiteResult>& results) {
  std::map<std::string, std::string> by_check;  // "SUITE/ID" → the claim whose figure it is
  for (const auto& r : results) {
    if (r.legacy) continue;
    for (const auto& c : r.claims) {
      if (c.figure_check.empty()) continue;
      const std::string ref = c.figure_check.find('/') == std::string::npos ? r.suite + "/" + c.figure_check : c.figure_check;
      const auto [it, fresh] = by_check.emplace(ref, c.id);
      if (!fresh)
        throw ContractError("settle_claims", "claims " + it->second + " and " + c.id + " show the same figure (" + ref +
                                                 "): each claim names a figure of its own");
    }
  }
}

void settle_all_claims(std::vector<SuiteResult>& results) {
  require_distinct_figures(results);
  for (auto& r : results) settle_claims(r, &results);
}

void settle_loaded_claims(std::vector<SuiteResult>& results, const std::string& argument) {
  try {
    require_distinct_figures(results);
  } catch (const ContractError& e) {
    throw InputError(argument, std::string("its claims cannot be settled (") + e.what() + ")");
  }
  for (auto& r : results) {
    try {
      settle_claims(r, &results);
    } catch (const ContractError& e) {
      throw InputError(argument, "suite '" + r.suite + "': its claims cannot be settled (" + e.what() + ")");
    }
  }
}

std::vector<LedgerRow> claims_ledger(const std::vector<SuiteResult>& results, const std::vector<SuiteResult>* baseline) {
  std::map<std::string, std::string> before;
  if (baseline)
    for (const auto& r : *baseline)
      for (const auto& c : r.claims) before[c.id] = claim_status_name(c.status);
  std::vector<LedgerRow> rows;
  for (const auto& r : results)
    for (const auto& c : r.claims) rows.push_back({r.suite, c, before.count(c.id) ? before[c.id] : ""});
  return rows;
}

bool claim_regressed(ClaimStatus before, ClaimStatus after) {
  const auto rank = [](ClaimStatus s) {
    switch (s) {
      case ClaimStatus::Certified: return 3;
      case ClaimStatus::Supported: return 2;
      case ClaimStatus::Open: return 1;
      default: return 0;
    }
  };
  return rank(after) < rank(before);
}

}  // namespace infoflow
