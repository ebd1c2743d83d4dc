#pragma once
// `infoflow-verify certify` (docs/certify.md): a certified sup |model − F| over an input box for any model file
// and any target of the framework's syntax, by interval branch-and-bound (numerics/certify/branch_and_bound.hpp).
// It certifies the real-number function the weights define (not its floating-point execution), or with execution
// "double" its float64 run. The run's whole data path is here: the request, e = model − F on boxes and points, the
// search, the certificate and its check, typed reports (certify_model.cpp); their tables and --json document
// (certify_output.cpp). The suites' checks on certify are in theorems/common/certify_checks.hpp.
#include "numerics/certify/branch_and_bound.hpp"
#include "numerics/certify/certificate.hpp"
#include "numerics/model/model.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/target/target_syntax.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infoflow {

struct CertifyRequest {
  std::string target;        // framework syntax, e.g. "min_{s,t} dot(x[s], x[t])"
  int T = 0;
  int d = 0;                 // 0: the model's token dimension
  /// The input box: one entry each, the cube [LO, HI]^{T·d}; or T·d entries each, the box ∏_i [lo_i, hi_i] (input i is
  /// token i / d, coordinate i % d). Ends may coincide (a slab of width 0 in that coordinate).
  std::vector<double> box_lo{0.0}, box_hi{1.0};
  double relative_gap = 1e-2;
  double budget_seconds = 60;
  long max_boxes = 10'000'000;  // a box budget makes the result deterministic (a time budget does not)
  int threads = 1;
  /// "real": the real-number function the weights define. "double": also the model as it runs in float64 (its
  /// weights rounded to double, ForwardPass<double>), by adding a rigorous rounding bound (double_execution.hpp).
  std::string execution = "real";
  /// How each box is enclosed (docs/certify.md §1): "affine", the natural enclosure ∩ the mean-value form ∩ the range
  /// of an affine form (the default), split where width × |gradient| is largest; "affine-only", the affine form's
  /// range alone, split on the widest side (no gradient: about half the cost per box); "mean-value", without the
  /// affine form (the enclosure before it, for comparison).
  /// The checker of a certificate always uses every family: the bound it verifies never depends on this.
  std::string enclosure = "affine";
  /// Search only the fundamental domain of token permutations (every box contracted to it) when the model has no
  /// positional table, the target names no fixed position and the box is the same for every token (docs/certify.md
  /// §1 item 5b).
  bool symmetry = true;
  /// With execution "double": sub-boxes the rounding bound may split the box into (the worst is split first).
  long rounding_boxes = 4096;
  /// When non-empty, the search state is saved there every `checkpoint_seconds` and at the end, and a run with the
  /// same model and request resumes from it (docs/certify.md §5).
  std::string checkpoint;
  double checkpoint_seconds = 10;
  /// When non-empty, a proof certificate (docs/certificate-format.md) is written there and checked at once by the
  /// checker's own route; `complete` then requires the check to pass.
  std::string certificate;
  /// Build the proof certificate and check it by the checker's own route even without a file to write it to (a check
  /// that runs certify holds the search to its proof this way).
  bool verify_proof = false;
};

/// d when e = model − F is unchanged by every permutation of the T tokens over this box (no positional table, no
/// fixed position in the target, the same interval for every token), else 0: the block size of
/// BranchAndBoundOptions::permutation_block.
std::size_t token_permutation_block(const Architecture& arch, const ParsedTarget& target, int T, int d,
                                    const std::vector<double>& lo, const std::vector<double>& hi);

/// What check-certificate found (check_certificate_file below).
struct CertificateCheckReport {
  nlohmann::json problem;
  CertificateClaim claim;
  CertificateVerdict verdict;
  std::string covers;              // what a verified bound covers, in words
  /// Execution double: the certificate's rounding bound rho and the one derived again (double_execution.hpp, with the
  /// certificate's settings); "" or why the float64 part does not verify.
  double rounding_claimed = 0, rounding_derived = 0;
  std::string rounding_problem;
  bool verified() const { return verdict.verified() && rounding_problem.empty(); }
};

/// The float64 execution's figures (execution = "double").
struct DoubleExecutionReport {
  double rounding_bound = 0;  // sup over the box of |ŷ_double − ŷ_real| (certified, docs/certify.md §2)
  long rounding_boxes = 0;    // the sub-boxes its analysis evaluated
  double rounding_observed = 0;  // sampled: the largest |ŷ_double − ŷ_MPFR-256| found (observed_double_rounding)
  std::vector<double> rounding_observed_at;
  long rounding_samples = 0;
  double upper = 0;           // certified: sup |ŷ_double − F| ≤ this (branch-and-bound's upper + rounding bound)
  double lower = 0;           // attained: |ŷ_double − F| at the argmax, the double forward pass against F in arb
};

