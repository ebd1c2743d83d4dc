#pragma once
// How sweep points are spread over processes (docs/scaling.md). A plain process has no distributor and runs
// every point itself. Under MPI (`infoflow-verify-mpi`) every rank runs the same suite code; at each sweep the
// root (rank 0) owns the checkpoint and hands pending points to the workers one at a time, and then sends every
// rank the records of all points, so all ranks continue with identical data. Only the root writes results.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace infoflow {

class SweepDistributor {
 public:
  virtual ~SweepDistributor() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }
  /// Root: hands `pending` out (in order, one point per idle worker), calls on_result(i, value) as results
  /// arrive, stops handing out after a worker reports an error, and returns the first error ("" if none).
  /// Worker: computes the points the root sends until the root ends the sweep; returns "".
  virtual std::string serve(const std::vector<std::size_t>& pending,
                            const std::function<nlohmann::json(std::size_t)>& compute,
                            const std::function<void(std::size_t, const nlohmann::json&)>& on_result) = 0;
  /// The root's `text`, on every rank.
  virtual std::string broadcast(const std::string& text) = 0;
  /// Ends every rank at once. Used when a failure may have happened on the root alone (a file it could not
  /// write, a lock it could not take): the ranks would otherwise fall out of step. Finished points stay in the
  /// root's checkpoints, so rerunning the command resumes.
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

/// Sweep records as text between processes: nlohmann writes NaN and ±inf as null, which would not read back as
/// the record a single process keeps in memory; these encode them as {"$nonfinite": "nan" | "inf" | "-inf"}.
std::string encode_record_text(const nlohmann::json& j);
nlohmann::json decode_record_text(const std::string& text);
/// The same encoding on a json value (the checkpoint files use it too), and its inverse.
nlohmann::json encode_nonfinite(const nlohmann::json& j);
nlohmann::json decode_nonfinite(const nlohmann::json& j);

/// The process's distributor, or null for a plain process.
SweepDistributor* sweep_distributor();
void set_sweep_distributor(SweepDistributor* d);
/// True for a plain process and for the root of a distributed one: the process that writes files.
bool is_root_process();

}  // namespace infoflow
