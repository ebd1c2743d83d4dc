// The command-line interface (CLI11). Every user error becomes an InputError naming the argument and
// what was expected, printed on one line, with exit code 2.
#include "verify/cli.hpp"

#include "verify/build_info.hpp"

#include "numerics/fit/exponent_fit.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/eigen_blocking.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "numerics/util/xy_csv.hpp"
#include "numerics/sweep/distribution.hpp"
#include "reports/claims.hpp"
#include "reports/regression.hpp"
#include "numerics/certify/certify_model.hpp"
#include "theorems/common/certify_soundness.hpp"

#include <mpfr.h>
#include "theorems/common/model_class_bound.hpp"
#include "theorems/infoflow/planner.hpp"
#include "reports/report_writer.hpp"
#include "reports/text_format.hpp"
#include "theorems/suite.hpp"
#include "reports/mutation_table.hpp"
#include "verify/mutation_harness.hpp"
#include "verify/progress.hpp"

#include <CLI/CLI.hpp>
#include <glog/logging.h>
#include <omp.h>

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace infoflow {

using nlohmann::json;

namespace {

constexpr int kExitCheckFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = 3;
constexpr int kExitUnknown = 4;  // certify: valid bounds, the requested gap not reached (the budget ran out)
// More threads than this is a typo, not a machine (libgomp would try to allocate them all).
constexpr int kMaxThreads = 256;

extern "C" char** environ;

struct GlobalOptions {
  std::string seed_text = "20260529";
  std::uint64_t seed = 20260529;
  std::string profile = "quick";
  int threads = 0;
  std::string out = "infoflow-out";
  std::string adopt_build;  // --adopt-build: another build whose checkpointed points may be adopted (SuiteContext)
};

struct PrecisionSpec {
  enum class Kind { Double, Mpfr, Arb } kind = Kind::Double;
  long bits = 53;
};

PrecisionSpec parse_precision(const std::string& s) {
  const std::string expected = "expected double, mpfr:BITS or arb:BITS with 16 <= BITS <= 100000, got '" + s + "'";
  if (s == "double") return {};
  const auto colon = s.find(':');
  if (colon == std::string::npos) throw InputError("--precision", expected);
  const std::string kind = s.substr(0, colon), bits = s.substr(colon + 1);
  PrecisionSpec p;
  if (kind == "mpfr") p.kind = PrecisionSpec::Kind::Mpfr;
  else if (kind == "arb") p.kind = PrecisionSpec::Kind::Arb;
  else throw InputError("--precision", expected);
  try {
    std::size_t used = 0;
    p.bits = std::stol(bits, &used);
    if (used != bits.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("--precision", expected);
  }
  if (p.bits < 16 || p.bits > 100000) throw InputError("--precision", expected);
  return p;
}

int resolve_threads(int requested) {
  if (requested < 0 || requested > kMaxThreads)
    throw InputError("--threads", "expected a thread count between 1 and " + std::to_string(kMaxThreads) +
                                      " (or 0 for all cores), got " + std::to_string(requested));
  return requested == 0 ? omp_get_num_procs() : requested;
}

// Digits only: CLI11 would wrap "-1" to 2^64 - 1.
std::uint64_t parse_seed(const std::string& s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s[0] == '-' || s[0] == '+' || ec != std::errc() || end != s.data() + s.size())
    throw InputError("--seed", "expected a whole number between 0 and 18446744073709551615, got '" + s + "'");
  return v;
}

void validate_out(const std::string& out) {
  if (out.empty()) throw InputError("--out", "expected a folder name, got an empty string");
}

// A commit stamp as cmake/build_commit.cmake writes it: git's short hash (12 hex digits, more where 12 would be
// ambiguous), optionally "-dirty-" and 8 more, or "nogit-" and 12. It goes into a fingerprint that is compared, never
// into a path or a shell.
void validate_adopt_build(const std::string& build) {
  if (build.empty()) return;
  const auto is_hex = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  };
  const auto commit = [&](const std::string& s) { return s.size() >= 12 && s.size() <= 40 && is_hex(s); };
  const std::size_t dirty = build.find("-dirty-");
  const bool stamp = commit(build) ||
                     (dirty != std::string::npos && commit(build.substr(0, dirty)) && build.size() == dirty + 15 &&
                      is_hex(build.substr(dirty + 7))) ||
                     (build.size() == 18 && build.compare(0, 6, "nogit-") == 0 && is_hex(build.substr(6)));
  if (!stamp)
    throw InputError("--adopt-build", "expected a build's commit stamp as its --version prints it (12 or more hex "
                                      "digits, e.g. 8f5042b2aa2f), got '" + build + "'");
  if (build == build_commit())
    throw InputError("--adopt-build", "'" + build + "' is this build: its points are resumed without adoption");
  if (SweepDistributor* d = sweep_distributor(); d && d->size() > 1)
    throw InputError("--adopt-build", "expected one process: another build's points are adopted by a run without MPI");
}

SuiteContext make_context(const GlobalOptions& g, const SuiteInfo& suite, const std::string& out_dir,
                          const std::string& position = {}) {
  SuiteContext ctx;
  ctx.profile = parse_profile(g.profile);
  ctx.seed = g.seed;
  ctx.threads = resolve_threads(g.threads);
  ctx.out_dir = out_dir;
  ctx.adopt_build = g.adopt_build;
  // The reproduction command leaves out --out and --threads: neither changes a result.
  ctx.command = "infoflow-verify " + suite.alias + " --profile " + g.profile + " --seed " + std::to_string(g.seed);
  auto printer = std::make_shared<ProgressPrinter>(suite.id, position);
  ctx.progress = [printer](const SweepProgress& p) { (*printer)(p); };
  return ctx;
}

int exit_code_for(const std::vector<SuiteResult>& results) {
  for (const auto& r : results)
    if (r.overall() == Verdict::Fail) return kExitCheckFailed;
  return 0;
}

// ---- eval ----
template <class S>
json eval_outputs(const ModelT<mpfr::mpreal>& hp, const std::vector<std::vector<std::vector<mpfr::mpreal>>>& inputs,
                  Precision p) {
  const auto m = convert_model<S>(hp, p);
  const ParamLayout layout(m.arch);
  json out = json::array();
  for (const auto& seq : inputs) {
    Sequence<S> X;
    for (const auto& tok : seq) {
      Vec<S> x;
      for (const auto& v : tok) x.push_back(ScalarTraits<S>::from_mpreal(v, p));
      X.push_back(x);
    }
    const ForwardResult<S> r = forward(m, layout, X);
    const S& y = r.y;
    if constexpr (std::is_same_v<S, double> || std::is_same_v<S, mpfr::mpreal>) {
      // An overflow anywhere (not only in the output) means this precision did not compute the function: a finite
      // output after one could be a laundered wrong answer (inf − inf = NaN, and a NaN turned into a number).
      if (!r.nonfinite_at.empty())
        throw InputError("--precision", std::string(std::is_same_v<S, double> ? "double" : "mpfr:" + std::to_string(p.bits)) +
                                            " overflows on input " + std::to_string(out.size()) + " (a NaN or an infinity in the " +
                                            "states after " + r.nonfinite_at + "), so it does not evaluate the model there; " +
                                            "expected a precision whose range holds every intermediate value, such as " +
                                            "--precision arb:256 (balls of any exponent)");
    }
    if constexpr (std::is_same_v<S, double>) {
      out.push_back(y);
    } else if constexpr (std::is_same_v<S, mpfr::mpreal>) {
      out.push_back(y.toString(static_cast<int>(p.bits * 0.30103) + 2));
    } else {
      if (!y.is_finite()) {
        // A ball too wide to be finite is an honest answer at this precision, not an error.
        std::cerr << "warning: at arb:" << p.bits << " the output ball is unbounded (precision too low for this "
                  << "input); try arb:" << 2 * p.bits << " or more\n";
        out.push_back({{"ball", y.to_string(16)}, {"precision_too_low", true},
                       {"hint", "try --precision arb:" + std::to_string(2 * p.bits)}});
        continue;
      }
      mpfr::mpreal mid(0, p.bits);
      arf_get_mpfr(mid.mpfr_ptr(), arb_midref(y.raw()), MPFR_RNDN);
      std::ostringstream rad;
      rad.precision(17);
      rad << y.rad();
      out.push_back({{"mid", mid.toString(static_cast<int>(p.bits * 0.30103) + 2)}, {"rad", rad.str()},
                     {"ball", y.to_string(static_cast<long>(p.bits * 0.30103))}});
    }
  }
  return out;
}

int cmd_eval(const std::string& weights, const std::string& inputs_path, const std::string& precision) {
  const PrecisionSpec ps = parse_precision(precision);
  // Weights and inputs are read at generous precision; conversion then rounds them to the target type.
  const long read_bits = std::max<long>(ps.bits, 256) * 2;
  const json weights_doc = read_json_file(weights, "--weights");
  const auto model = weights_from_json(weights_doc, read_bits);
  const auto inputs = inputs_from_json(read_json_file(inputs_path, "--inputs"), model.arch.d, read_bits);
  json out{{"precision", precision}};
  // A certificate covers one domain: say so when an input lies outside it.
  if (const auto domain = certified_domain_of(weights_doc)) {
    json outside = json::array();
    for (std::size_t s = 0; s < inputs.size(); ++s) {
      bool in_box = true;
      for (const auto& tok : inputs[s])
        for (const auto& v : tok) in_box &= v >= domain->box_lo && v <= domain->box_hi;
      if (static_cast<int>(inputs[s].size()) != domain->T || !in_box) outside.push_back(s);
    }
    out["certificate"] = *domain;
    out["outside_certified_domain"] = outside;
    if (!outside.empty())
      std::cerr << "warning: " << outside.size() << " input(s) lie outside the certified domain (T = " << domain->T
                << ", box [" << domain->box_lo << ", " << domain->box_hi << "]^" << domain->T * domain->d
                << "): the certified bound " << domain->sup_error_bound << " does not apply to them\n";
  }
  if (ps.kind == PrecisionSpec::Kind::Double) {
    // A weight or input beyond the double range would round to ±inf: the double model would not be the file's.
    if (const auto w = first_weight_beyond_double(model))
      throw InputError("--weights", *w + " is beyond the double range (" + kDoubleRangeText +
                                        "); expected weights a double holds, or --precision mpfr:BITS or arb:BITS");
    for (std::size_t s = 0; s < inputs.size(); ++s)
      for (const auto& tok : inputs[s])
        for (const auto& v : tok)
          if (std::isinf(v.toDouble()))
            throw InputError("--inputs", "input " + std::to_string(s) + " holds " + v.toString(17) +
                                             ", beyond the double range (|x| <= 1.7976931348623157e308); expected "
                                             "inputs a double holds, or --precision mpfr:BITS or arb:BITS");
  }
  switch (ps.kind) {
    case PrecisionSpec::Kind::Double: out["outputs"] = eval_outputs<double>(model, inputs, Precision{53}); break;
    case PrecisionSpec::Kind::Mpfr: out["outputs"] = eval_outputs<mpfr::mpreal>(model, inputs, Precision{ps.bits}); break;
    case PrecisionSpec::Kind::Arb: out["outputs"] = eval_outputs<ArbBall>(model, inputs, Precision{ps.bits}); break;
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

// ---- bound ----
int cmd_bound(const std::string& weights, ModelBoundRequest q, bool as_json, std::uint64_t seed) {
  q.seed = seed;
  const Model model = convert_model<double>(weights_from_json(read_json_file(weights, "--weights"), 64), Precision{53});
  const ModelBoundReport rep = bound_single_layer_model(model, q);
  if (as_json) std::cout << json(rep).dump(2) << "\n";
  else std::cout << model_bound_table(rep);
  // A model below a certified class bound refutes the derivation (or exposes a bug): exit 1, like a failed check.
  return rep.respects ? 0 : kExitCheckFailed;
}

// ---- certify ----
int cmd_certify(const std::string& weights, CertifyRequest q, const std::string& box, bool as_json) {
  if (!box.empty()) {
    // LO,HI (a cube) or LO_1,...,LO_n,HI_1,...,HI_n (n = T*d, checked by certify_model): at most 128 numbers, so
    // the list's length is bounded before anything is sized by it.
    const std::string expected = "expected LO,HI or LO_1,...,LO_n,HI_1,...,HI_n (n = T*d <= 64), got '" +
                                 terminal_text(first_code_points(box, 200)) + (box.size() > 200 ? "...'" : "'");
    // Each end as the nearest double, and whether that double is the decimal typed: an end such as 0.3 is not a
    // double, so it is widened by one ulp outward below, and the box certified contains the box typed.
    std::vector<double> ends;
    std::vector<bool> inexact;
    std::size_t at = 0;
    while (true) {
      const std::size_t comma = box.find(',', at);
      const std::string item = box.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      if (ends.size() == 128 || item.empty() || std::isspace(static_cast<unsigned char>(item[0])))
        throw InputError("--box", expected);
      mpfr_t v;
      mpfr_init2(v, 53);
      char* end = nullptr;
      const int rounding = mpfr_strtofr(v, item.c_str(), &end, 10, MPFR_RNDN);
      const double value = mpfr_get_d(v, MPFR_RNDN);
      mpfr_clear(v);
      if (end != item.c_str() + item.size() || !std::isfinite(value)) throw InputError("--box", expected);
      ends.push_back(value);
      inexact.push_back(rounding != 0);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (ends.size() % 2 != 0) throw InputError("--box", expected);
    const std::size_t half = ends.size() / 2;
    for (std::size_t i = 0; i < ends.size(); ++i)
      if (inexact[i]) ends[i] = std::nextafter(ends[i], i < half ? -INFINITY : INFINITY);
    q.box_lo.assign(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(half));
    q.box_hi.assign(ends.begin() + static_cast<std::ptrdiff_t>(half), ends.end());
  }
  // The certificate replaces its file: never the weights it is about, nor the search's checkpoint.
  std::error_code ec;
  for (const auto& [other, what] : {std::pair{weights, "--weights"}, std::pair{q.checkpoint, "--checkpoint"}})
    if (!q.certificate.empty() && !other.empty() && std::filesystem::exists(q.certificate, ec) &&
        std::filesystem::equivalent(q.certificate, other, ec))
      throw InputError("--certificate", std::string("is the same file as ") + what + ": expected a file of its own");
  DecimalRounding rounding;
  const auto model = weights_from_json(read_json_file(weights, "--weights"), 256, &rounding);
  const CertifyReport rep = certify_model(model, q, &rounding);
  if (as_json) std::cout << json(rep).dump(2) << "\n";
  else std::cout << certify_table(rep);
  if (rep.certificate_check && !rep.certificate_check->verified()) {
    std::cerr << "error: the certificate " << q.certificate << " did not verify: a defect in certify; please report it\n";
    return kExitCheckFailed;
  }
  // "Unknown" is an outcome, as verification tools report it: the bounds printed are valid, the gap not reached.
  return rep.result.complete ? 0 : kExitUnknown;
}

int cmd_check_certificate(const std::string& file, const std::string& weights, int threads, double budget, bool as_json) {
  if (!(budget == 0 || (budget > 0 && budget <= 86400))) throw InputError("--budget", "expected 0 < S <= 86400 seconds");
  DecimalRounding rounding;
  const auto model = weights_from_json(read_json_file(weights, "--weights"), 256, &rounding);
  const CertificateCheckReport rep =
      check_certificate_file(read_json_file(file, "certificate"), model, &rounding, threads, budget);
  const CertificateVerdict& v = rep.verdict;
  if (as_json)
    std::cout << json{{"verified", rep.verified()}, {"covers", rep.covers}, {"problem", rep.problem},
                      {"box_lo", rep.claim.lo}, {"box_hi", rep.claim.hi},
                      {"float64_rounding", rep.problem.value("execution", "") == "double"
                                               ? json{{"claimed", rep.rounding_claimed}, {"derived", rep.rounding_derived},
                                                      {"problem", rep.rounding_problem}}
                                               : json(nullptr)},
                      {"sup_error_upper", rep.claim.upper}, {"sup_error_lower", rep.claim.lower},
                      {"tree_well_formed", v.tree_well_formed}, {"tree_problem", v.tree_problem},
                      {"leaves", v.leaves}, {"symmetric_leaves", v.symmetric_leaves}, {"leaves_not_bounded", v.leaves_not_bounded},
                      {"leaves_cover_fundamental_domain", rep.claim.contracted_to_sorted_blocks},
                      {"largest_leaf_bound", bound_to_json(v.worst_leaf)}, {"lower_attained", v.lower_attained},
                      {"out_of_time", v.out_of_time}, {"seconds", v.seconds}}.dump(2)
              << "\n";
  else std::cout << certificate_check_table(rep);
  if (rep.verified()) return 0;
  return v.out_of_time && v.leaves_not_bounded == 0 ? kExitUnknown : kExitCheckFailed;
}

// ---- fit ----
Interval parse_band(const std::string& s) {
  const auto comma = s.find(',');
  const std::string expected = "expected LO,HI with LO < HI, got '" + s + "'";
  if (comma == std::string::npos) throw InputError("--band", expected);
  try {
    std::size_t a = 0, b = 0;
    const std::string los = s.substr(0, comma), his = s.substr(comma + 1);
    const double lo = std::stod(los, &a), hi = std::stod(his, &b);
    if (a != los.size() || b != his.size() || !(lo < hi)) throw std::invalid_argument("band");
    return Interval{lo, hi};
  } catch (const std::exception&) {
    throw InputError("--band", expected);
  }
}

int cmd_fit(const std::string& csv, const std::string& band, bool json_out, std::uint64_t seed) {
  const XYPoints points = read_xy_csv(csv, "--csv");
  const auto& x = points.x;
  const auto& y = points.y;
  if (const std::string problem = loglog_points_problem(x, y); !problem.empty()) throw InputError("--csv", problem);
  const std::optional<Interval> pass_band = band.empty() ? std::nullopt : std::optional<Interval>(parse_band(band));
  const LineFit f = fit_loglog(x, y, FitOptions{seed});
  const std::optional<Verdict> verdict = pass_band ? std::optional<Verdict>(judge_interval(f.interval, *pass_band)) : std::nullopt;
  if (json_out) {
    json out{{"model", "log y = intercept + slope * log x"}, {"seed", seed}};
    out["fit"] = to_json(f);
    if (pass_band) {
      out["band"] = {pass_band->lo, pass_band->hi};
      out["verdict"] = verdict_name(*verdict);
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "log y = intercept + slope * log x, " << x.size() << " points\n"
              << "  slope     " << format_number(f.slope, 6) << "   95% interval [" << format_number(f.interval.lo, 6)
              << ", " << format_number(f.interval.hi, 6) << "]\n"
              << "  intercept " << format_number(f.intercept, 6) << "\n";
    if (pass_band)
      std::cout << "  band [" << format_number(pass_band->lo, 6) << ", " << format_number(pass_band->hi, 6)
                << "]: verdict " << verdict_name(*verdict) << "\n";
  }
  return verdict == Verdict::Fail ? 1 : 0;
}

// ---- suites, all, report ----
int cmd_suite(const GlobalOptions& g, const SuiteInfo& suite, const std::map<std::string, std::string>& options) {
  SuiteContext ctx = make_context(g, suite, g.out);
  for (const auto& [name, value] : options)
    if (!value.empty()) {
      ctx.options[name] = value;
      ctx.command += " " + name + " " + value;
    }
  if (suite.validate) suite.validate(ctx);
  const OutputFolderLock lock(g.out, "--out");
  const SuiteResult r = run_suite(suite, ctx);
  std::cout << ledger_table({r}) << "\n" << summary_table({r});
  std::cout << "result: " << (std::filesystem::path(g.out) / "result.json").string() << "\n";
  return exit_code_for({r});
}

// One suite's failure must not cost the others their report: record it as a failed check. Its finished
// sweep points stay in the checkpoints, so a rerun resumes.
void record_stopped_suite(const SuiteInfo& suite, const SuiteContext& ctx, const std::string& error,
                          std::vector<SuiteResult>& results) {
  std::fprintf(stderr, "[all] %s stopped: %s\n", suite.id.c_str(), error.c_str());
  const SuiteResult r = stopped_suite_result(suite, ctx, error);
  if (is_root_process()) write_json_file((std::filesystem::path(ctx.out_dir) / "result.json").string(), to_json(r));
  results.push_back(r);
}

// The baseline a report compares its claims with (`--baseline FILE`), if one was given.
std::optional<std::vector<SuiteResult>> load_baseline(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::vector<SuiteResult> base = load_results(path, "--baseline");
  settle_loaded_claims(base, "--baseline");
  return base;
}

// The suites a comma-separated list names (ids or aliases, each once); InputError naming `option` for an unknown one.
std::vector<const SuiteInfo*> named_suites(const std::string& list, const char* option) {
  std::vector<const SuiteInfo*> named;
  std::stringstream ss(list);
  std::string id;
  while (std::getline(ss, id, ',')) {
    const SuiteInfo* s = find_suite(id);
    if (!s) {
      std::string known;
      for (const auto& k : all_suites()) known += (known.empty() ? "" : ", ") + k.id;
      throw InputError(option, "unknown suite '" + id + "' (known: " + known + ")");
    }
    if (std::find(named.begin(), named.end(), s) == named.end()) named.push_back(s);  // an id and its alias
  }
  return named;
}

int cmd_all(const GlobalOptions& g, const std::string& only, const std::string& skip, const std::string& baseline) {
  if (!only.empty() && !skip.empty()) throw InputError("--skip", "expected either --only or --skip, not both");
  std::vector<const SuiteInfo*> selected;
  if (!only.empty()) {
    selected = named_suites(only, "--only");
  } else {
    const std::vector<const SuiteInfo*> skipped = skip.empty() ? std::vector<const SuiteInfo*>{} : named_suites(skip, "--skip");
    for (const auto& s : all_suites())
      if (std::find(skipped.begin(), skipped.end(), &s) == skipped.end()) selected.push_back(&s);
    if (selected.empty()) throw InputError("--skip", "expected at least one suite left to run");
  }
  // Read before any suite runs: a baseline this build cannot read ends the run now, not after hours of work.
  const std::optional<std::vector<SuiteResult>> base = load_baseline(baseline);
  const OutputFolderLock lock(g.out, "--out");
  // Every folder this run writes into is held too: a suite run on its own with --out OUT/SUITE, at the same
  // time, would otherwise share (and overwrite) that suite's checkpoints and result.
  std::vector<std::unique_ptr<OutputFolderLock>> suite_locks;
  for (const SuiteInfo* sp : selected)
    suite_locks.push_back(std::make_unique<OutputFolderLock>((std::filesystem::path(g.out) / sp->id).string(), "--out"));
  std::vector<SuiteResult> results;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const SuiteInfo& suite = *selected[i];
    const std::string position = "suite " + std::to_string(i + 1) + "/" + std::to_string(selected.size());
    std::fprintf(stderr, "%s [all] %s: running %s (%s profile)\n", ProgressPrinter::timestamp().c_str(), position.c_str(),
                 suite.id.c_str(), g.profile.c_str());
    const SuiteContext ctx = make_context(g, suite, (std::filesystem::path(g.out) / suite.id).string(), position);
    bool stopped = false;
    try {
      results.push_back(run_suite(suite, ctx));
    } catch (const InputError& e) {
      // The output folder fails every suite alike; anything else the user typed was checked before any
      // suite ran, so an InputError here is a suite's own and stops that suite only.
      if (e.argument() == "--out") throw;
      record_stopped_suite(suite, ctx, e.what(), results);
      stopped = true;
    } catch (const std::exception& e) {
      record_stopped_suite(suite, ctx, e.what(), results);
      stopped = true;
    }
    // Under MPI a suite may have stopped on the root alone (a file it could not write): the ranks would fall out
    // of step, so every rank ends now. The checkpoints keep the finished points for a rerun.
    if (SweepDistributor* d = sweep_distributor(); stopped && d && d->size() > 1) d->abort(kExitInternal);
  }
  if (!is_root_process()) return exit_code_for(results);  // under MPI the root writes the report
  settle_all_claims(results);
  // The ledger first: which of the paper's claims this run decides, and how.
  std::cout << ledger_table(results, base ? &*base : nullptr) << "\n";
  const ReportFiles files = write_report(results, g.out, base ? &*base : nullptr);
  for (const auto& w : files.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::cout << summary_table(results);
  std::cout << "report: " << files.html << "\n        " << files.markdown << "\n";
  return exit_code_for(results);
}

int cmd_report(const std::string& results_dir, const std::string& out, const std::string& baseline) {
  const OutputFolderLock lock(out, "--out");
  const CollectedResults collected = collect_results(results_dir);
  for (const auto& w : collected.skipped) std::fprintf(stderr, "warning: skipped %s\n", w.c_str());
  std::vector<SuiteResult> results = collected.results;
  // In the order `all` runs the suites (the ledger reads Theorem 1 first), others after them by name.
  const auto rank = [](const SuiteResult& r) {
    const auto& suites = all_suites();
    for (std::size_t i = 0; i < suites.size(); ++i)
      if (suites[i].id == r.suite) return i;
    return suites.size();
  };
  std::stable_sort(results.begin(), results.end(), [&](const SuiteResult& a, const SuiteResult& b) { return rank(a) < rank(b); });
  if (results.empty())
    throw InputError("--results", "no result found in '" + results_dir + "' (expected DIR/result.json, DIR/SUITE/result.json or DIR/results.json)");
  settle_loaded_claims(results, "--results");
  const std::optional<std::vector<SuiteResult>> base = load_baseline(baseline);
  std::cout << ledger_table(results, base ? &*base : nullptr) << "\n";
  const ReportFiles files = write_report(results, out, base ? &*base : nullptr);
  for (const auto& w : files.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::cout << summary_table(results) << "report: " << files.html << "\n";
  return 0;
}

enum class ProgramStatus { Succeeded, NotFound, Failed };

// Runs a program found on PATH with an argument vector: no shell ever sees user text.
ProgramStatus run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc == ENOENT) return ProgramStatus::NotFound;
  if (rc != 0) return ProgramStatus::Failed;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return ProgramStatus::Failed;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return ProgramStatus::NotFound;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ProgramStatus::Succeeded : ProgramStatus::Failed;
}

struct PlanOptions {
  std::string target;
  int layers = 2;
  std::string heads;  // empty: one head per layer
  int E = 16, n = 1, d = 1, T = 16;
  bool positional = false, json_out = false;
  std::string dot;
};

int cmd_plan(const PlanOptions& o) {
  PlanArchitecture a;
  a.layers = o.layers;
  // Without --heads, one head per layer (a layer count validated below; a bad one gets no heads here).
  const std::string heads =
      !o.heads.empty() ? o.heads : o.layers >= 1 && o.layers <= 64 ? [&] {
        std::string h = "1";
        for (int l = 1; l < o.layers; ++l) h += ",1";
        return h;
      }() : std::string("1");
  std::stringstream ss(heads);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      a.heads.push_back(std::stoi(item, &used));
      if (used != item.size()) throw std::invalid_argument("junk");
    } catch (const std::exception&) {
      throw InputError("--heads", "expected comma-separated head counts, got '" + heads + "'");
    }
  }
  a.E = o.E;
  a.n = o.n;
  a.d = o.d;
  a.T = o.T;
  a.positional = o.positional;
  a.validate();
  const ParsedTarget t = parse_target(o.target);
  const Plan p = plan_target(t, a);
  // The DOT file is written first, so a bad --dot path fails before anything is printed.
  if (!o.dot.empty()) write_text_file_atomic(o.dot, plan_dot(t, a, p), "--dot");
  if (o.json_out) std::cout << plan_json(t, a, p).dump(2) << "\n";
  else std::cout << plan_table(t, a, p);
  if (!o.dot.empty()) {
    // A path starting with '-' would read as an option to dot.
    const std::string dot_path = o.dot[0] == '-' ? "./" + o.dot : o.dot, svg = dot_path + ".svg";
    switch (run_program({"dot", "-Tsvg", dot_path, "-o", svg})) {
      case ProgramStatus::Succeeded: std::cerr << "drawn: " << svg << "\n"; break;
      case ProgramStatus::NotFound: std::cerr << "wrote " << o.dot << " (install graphviz to render it to SVG)\n"; break;
      case ProgramStatus::Failed: std::cerr << "wrote " << o.dot << " (dot could not render it to SVG)\n"; break;
    }
  }
  return 0;
}

int cmd_regress(const std::string& baseline, const std::string& current, const std::string& junit, bool update, bool json_out) {
  auto cur = load_results(current, "--current");
  if (cur.empty()) throw InputError("--current", "no suite results found in '" + current + "'");
  settle_loaded_claims(cur, "--current");
  if (update) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : cur) all.push_back(to_json(r));
    write_json_file(baseline, nlohmann::json{{"schema", "infoflow-verify/results/1"}, {"suites", all}});
    std::cout << "baseline written: " << baseline << " (" << cur.size() << " suites)\n";
    return 0;
  }
  auto base = load_results(baseline, "--baseline");
  settle_loaded_claims(base, "--baseline");
  // Exponents, bounds and verdicts of different profiles differ by design: comparing them reports noise as regressions.
  for (const SuiteResult& c : cur)
    for (const SuiteResult& b : base)
      if (b.suite == c.suite && b.profile != c.profile)
        throw InputError("--current", "suite " + c.suite + " ran with profile '" + c.profile + "', the baseline '" +
                                          baseline + "' with '" + b.profile + "': compare runs of the same profile "
                                          "(reports/baselines/quick.json or nightly.json)");
  const RegressionReport rep = compare_results(base, cur);
  if (json_out)
    std::cout << nlohmann::json{{"regressions", rep.regressions()}, {"comparisons", rep.items}}.dump(2) << "\n";
  else
    std::cout << rep.table();
  write_text_file_atomic(junit.empty() ? (std::filesystem::path(std::filesystem::is_directory(current) ? current : ".") /
                                          "regress-junit.xml").string()
                                       : junit,
                         rep.junit_xml());
  return rep.regressions() > 0 ? kExitCheckFailed : 0;
}

