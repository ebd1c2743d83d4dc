// infoflow-verify-mpi: the same CLI under MPI (docs/scaling.md). Every rank runs the command; sweeps are spread
// over the ranks by MpiDistributor (rank 0 hands out points and owns checkpoints and results). Built only when
// CMake finds MPI; the plain build never needs it.
#include "numerics/sweep/distribution.hpp"
#include "verify/cli.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <thread>

namespace infoflow {
namespace {

constexpr int kTagTask = 1, kTagStop = 2, kTagResult = 3, kTagBroadcast = 4;

// Waits for a message without spinning a core (Open MPI's blocking receive polls): probe, then sleep briefly.
MPI_Status wait_for(int source, int tag) {
  MPI_Status st;
  int flag = 0;
  auto pause = std::chrono::microseconds(50);
  while (true) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return st;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(5)) pause *= 2;
  }
}

std::string receive_text(int source, int tag, MPI_Status* out = nullptr) {
  const MPI_Status st = wait_for(source, tag);
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (out) *out = st;
  return text;
}

void send_text(const std::string& text, int dest, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

class MpiDistributor final : public SweepDistributor {
 public:
  MpiDistributor() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::string serve(const std::vector<std::size_t>& pending, const std::function<nlohmann::json(std::size_t)>& compute,
                    const std::function<void(std::size_t, const nlohmann::json&)>& on_result) override {
    if (rank_ != 0) {
      // Worker: one point at a time until the root ends this sweep.
      while (true) {
        MPI_Status st = wait_for(0, MPI_ANY_TAG);
        if (st.MPI_TAG == kTagStop) {
          MPI_Recv(nullptr, 0, MPI_CHAR, 0, kTagStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          return "";
        }
        const std::size_t i = std::stoull(receive_text(0, kTagTask));
        nlohmann::json reply{{"i", i}};
        std::string text;
        try {
          reply["value"] = compute(i);
          text = encode_record_text(reply);
        } catch (const std::exception& e) {
          text = encode_record_text(nlohmann::json{{"i", i}, {"error", e.what()}});
        } catch (...) {
          text = encode_record_text(nlohmann::json{{"i", i}, {"error", "unknown exception"}});
        }
        send_text(text, 0, kTagResult);
      }
    }
    // Root: points in order, one per idle worker; the first error stops handing out.
    std::deque<std::size_t> queue(pending.begin(), pending.end());
    std::string error;
    int active = 0;
    auto next_or_stop = [&](int worker) {
      if (!queue.empty() && error.empty()) {
        send_text(std::to_string(queue.front()), worker, kTagTask);
        queue.pop_front();
        ++active;
      } else {
        MPI_Send(nullptr, 0, MPI_CHAR, worker, kTagStop, MPI_COMM_WORLD);
      }
    };
    for (int w = 1; w < size_; ++w) next_or_stop(w);
    while (active > 0) {
      MPI_Status st;
      const nlohmann::json reply = decode_record_text(receive_text(MPI_ANY_SOURCE, kTagResult, &st));
      --active;
      if (reply.contains("error")) {
        if (error.empty()) error = reply["error"].get<std::string>();
      } else {
        on_result(reply.at("i").get<std::size_t>(), reply.at("value"));
      }
      next_or_stop(st.MPI_SOURCE);
    }
    return error;
  }

  std::string broadcast(const std::string& text) override {
    if (rank_ == 0) {
      for (int w = 1; w < size_; ++w) send_text(text, w, kTagBroadcast);
      return text;
    }
    return receive_text(0, kTagBroadcast);
  }

  [[noreturn]] void abort(int exit_code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this only satisfies [[noreturn]]
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace
}  // namespace infoflow

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rc = 0;
  {
    infoflow::MpiDistributor distributor;
    infoflow::set_sweep_distributor(&distributor);
    // Workers stay quiet: the root prints the progress, the summary and any error.
    if (distributor.rank() != 0 && !std::getenv("INFOFLOW_MPI_WORKER_OUTPUT")) {
      if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) return 3;
    }
    rc = infoflow::cli_main(argc, argv);
    // Every rank exits with the root's code.
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    infoflow::set_sweep_distributor(nullptr);
  }
  MPI_Finalize();
  return rc;
}
