#include "numerics/certify/certificate.hpp"

#include "numerics/util/errors.hpp"

#include <chrono>
#include <cmath>

namespace infoflow {

using nlohmann::json;

nlohmann::json certificate_to_json(const BranchAndBoundResult& r, const std::vector<double>& lo,
                                   const std::vector<double>& hi, long prec, const json& problem,
                                   std::size_t permutation_block) {
  json j{{"format", kCertificateFormat},
              {"problem", problem},
              {"box_lo", lo},
              {"box_hi", hi},
              {"claim", {{"sup_error_upper", bound_to_json(r.upper)}, {"sup_error_lower", r.lower}, {"attained_at", r.argmax}}},
              {"precision_bits", prec},
              {"tree", r.tree.preorder()}};
  if (permutation_block > 0) j["permutation_block"] = permutation_block;  // the tree is of contracted boxes
  return j;
}

CertificateClaim certificate_claim_from_json(const json& j) {
  const auto refuse = [](const std::string& why) -> CertificateClaim { throw InputError("certificate", why); };
  CertificateClaim c;
  try {
    const std::string format = j.is_object() ? j.value("format", "") : "";
    if (format != kCertificateFormat && format != kCertificateFormatUncontracted)
      return refuse(std::string("expected a document with \"format\": \"") + kCertificateFormat + "\" (or \"" +
                    kCertificateFormatUncontracted + "\", still read)");
    c.lo = j.at("box_lo").get<std::vector<double>>();
    c.hi = j.at("box_hi").get<std::vector<double>>();
    const json& claim = j.at("claim");
    if (!claim.at("sup_error_upper").is_number()) return refuse("claims no finite upper bound: there is nothing to check");
    c.upper = claim.at("sup_error_upper").get<double>();
    c.lower = claim.at("sup_error_lower").get<double>();
    c.attained_at = claim.at("attained_at").get<std::vector<double>>();
    if (!j.at("precision_bits").is_number_integer()) return refuse("expected an integer precision_bits");
    c.prec = j.at("precision_bits").get<long>();
    if (j.contains("permutation_block")) {
      const json& b = j.at("permutation_block");
      if (!b.is_number_unsigned() || b.get<unsigned long long>() < 1 || b.get<unsigned long long>() > 64)
        return refuse("expected permutation_block, when present, to be an integer in [1, 64]");
      c.permutation_block = b.get<std::size_t>();
      c.contracted_to_sorted_blocks = format == kCertificateFormat;
    }
    // Entries one by one: a number outside int (1e20) must be refused, not converted.
    const json& tree = j.at("tree");
    if (!tree.is_array()) return refuse("expected \"tree\": an array of split coordinates (-1 for a leaf)");
    c.preorder.reserve(tree.size());
    for (const json& entry : tree) {
      const bool in_range = entry.is_number_unsigned()  ? entry.get<unsigned long long>() <= 63
                            : entry.is_number_integer() ? entry.get<long long>() >= -1 && entry.get<long long>() <= 63
                                                        : false;
      if (!in_range) return refuse("expected every tree entry to be an integer in [-1, 63]");
      c.preorder.push_back(static_cast<int>(entry.get<long long>()));
    }
  } catch (const json::exception& e) {
    return refuse(std::string("malformed: ") + e.what());
  }
  const std::size_t n = c.lo.size();
  if (n == 0 || n > 64 || c.hi.size() != n || c.attained_at.size() != n)
    return refuse("expected a box of 1 to 64 coordinates and an attained point of the same size");
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::isfinite(c.lo[i]) && std::isfinite(c.hi[i]) && c.lo[i] <= c.hi[i] && c.lo[i] <= c.attained_at[i] &&
          c.attained_at[i] <= c.hi[i]))
      return refuse("expected finite box ends lo <= hi with the attained point inside");
  if (!(std::isfinite(c.upper) && c.lower >= 0 && c.lower <= c.upper))
    return refuse("expected 0 <= lower <= upper < inf");
  if (c.prec < 64 || c.prec > (1 << 16)) return refuse("expected precision_bits in [64, 65536]");
  if (c.permutation_block > 0 && n % c.permutation_block != 0)
    return refuse("expected permutation_block to divide the box's " + std::to_string(n) + " coordinates");
  return c;
}