int cmd_mutants(const GlobalOptions& g, bool quick) {
  const OutputFolderLock lock(g.out, "--out");
  MutationOptions o;
  // Always from scratch: the table must describe the code as it is now, never a cached point.
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(g.out) / "mutants", ec);
  o.quick = quick;
  o.seed = g.seed;
  o.threads = resolve_threads(g.threads);
  o.out_dir = (std::filesystem::path(g.out) / "mutants").string();
  auto printer = std::make_shared<ProgressPrinter>("mutants");
  o.progress = [printer](const SweepProgress& p) { (*printer)(p); };
  const MutationReport rep = run_mutation_harness(o);
  const json j = rep.to_json();
  write_json_file((std::filesystem::path(g.out) / "mutation.json").string(), j);
  write_text_file_atomic((std::filesystem::path(g.out) / "mutation.md").string(), mutation_markdown(j));
  std::cout << rep.table() << "written: " << (std::filesystem::path(g.out) / "mutation.md").string() << "\n";
  // A surviving mutant, or a check that fails with no mutant at all (it can never be killed), fails the run.
  return rep.uncaught_mutants() > 0 || !rep.failing_without_mutant.empty() || !rep.evidence_without_outside_killer().empty()
             ? kExitCheckFailed
             : 0;
}

// An error under MPI may have happened on the root alone (the output folder's lock, a file it could not write):
// every rank ends at once rather than wait for the others. Without MPI, or with one rank, this is the exit code.
int end_distributed(int exit_code) {
  if (SweepDistributor* d = sweep_distributor(); d && d->size() > 1) d->abort(exit_code);
  return exit_code;
}

