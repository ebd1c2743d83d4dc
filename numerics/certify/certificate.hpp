#pragma once
// Proof certificates for `certify` (docs/certificate-format.md) and their checker.
//
// A certificate is the split tree of a branch-and-bound search over a box, the bound it claims (sup |e| ≤ upper over
// the box) and the point where it attained |e| ≥ lower. The checker rebuilds every leaf box from the tree (so the
// leaves cover the box by construction: each split replaces a box by its two halves), encloses e on each leaf by its
// own short route (arb: the natural interval extension intersected with the centred form e(c) ± Σ_i |∂_i e|·r_i) and
// requires each leaf's bound to be ≤ upper; it re-evaluates the attained point. It shares the model's forward pass
// (the function being proved about) but none of the search: no queue, no pruning, no checkpoint, no candidate
// points. A certificate whose tree is malformed, or one of whose leaves is not bounded, does not verify.
#include "numerics/certify/branch_and_bound.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace infoflow {

inline constexpr const char* kCertificateFormat = "infoflow-verify/certificate/2";
/// The format before the search contracted its boxes to the fundamental domain (read, with that meaning, and checked).
inline constexpr const char* kCertificateFormatUncontracted = "infoflow-verify/certificate/1";

/// What a certificate proves, as read from its file (the problem it is about is checked by the caller).
struct CertificateClaim {
  std::vector<double> lo, hi;    // the box
  double upper = 0;              // sup |e| ≤ upper over the box
  double lower = 0;              // |e(attained_at)| ≥ lower
  std::vector<double> attained_at;
  std::vector<int> preorder;     // the split tree (SplitTree::preorder)
  long prec = 128;               // the working precision of the balls
  /// The search covered only the fundamental domain of block permutations (0: none; a block b > 0 in format 1: it
  /// left out the leaves wholly outside the domain). The checker takes the domain for the box only when its caller
  /// has established the symmetry for this model, target and box.
  std::size_t permutation_block = 0;
  /// With a permutation block (format 2): every box of the tree, the root included, is contracted to the smallest box
  /// holding its points of the fundamental domain (contract_to_sorted_blocks) before it is split or enclosed, and a box
  /// contracted to nothing is a leaf outside the domain; the leaves then cover the domain, not the box.
  bool contracted_to_sorted_blocks = false;
};

/// The certificate document: `problem` (what the caller needs to identify the function e: model digest, target, …)
/// is written as given.
nlohmann::json certificate_to_json(const BranchAndBoundResult& result, const std::vector<double>& lo,
                                   const std::vector<double>& hi, long prec, const nlohmann::json& problem,
                                   std::size_t permutation_block = 0);
/// Reads the claim; throws InputError (argument "certificate") for a document that is not one.
CertificateClaim certificate_claim_from_json(const nlohmann::json& j);

struct CertificateVerdict {
  bool tree_well_formed = false;  // the preorder describes one binary tree, every split strictly inside its box
  std::string tree_problem;       // why not
  long leaves = 0;
  long symmetric_leaves = 0;      // of which outside the fundamental domain, not enclosed (images of other leaves)
  long leaves_not_bounded = 0;    // leaves whose enclosure's upper bound exceeds the claim
  double worst_leaf = 0;          // the largest leaf bound found
  std::vector<double> first_unbounded_lo, first_unbounded_hi;  // the first such leaf
  bool lower_attained = false;    // |e(attained_at)| ≥ lower, re-evaluated
  bool out_of_time = false;       // the time budget ran out before every leaf was re-enclosed: nothing is decided
  double seconds = 0;
  bool verified() const { return tree_well_formed && leaves_not_bounded == 0 && lower_attained && !out_of_time; }
};

/// Checks `claim` for the function that `on_box` and `at_point` evaluate. `permutation_block`: the block size of a
/// permutation symmetry the caller has established for that function and box (0: none); only when it is the claim's
/// own permutation_block is a tree of contracted boxes (format 2) a proof about the box, and are leaves outside the
/// fundamental domain left unenclosed. Deterministic for any thread count. With
/// budget_seconds > 0 the check stops once that much time has passed (between batches of 256 leaves) and reports
/// out_of_time: not verified, and not refuted either.
/// `range` (optional): a further enclosure of each leaf (the affine form's range, evaluated on the same sides as the
/// range search's), whose ends are intersected with the others' in doubles; with a search range widened as
/// certify_model.cpp's `checkable` does, a leaf the range search bounded is never bounded more loosely here.
CertificateVerdict check_certificate(const CertificateClaim& claim, const BoxEvaluation& on_box,
                                     const PointEvaluation& at_point, int threads, double budget_seconds = 0,
                                     std::size_t permutation_block = 0, const RangeEvaluation& range = {});

}  // namespace infoflow