namespace {

// A bound on |x| for every x in the ball: +inf for a ball that is not finite (or has a NaN midpoint).
double magnitude_bound(double lower, double upper) {
  const double m = std::max(std::fabs(lower), std::fabs(upper));
  return std::isnan(m) ? INFINITY : m;
}

// The checker's own contraction of [lo, hi] to the fundamental domain {x[0] ≤ x[b] ≤ …} (the search's is
// contract_to_sorted_blocks; this is a second route, so that a defect there makes the two trees' boxes differ instead
// of agreeing on leaves that miss sorted points): a sorted point of the box has lo[s·b] ≤ x[s·b] ≤ x[t·b] for every
// s ≤ t and x[t·b] ≤ x[s·b] ≤ hi[s·b] for every s ≥ t, and every value in between is reached by one (raise the earlier
// keys to it, lower the later ones). Returns false when some key is left with lo > hi: the box holds no sorted point.
bool contract_to_domain(std::vector<double>& lo, std::vector<double>& hi, std::size_t block) {
  const std::vector<double> lo0 = lo, hi0 = hi;
  const std::size_t keys = lo.size() / block;
  bool holds_some = true;
  for (std::size_t t = 0; t < keys; ++t) {
    for (std::size_t s = 0; s < keys; ++s) {
      if (s < t) lo[t * block] = std::max(lo[t * block], lo0[s * block]);
      if (s > t) hi[t * block] = std::min(hi[t * block], hi0[s * block]);
    }
    holds_some = holds_some && lo[t * block] <= hi[t * block];
  }
  return holds_some;
}

// The checker's own enclosure of |e| over the box [lo, hi]: with c the centre and r the radius of the box as an arb
// ball (every x of the box has |x_i − c_i| ≤ r_i), e(x) lies in e(c) ± Σ_i sup|∂_i e(box)|·r_i (mean-value
// theorem for Lipschitz functions, the gradient enclosure holding every Clarke gradient) and in the natural
// enclosure e(box), and in `range`'s enclosure when there is one; it lies in their intersection, whose magnitude is
// returned.
double leaf_bound(const std::vector<double>& lo, const std::vector<double>& hi, const BoxEvaluation& on_box,
                  const PointEvaluation& at_point, const RangeEvaluation& range, long prec) {
  const std::size_t n = lo.size();
  std::vector<DualBall> box;
  std::vector<ArbBall> centre, radius, sides;
  for (std::size_t i = 0; i < n; ++i) {
    const ArbBall side = ArbBall::interval(lo[i], hi[i], prec);
    sides.push_back(side);
    box.push_back(DualBall::variable(side, i, n));
    ArbBall c(prec), r(prec);
    arf_set(arb_midref(c.raw()), arb_midref(side.raw()));  // exact: a point
    arb_get_rad_arb(r.raw(), side.raw());
    centre.push_back(std::move(c));
    radius.push_back(std::move(r));
  }
  const DualBall e = on_box(box);
  double low = e.value.lower(), high = e.value.upper();
  // [low, high] narrowed by a further enclosure's ends (a NaN end, an indeterminate ball, narrows nothing).
  const auto narrow = [&](const ArbBall& enclosure) {
    const double l = enclosure.lower(), h = enclosure.upper();
    if (std::isnan(l) || std::isnan(h)) return;
    low = std::isnan(low) ? l : std::max(low, l);
    high = std::isnan(high) ? h : std::min(high, h);
  };
  if (e.grad.empty() || e.grad.size() == n) {
    ArbBall spread(0.0, prec);
    for (std::size_t i = 0; i < e.grad.size(); ++i) {
      ArbBall g(prec);
      arb_get_abs_ubound_arf(arb_midref(g.raw()), e.grad[i].raw(), prec);
      spread += g * radius[i];
    }
    ArbBall centred = at_point(centre);
    arb_add_error(centred.raw(), spread.raw());
    narrow(centred);
  }
  if (range) narrow(range(sides).value);
  if (!(low <= high)) return INFINITY;  // two enclosures that do not meet: one of them is not one
  return magnitude_bound(low, high);
}

}  // namespace