// CLI11 answers a mistyped subcommand with "A subcommand is required"; name it instead. The first argument that is
// neither an option nor a global option's value is the subcommand.
void reject_unknown_subcommand(const std::vector<std::string>& args, CLI::App& app) {
  static const std::set<std::string> takes_value{"--seed", "--profile", "--threads", "--out", "--adopt-build"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (takes_value.count(a)) {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] == '-') continue;
    std::string known;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) return;
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    throw InputError("subcommand", "unknown subcommand '" + a + "' (expected one of: " + known + ")");
  }
}

}  // namespace

int cli_main(int argc, char** argv, const char* single_suite) {
  // Ceres reports solver hiccups (a failed Cholesky step, which it recovers from) through glog; they
  // are not the user's business. Errors still show.
  FLAGS_minloglevel = 2;
  // Before any thread starts: every Eigen product, Ceres's included, then sums in the same order on every CPU.
  pin_eigen_cache_sizes();
  std::vector<std::string> args(argv + 1, argv + argc);
  // A per-suite executable (thm1-depth-separation, ...) is the suite's subcommand, named by the suite's id (which is
  // the executable's name), so its help reads "Usage: thm1-depth-separation [OPTIONS]".
  std::string single_suite_id;
  if (single_suite)
    for (const auto& s : all_suites())
      if (s.alias == single_suite) single_suite_id = s.id;
  if (single_suite) args.insert(args.begin(), single_suite_id);

  CLI::App app{"infoflow-verify: checks the approximation theorems of the InfoFlow paper by construction and measurement",
               single_suite ? "" : "infoflow-verify"};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", "infoflow-verify " + build_version(), "print the version and the build's commit");
  GlobalOptions g;
  app.add_option("--seed", g.seed_text, "seed of every random choice (default 20260529)");
  app.add_option("--profile", g.profile, "quick | full | nightly");
  app.add_option("--threads", g.threads, "worker threads (0 = all cores)");
  app.add_option("--out", g.out, "output folder");
  app.add_option("--adopt-build", g.adopt_build,
                 "with all or a suite: keep this earlier build's checkpointed points if two recompute to the same bits");

  auto* all = app.add_subcommand("all", "run every suite and write the report (index.html, report.md, results.json, junit.xml)");
  std::string only, skip, report_baseline;
  all->add_option("--only", only, "comma-separated suite ids or aliases to run (default: all)");
  all->add_option("--skip", skip, "comma-separated suite ids or aliases to leave out (scripts/nightly: experiments)");
  all->add_option("--baseline", report_baseline, "results to compare the claims with (e.g. reports/baselines/quick.json)");
  std::string weights, inputs, precision = "double";
  auto* eval = app.add_subcommand("eval", "evaluate a model from a weights file on inputs");
  eval->add_option("--weights", weights, "weights JSON (docs/weights-format.md)")->required();
  eval->add_option("--inputs", inputs, "inputs JSON: {\"inputs\": [sequence, ...]}")->required();
  eval->add_option("--precision", precision, "double | mpfr:BITS | arb:BITS");
  ModelBoundRequest bound_request;
  std::string bound_weights;
  bool bound_json = false;
  auto* bound = app.add_subcommand("bound", "check a single-layer model against the certified class lower bounds (L*R)");
  bound->add_option("--weights", bound_weights, "weights JSON of a single-layer model")->required();
  bound->add_option("--target", bound_request.target, "min-dot (Theorem 1, default) or kth (Theorem 2)");
  bound->add_option("--T", bound_request.T, "sequence length (min-dot: 3..12)")->required();
  bound->add_option("--k", bound_request.k, "rank, for --target kth (1 <= k <= T)");
  bound->add_option("--max-family-inputs", bound_request.max_family_inputs, "largest family evaluated in arb (default 20000)");
  bound->add_flag("--json", bound_json, "print JSON instead of a table");
  CertifyRequest certify_request;
  std::string certify_weights, certify_box;
  bool certify_json = false;
  auto* certify = app.add_subcommand("certify", "certified sup |model - F| over an input box (interval branch-and-bound)");
  certify->add_option("--weights", certify_weights, "weights JSON (docs/weights-format.md)")->required();
  certify->add_option("--target", certify_request.target, "target, e.g. 'min_{s,t} dot(x[s], x[t])'")->required();
  certify->add_option("--T", certify_request.T, "sequence length")->required();
  certify->add_option("--d", certify_request.d, "token dimension (default: the model's)");
  certify->add_option("--box", certify_box, "input box: LO,HI for every coordinate (default 0,1), or LO_1,...,LO_n,HI_1,...,HI_n, one interval per input (n = T*d; input i is token (i-1)/d + 1, coordinate (i-1)%d + 1)");
  certify->add_option("--gap", certify_request.relative_gap, "stop at upper <= lower (1 + G) (default 0.01)");
  certify->add_option("--budget", certify_request.budget_seconds,
                      "time budget of the search in seconds (default 60); with --certificate the checker runs after "
                      "it and is not counted (check-certificate --budget bounds that)");
  certify->add_option("--max-boxes", certify_request.max_boxes, "box budget (default 1e7; deterministic, unlike --budget)");
  certify->add_option("--threads", certify_request.threads, "threads over boxes (default 1; the result does not depend on it)");
  certify->add_option("--execution", certify_request.execution,
                      "real (default): the function the weights define; double: also its float64 execution (weights "
                      "rounded to double, a rigorous rounding bound added)");
  certify->add_option("--enclosure", certify_request.enclosure,
                      "affine (default): each box's enclosure also takes an affine form's range, which narrows "
                      "quadratically with the box; affine-only: that range alone, no gradient (about half the cost per "
                      "box, splits the widest side); mean-value: the natural enclosure and the mean-value form only");
  certify->add_flag("--no-symmetry", [&](std::int64_t) { certify_request.symmetry = false; },
                    "search every box even where the model (no positional table) and the target (no fixed position) "
                    "are invariant under token permutations (by default only one ordering of the tokens is searched, "
                    "every box contracted to it)");
  certify->add_option("--rounding-boxes", certify_request.rounding_boxes,
                      "with --execution double: sub-boxes the rounding bound may split the box into (default 4096)");
  certify->add_option("--checkpoint", certify_request.checkpoint,
                      "save the search to this file as it runs and resume from it (same model, target, T, box)");
  certify->add_option("--checkpoint-every", certify_request.checkpoint_seconds, "seconds between saves (default 10)");
  certify->add_option("--certificate", certify_request.certificate,
                      "write the proof (split tree, claim) to this file and verify it at once by the checker's own "
                      "route (docs/certificate-format.md)");
  certify->add_flag("--json", certify_json, "print JSON instead of a table");
  certify->footer("Exit codes: 0 the requested gap was reached (and the certificate, if any, verified); 4 unknown: "
                  "the budget ran out first (the bounds printed are valid, only loose); 2 bad input; 1 a certificate "
                  "the checker refused (a defect: please report it).");
  std::string check_file, check_weights;
  int check_threads = 1;
  double check_budget = 0;
  bool check_json = false;
  auto* check_cert = app.add_subcommand("check-certificate", "verify a certify proof certificate against a weights file");
  check_cert->add_option("certificate", check_file, "the certificate (certify --certificate FILE)")->required();
  check_cert->add_option("--weights", check_weights, "the weights JSON the certificate is about")->required();
  check_cert->add_option("--threads", check_threads, "threads over leaves (default 1; the verdict does not depend on it)");
  check_cert->add_option("--budget", check_budget, "time budget in seconds (default: none); out of time is exit 4");
  check_cert->add_flag("--json", check_json, "print JSON instead of a table");
  check_cert->footer("Exit codes: 0 verified; 1 not verified (a leaf above the claim, a malformed tree, or the attained "
                     "point below the claimed lower bound); 2 bad input (not a certificate, or one about another model); 4 "
                     "the --budget ran out before every leaf was checked, none above the claim so far (not decided).");
  SoundnessCampaignOptions soundness;
  bool soundness_json = false;
  auto* soundness_cmd = app.add_subcommand(
      "certify-soundness", "test certify on random models x targets with kinks x boxes against a dense MPFR search");
  soundness_cmd->add_option("--triples", soundness.triples, "(model, target, box) triples (default 24)");
  soundness_cmd->add_option("--first", soundness.first, "index of the first triple (default 0; to rerun one: its index, --triples 1)");
  soundness_cmd->add_option("--max-boxes", soundness.max_boxes, "certify's box budget per triple (default 400)");
  soundness_cmd->add_option("--search-points", soundness.search_points, "points of the dense MPFR search per triple (default 600)");
  soundness_cmd->add_option("--refine-steps", soundness.refine_steps, "local-search steps after it (default 300)");
  soundness_cmd->add_option("--sub-boxes", soundness.sub_boxes,
                            "sub-boxes per triple whose enclosures (value and gradient) are audited (default 24)");
  soundness_cmd->add_option("--sub-box-points", soundness.sub_box_points, "uniform points per sub-box (default 16)");
  soundness_cmd->add_flag("--json", soundness_json, "print JSON (every triple) instead of a table");
  soundness_cmd->footer("Exit codes: 0 no unsound triple; 1 an unsound one (printed with its index: a defect in certify); "
                        "2 bad input. Same --seed, any --threads: the same triples and results (docs/certify.md §4.1).");
  std::string csv, band;
  bool fit_json = false;
  auto* fit = app.add_subcommand("fit", "fit log y against log x from a CSV with columns x,y");
  fit->add_option("--csv", csv, "CSV file with a header naming columns x and y")->required();
  fit->add_option("--band", band, "pass band LO,HI for the slope");
  fit->add_flag("--json", fit_json, "print JSON instead of a table");
  fit->footer("Exit codes: 0 fitted (and, with --band, the slope's interval inside it or inconclusive); 1 the interval "
              "lies outside the band (verdict fail); 2 bad input.");
  std::string results_dir;
  auto* report = app.add_subcommand("report", "turn a folder of result.json files into a report");
  report->add_option("--results", results_dir, "folder searched for result.json (default: --out)");
  report->add_option("--baseline", report_baseline, "results to compare the claims with (e.g. reports/baselines/quick.json)");
  std::string baseline, current, junit;
  bool update_baseline = false;
  auto* regress = app.add_subcommand("regress", "compare results with a baseline: exponents, verdicts, certified bounds");
  regress->add_option("--baseline", baseline, "baseline results.json (reports/baselines/...)")->required();
  regress->add_option("--current", current, "folder (or results.json) of the current run")->required();
  regress->add_option("--junit", junit, "where to write JUnit XML (default: CURRENT/regress-junit.xml)");
  regress->add_flag("--update-baseline", update_baseline, "write the current results as the new baseline (after review)");
  bool regress_json = false;
  regress->add_flag("--json", regress_json, "print JSON instead of a table");
  PlanOptions po;
  auto* plan = app.add_subcommand("plan", "plan a target on an architecture with the InfoFlow framework");
  plan->add_option("--target", po.target, "target, e.g. 'min_{s,t} dot(x[s], x[t])'")->required();
  plan->add_option("--layers", po.layers, "number of layers L");
  plan->add_option("--heads", po.heads, "heads per layer, comma-separated (one value per layer; default 1 per layer)");
  plan->add_option("--E", po.E, "state dimension");
  plan->add_option("--n", po.n, "per-head value dimension");
  plan->add_option("--d", po.d, "token dimension");
  plan->add_option("--T", po.T, "sequence length");
  plan->add_flag("--positional", po.positional, "the architecture has positional encoding");
  plan->add_flag("--json", po.json_out, "print JSON instead of a table");
  plan->add_option("--dot", po.dot, "also write the plan as Graphviz DOT (and SVG when dot is installed)");
  bool mutants_quick = false;
  auto* mutants = app.add_subcommand("mutants", "run the suites under each deliberate defect and record which checks catch it");
  mutants->add_flag("--quick", mutants_quick, "each mutant on the suites it targets only (the test suite's form)");
  std::vector<std::pair<CLI::App*, const SuiteInfo*>> suite_cmds;
  std::map<std::string, std::map<std::string, std::string>> suite_options;
  for (const auto& s : all_suites()) {
    CLI::App* cmd = app.add_subcommand(s.id == single_suite_id ? s.id : s.alias, "run suite " + s.id + ": " + s.title);
    for (const auto& o : s.options) cmd->add_option(o.name, suite_options[s.id][o.name], o.help);
    suite_cmds.emplace_back(cmd, &s);
  }

  // Every subcommand's help names the global options, which may come before or after it.
  for (CLI::App* sub : app.get_subcommands({}))
    sub->footer(sub->get_footer() + (sub->get_footer().empty() ? "" : "\n") +
                "Global options (before or after the subcommand): --seed N, --profile quick|full|nightly, --threads K, "
                "--out DIR, --adopt-build COMMIT, --version; `infoflow-verify --help` lists every subcommand.");

  try {
    reject_unknown_subcommand(args, app);
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
    g.seed = parse_seed(g.seed_text);
    (void)parse_profile(g.profile);
    (void)resolve_threads(g.threads);
    validate_out(g.out);
    validate_adopt_build(g.adopt_build);
    bool suite_command = all->parsed();
    for (const auto& [cmd, suite] : suite_cmds) suite_command = suite_command || cmd->parsed();
    if (SweepDistributor* d = sweep_distributor(); d && d->size() > 1 && !suite_command)
      throw InputError("infoflow-verify-mpi", "only `all` and the suite commands run under MPI; run the others with infoflow-verify");
    if (!g.adopt_build.empty() && !suite_command)
      throw InputError("--adopt-build", "only `all` and the suite commands keep checkpoints to adopt");
    if (all->parsed()) return cmd_all(g, only, skip, report_baseline);
    if (eval->parsed()) return cmd_eval(weights, inputs, precision);
    if (fit->parsed()) return cmd_fit(csv, band, fit_json, g.seed);
    if (certify->parsed()) return cmd_certify(certify_weights, certify_request, certify_box, certify_json);
    if (check_cert->parsed()) return cmd_check_certificate(check_file, check_weights, check_threads, check_budget, check_json);
    if (soundness_cmd->parsed()) {
      soundness.seed = g.seed;
      soundness.threads = resolve_threads(g.threads);
      const SoundnessCampaign c = run_soundness_campaign(soundness);
      if (soundness_json) std::cout << json(c).dump(2) << "\n";
      else std::cout << soundness_campaign_table(c);
      return c.unsound == 0 ? 0 : kExitCheckFailed;
    }
    if (bound->parsed()) return cmd_bound(bound_weights, bound_request, bound_json, g.seed);
    if (plan->parsed()) return cmd_plan(po);
    if (regress->parsed()) return cmd_regress(baseline, current, junit, update_baseline, regress_json);
    if (mutants->parsed()) return cmd_mutants(g, mutants_quick);
    if (report->parsed()) return cmd_report(results_dir.empty() ? g.out : results_dir, g.out, report_baseline);
    for (const auto& [cmd, suite] : suite_cmds)
      if (cmd->parsed()) return cmd_suite(g, *suite, suite_options[suite->id]);
    return kExitBadInput;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "\n" << "run with --help for usage\n";
    return kExitBadInput;
  } catch (const InputError& e) {
    // The message may echo user text (a file name, a target): printed so that it cannot drive the terminal.
    std::cerr << "error: " << terminal_text(e.what()) << "\n";
    return end_distributed(kExitBadInput);
  } catch (const ContractError& e) {
    std::cerr << "internal error (a bug in infoflow-verify, not in your input): " << e.what() << "\n";
    return end_distributed(kExitInternal);
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return end_distributed(kExitInternal);
  }
}

}  // namespace infoflow
