// certify's and check-certificate's output: the tables printed on the terminal and the --json document
// (docs/certify.md, docs/certificate-format.md), from the typed reports of certify_model.cpp.
#include "numerics/certify/certify_model.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/number_text.hpp"

#include <sstream>

namespace infoflow {

using nlohmann::json;

std::string certificate_check_table(const CertificateCheckReport& r) {
  std::ostringstream o;
  const CertificateVerdict& v = r.verdict;
  o << "certificate for target " << r.problem["target"].get<std::string>() << ", T = " << r.problem["T"] << ", d = " << r.problem["d"]
    << ", execution " << r.problem["execution"].get<std::string>() << "\n";
  // The box the proof covers, as the certificate states it (not the one a reader may assume).
  o << "  box: " << box_text(r.claim.lo, r.claim.hi) << "\n";
  o << "  claim: sup |model - F| <= " << format_bound(r.claim.upper, 6, true) << " over the box, >= "
    << format_bound(r.claim.lower, 6, false) << " attained\n";
  if (v.out_of_time)
    o << "  NOT DECIDED: the time budget ran out after " << v.leaves << " leaves (" << v.leaves_not_bounded
      << " above the claim so far); rerun with a larger --budget\n";
  else if (!v.tree_well_formed) o << "  NOT VERIFIED: the split tree is malformed (" << v.tree_problem << ")\n";
  o << "  " << v.leaves - v.symmetric_leaves << " leaves re-enclosed (natural interval ∩ centred form ∩ affine range, arb at "
    << r.claim.prec << " bits): largest bound " << format_bound(v.worst_leaf, 6, true) << ", " << v.leaves_not_bounded
    << " above the claim\n";
  // What the proof rests on besides the leaves: the token symmetry, which the checker established itself.
  if (r.claim.contracted_to_sorted_blocks && v.tree_well_formed)
    o << "  the leaves cover the fundamental domain of token permutations (tokens' first coordinates in order); the "
      << "symmetry that makes that a proof about the box was established for this model, target and box (no positional "
      << "table, no fixed position, the same interval for every token)\n";
  if (v.symmetric_leaves > 0)
    o << "  " << v.symmetric_leaves << " leaves outside the fundamental domain of token permutations, established for "
      << "this model, target and box (no positional table, no fixed position, the same interval for every token)\n";
  o << "  attained point re-evaluated: " << (v.lower_attained ? "yes" : "NO, its value is below the claimed lower bound") << "\n";
  if (r.problem.value("execution", "") == "double") {
    if (r.rounding_problem.empty())
      o << "  float64 rounding derived again: " << format_bound(r.rounding_derived, 6, true) << " <= the certificate's "
        << format_bound(r.rounding_claimed, 6, true) << ", so sup |model_double - F| <= "
        << format_bound((ArbBall(r.claim.upper, 128) + ArbBall(r.rounding_claimed, 128)).upper(), 6, true) << "\n";
    else
      o << "  float64 execution NOT VERIFIED: " << r.rounding_problem << "\n";
  }
  o << "  covers: " << r.covers << "\n";
  o << "  " << (r.verified() ? "VERIFIED" : v.out_of_time ? "NOT DECIDED" : "NOT VERIFIED") << " in "
    << format_number(v.seconds, 3) << " s\n";
  return o.str();
}

std::string box_text(const std::vector<double>& lo, const std::vector<double>& hi) {
  const auto uniform = [](const std::vector<double>& v) { return std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; }); };
  if (lo.empty()) return "(empty)";
  if (uniform(lo) && uniform(hi))
    return "[" + format_number(lo[0], 17) + ", " + format_number(hi[0], 17) + "]^" + std::to_string(lo.size());
  std::string s;
  for (std::size_t i = 0; i < lo.size(); ++i)
    s += (i ? " x [" : "[") + format_number(lo[i], 17) + ", " + format_number(hi[i], 17) + "]";
  return s;
}

std::string covers_text(const CertifyReport& r) {
  if (r.double_execution) return "the real-number function of the weights rounded to double, and (below) its float64 execution";
  std::string s = "the real-number function the weights define (not floating-point execution)";
  if (r.rounded_decimals > 0)
    s += "; " + std::to_string(r.rounded_decimals) +
         " decimal string(s) not exact in binary are enclosed as balls holding the value each denotes";
  return s;
}