CertificateVerdict check_certificate(const CertificateClaim& claim, const BoxEvaluation& on_box,
                                     const PointEvaluation& at_point, int threads, double budget_seconds,
                                     std::size_t permutation_block, const RangeEvaluation& range) {
  // Leaves outside the fundamental domain need no enclosure only when the symmetry is established (by the caller)
  // and is the one the search used.
  const std::size_t block = permutation_block > 0 && permutation_block == claim.permutation_block ? permutation_block : 0;
  const auto start = std::chrono::steady_clock::now();
  CertificateVerdict v;
  const std::size_t n = claim.lo.size();
  struct Leaf {
    std::vector<double> lo, hi;
    bool empty = false;  // a contracted box that holds no point of the fundamental domain
  };
  if (claim.contracted_to_sorted_blocks && block == 0) {
    // The tree covers the fundamental domain only: without the symmetry its leaves are not a proof about the box.
    v.tree_problem = "the tree covers only the fundamental domain of token permutations (block " +
                     std::to_string(claim.permutation_block) +
                     "), and that symmetry is not established for this model, target and box";
    return v;
  }
  const bool contract = claim.contracted_to_sorted_blocks;
  std::vector<Leaf> stack{{claim.lo, claim.hi}}, batch;
  // A box contracted to nothing is kept with inverted sides, and must be a leaf outside the domain. (The halves of a
  // contracted box never are: once contracted, each holds the sorted point at its lower ends. The rule is for a tree
  // that says otherwise.)
  if (contract && !contract_to_domain(stack.back().lo, stack.back().hi, block)) {
    // A root with no sorted point would make the one-leaf tree prove any claim about nothing.
    v.tree_problem = "the box holds no point of the fundamental domain of token permutations";
    return v;
  }
  // Leaves are bounded in batches (parallel), and merged in tree order (deterministic for any thread count).
  const auto over_budget = [&] {
    return budget_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget_seconds;
  };
  const auto flush = [&] {
    // The budget is read before each batch: a batch once started is finished, so what was checked is whole leaves.
    if (over_budget()) {
      v.out_of_time = true;
      batch.clear();
      return;
    }
    std::vector<double> bound(batch.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (std::size_t k = 0; k < batch.size(); ++k) bound[k] = leaf_bound(batch[k].lo, batch[k].hi, on_box, at_point, range, claim.prec);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      ++v.leaves;
      v.worst_leaf = std::max(v.worst_leaf, bound[k]);
      if (bound[k] <= claim.upper) continue;
      if (v.leaves_not_bounded++ == 0) v.first_unbounded_lo = batch[k].lo, v.first_unbounded_hi = batch[k].hi;
    }
    batch.clear();
  };
  std::size_t pos = 0;
  while (!stack.empty()) {
    if (v.out_of_time) break;
    if (pos >= claim.preorder.size()) {
      v.tree_problem = "the tree ends with boxes still undescribed: the leaves would not cover the box";
      break;
    }
    Leaf box = std::move(stack.back());
    stack.pop_back();
    const int s = claim.preorder[pos++];
    if (s == -1) {
      if (contract ? box.empty : outside_sorted_blocks(box.lo, box.hi, block)) {
        ++v.leaves;
        ++v.symmetric_leaves;
        continue;
      }
      batch.push_back(std::move(box));
      if (batch.size() >= 256) flush();
      continue;
    }
    if (s < 0 || static_cast<std::size_t>(s) >= n) {
      v.tree_problem = "entry " + std::to_string(pos - 1) + " splits coordinate " + std::to_string(s) + " of " + std::to_string(n);
      break;
    }
    if (box.empty) {
      v.tree_problem = "entry " + std::to_string(pos - 1) + " splits a box outside the fundamental domain";
      break;
    }
    const double mid = 0.5 * (box.lo[s] + box.hi[s]);
    if (!(box.lo[s] < mid && mid < box.hi[s])) {
      v.tree_problem = "entry " + std::to_string(pos - 1) + " splits a side that has no interior midpoint";
      break;
    }
    Leaf upper_half = box;
    upper_half.lo[s] = mid;
    box.hi[s] = mid;
    if (contract) {
      upper_half.empty = !contract_to_domain(upper_half.lo, upper_half.hi, block);
      box.empty = !contract_to_domain(box.lo, box.hi, block);
    }
    stack.push_back(std::move(upper_half));
    stack.push_back(std::move(box));  // the lower half comes first in preorder
  }
  if (v.tree_problem.empty() && !v.out_of_time && pos != claim.preorder.size())
    v.tree_problem = "the tree has " + std::to_string(claim.preorder.size() - pos) + " entries after its last leaf";
  v.tree_well_formed = v.tree_problem.empty() && !v.out_of_time;  // a tree not read to its end is not judged
  if (v.tree_well_formed) flush();
  if (v.out_of_time) {
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return v;
  }
  std::vector<ArbBall> point;
  for (double x : claim.attained_at) point.emplace_back(x, claim.prec);
  v.lower_attained = abs(at_point(point)).lower() >= claim.lower;  // NaN (an indeterminate value) fails
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace infoflow