struct CertifyReport {
  CertifyRequest request;
  BranchAndBoundResult result;
  double boxes_per_second = 0;
  /// d when the search covered only the fundamental domain of token permutations (docs/certify.md §1 item 5b), else 0.
  std::size_t permutation_block = 0;
  std::optional<DoubleExecutionReport> double_execution;
  std::size_t rounded_decimals = 0;  // weights held as balls (decimal strings the reader could not hold exactly)
  std::string first_rounded;         // the JSON path of the first of them
  std::optional<CertificateCheckReport> certificate_check;  // with request.certificate
};
/// The box's ends for `inputs` coordinates: `ends` itself, or its one entry repeated (a cube).
std::vector<double> box_corner(const std::vector<double>& ends, int inputs);
/// "[lo, hi]^n" for a cube, else "[lo_1, hi_1] x [lo_2, hi_2] x ..." (17 significant digits).
std::string box_text(const std::vector<double>& lo, const std::vector<double>& hi);
/// What the certificate covers, in words (the JSON field "covers").
std::string covers_text(const CertifyReport& r);
void to_json(nlohmann::json& j, const CertifyReport& r);
std::string certify_table(const CertifyReport& r);

/// Throws InputError (exit 2) for an unknown or non-evaluable target, a token dimension that is not the model's, T
/// outside 1..64 or beyond the model's positional table, T·d > 64, an empty box or one whose ends are neither one nor
/// T·d numbers each, a gap outside [0, 1e6], a budget outside (0, 1 day], threads outside 1..256, max boxes outside
/// 1..1e9, an execution other than real or double, an enclosure other than affine, affine-only or mean-value, rounding
/// boxes outside 1..1e7, a checkpoint interval outside (0, 1 day], or a checkpoint file that belongs to another model
/// or request.
/// `rounding` (from weights_from_json): the reader's radii; the weights are enclosed as balls around the stored
/// values, so the certificate covers the values the file's decimal strings denote (execution "real").
CertifyReport certify_model(const ModelT<mpfr::mpreal>& model, const CertifyRequest& request,
                            const DecimalRounding* rounding = nullptr);

/// `infoflow-verify check-certificate`: the certificate's problem (target, T, d, execution, the model's digest) must
/// be this model's (else InputError); then every leaf is re-enclosed and the attained point re-evaluated.
/// budget_seconds: 0 for none, else in (0, 86400] (InputError "--budget" otherwise).
CertificateCheckReport check_certificate_file(const nlohmann::json& certificate, const ModelT<mpfr::mpreal>& model,
                                              const DecimalRounding* rounding, int threads, double budget_seconds = 0);
std::string certificate_check_table(const CertificateCheckReport& r);

/// What certify's search takes on one box: the enclosure of e = model − F (natural ∩ mean-value form) and the
/// enclosure of e's gradient (a Clarke-gradient hull at kinks) that the mean-value form rests on.
struct BoxEnclosure {
  ArbBall value;
  std::vector<ArbBall> gradient;
};
/// Those enclosures on each of `boxes` (lo, hi), for one model, target and T: what every certified bound rests on,
/// exposed so that a search at points (theorems/common/certify_soundness.hpp) can hold them against values and derivatives inside.
std::vector<BoxEnclosure> certify_box_enclosures(const Model& model, const std::string& target, int T,
                                                 const std::vector<std::pair<std::vector<double>, std::vector<double>>>& boxes);

/// Point values against box enclosures: `boxes` random boxes of [0,1]^{T·d} (widest side 2^-2 to 2^-10, each side up
/// to 8 times narrower), each with its corners lo and hi and `points` − 2 random points inside, evaluated in arb; a
/// violation is a point value whose ball lies wholly outside the box's enclosure (box_enclosure) or outside the range
/// of e's affine form alone, i.e. an enclosure that is not one.
struct EnclosureAudit {
  long boxes = 0, points = 0, violations = 0;
  double worst_excess = 0;
};
EnclosureAudit audit_box_enclosures(const Model& model, const std::string& target, int T, int boxes, int points,
                                    std::uint64_t seed);

/// Gradient enclosures against derivatives: at `points` random inputs of [0.05, 0.95]^{T·d}, the dual balls' gradient
/// of e on a box of width 2^-29 around the input must contain the central difference of e at the input (arb, 512
/// bits, step 2^-80, relative tolerance 1e-12). A violation is a derivative the mean-value form would miss.
struct GradientAudit {
  long derivatives = 0, violations = 0;
  double worst_excess = 0;
};
GradientAudit audit_gradient_enclosures(const Model& model, const std::string& target, int T, int points,
                                        std::uint64_t seed);

}  // namespace infoflow