void to_json(json& j, const CertifyReport& r) {
  j = json{{"target", r.request.target},
           {"T", r.request.T},
           {"d", r.request.d},
           {"box_lo", box_corner(r.request.box_lo, r.request.T * r.request.d)},
           {"box_hi", box_corner(r.request.box_hi, r.request.T * r.request.d)},
           {"sup_error_upper", bound_to_json(r.result.upper)},
           {"sup_error_lower", bound_to_json(r.result.lower)},
           {"attained_at", r.result.argmax},
           {"gap", bound_to_json(r.result.gap())},
           {"relative_gap_requested", r.request.relative_gap},
           {"enclosure", r.request.enclosure},
           {"permutation_block", r.permutation_block},
           {"symmetric_leaves", r.result.symmetric_leaves},
           {"complete", r.result.complete},
           {"stopped_by", r.result.stopped_by},
           {"boxes", r.result.boxes},
           {"seconds", r.result.seconds},
           {"boxes_per_second", r.boxes_per_second},
           {"resumed", r.result.resumed},
           {"grade", "certified upper bound (arb, whole box); lower bound attained at an input (arb)"},
           {"covers", covers_text(r)}};
  if (r.certificate_check)
    j["certificate"] = {{"path", r.request.certificate},
                        {"verified", r.certificate_check->verified()},
                        {"leaves", r.certificate_check->verdict.leaves},
                        {"leaves_not_bounded", r.certificate_check->verdict.leaves_not_bounded},
                        {"check_seconds", r.certificate_check->verdict.seconds},
                        {"covers", r.certificate_check->covers}};
  if (r.double_execution)
    j["double_execution"] = {{"rounding_bound", bound_to_json(r.double_execution->rounding_bound)},
                             {"rounding_bound_finite", std::isfinite(r.double_execution->rounding_bound)},
                             {"rounding_boxes", r.double_execution->rounding_boxes},
                             {"rounding_observed", bound_to_json(r.double_execution->rounding_observed)},
                             {"rounding_observed_at", r.double_execution->rounding_observed_at},
                             {"rounding_samples", r.double_execution->rounding_samples},
                             {"sup_error_upper", bound_to_json(r.double_execution->upper)},
                             {"sup_error_lower", bound_to_json(r.double_execution->lower)},
                             {"covers", "ForwardPass<double> (binary64, round to nearest, exp within 1 ulp), any "
                                        "summation order, with or without FMA"}};
}

std::string certify_table(const CertifyReport& r) {
  std::ostringstream o;
  auto num = [](double v) { return format_number(v, 6); };
  o << "target " << r.request.target << ", T = " << r.request.T << ", d = " << r.request.d << ", box "
    << box_text(box_corner(r.request.box_lo, r.request.T * r.request.d), box_corner(r.request.box_hi, r.request.T * r.request.d))
    << "\n";
  o << "  sup |model - F| <= " << format_bound(r.result.upper, 6, true) << "   (certified over the whole box)\n";
  o << "  sup |model - F| >= " << format_bound(r.result.lower, 6, false) << "   (attained at";
  for (double v : r.result.argmax) o << " " << format_number(v, 17);
  o << ")\n";
  o << "  gap " << num(r.result.gap()) << (r.result.complete ? " (requested gap reached)" : " (stopped by " + r.result.stopped_by + ")")
    << ", " << r.result.boxes << " boxes in " << format_number(r.result.seconds, 3) << " s (" << format_number(r.boxes_per_second, 4)
    << " boxes/s, enclosure " << r.request.enclosure << ")" << (r.result.resumed ? ", resumed from a checkpoint" : "")
    << "\n";
  if (r.permutation_block > 0)
    o << "  searched the fundamental domain of token permutations (tokens' first coordinates in order, 1/" << r.request.T
      << "! of the box; no positional table, no fixed position in the target)"
      << (r.result.symmetric_leaves > 0 ? ", " + std::to_string(r.result.symmetric_leaves) + " boxes outside it left out" : "")
      << "\n";
  if (!r.request.certificate.empty() && !r.certificate_check)
    o << "  certificate " << r.request.certificate << ": not written (no finite upper bound to prove)\n";
  if (r.certificate_check)
    o << "  certificate " << r.request.certificate << ": " << r.certificate_check->verdict.leaves << " leaves, "
      << (r.certificate_check->verified() ? "verified" : "NOT verified") << " by the independent checker in "
      << format_number(r.certificate_check->verdict.seconds, 3) << " s"
      << (r.certificate_check->rounding_problem.empty() ? "" : " (" + r.certificate_check->rounding_problem + ")") << "\n";
  if (r.rounded_decimals > 0)
    o << "  " << r.rounded_decimals << " decimal weight(s) not exact in binary (the first: " << r.first_rounded
      << "): enclosed as balls around the values the file denotes\n";
  if (r.double_execution) {
    o << "  float64 execution (weights rounded to double, ForwardPass<double>):\n";
    if (std::isfinite(r.double_execution->rounding_bound))
      o << "    rounding of the double forward pass <= " << format_bound(r.double_execution->rounding_bound, 6, true)
        << "   (certified over the whole box, " << r.double_execution->rounding_boxes << " sub-box(es))\n";
    else
      o << "    rounding of the double forward pass: no finite bound (the double forward pass may overflow on this box)\n";
    o << "    rounding observed >= " << format_bound(r.double_execution->rounding_observed, 6, false)
      << "   (sampled: the largest |double - MPFR 256-bit| at " << r.double_execution->rounding_samples
      << " inputs, a local search near the worst)\n";
    o << "    sup |model_double - F| <= " << format_bound(r.double_execution->upper, 6, true) << "\n";
    o << "    sup |model_double - F| >= " << format_bound(r.double_execution->lower, 6, false)
      << "   (the double forward pass at the input above)\n";
  }
  return o.str();
}

}  // namespace infoflow
