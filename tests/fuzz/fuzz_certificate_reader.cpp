// Fuzzes check-certificate's reader and checker: any bytes either are refused as input (InputError) or give a
// verdict, without a crash, a hang or undefined behaviour. The function proved about is e(x) = Σ_i x_i, whose sup of
// |e| over a box is known exactly: a verified certificate must claim at least it (the checker can be fooled by no
// tree), and its attained point must attain what it claims.
#include "fuzz_check.hpp"
#include "numerics/certify/certificate.hpp"
#include "numerics/util/errors.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace infoflow;
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  CertificateClaim claim;
  try {
    claim = certificate_claim_from_json(j);
  } catch (const InputError&) {
    return 0;
  }
  claim.prec = 64;  // the sum is exact at any precision; keep the run fast
  const BoxEvaluation sum_on_box = [](const std::vector<DualBall>& x) {
    DualBall s(ArbBall(0.0, 64));
    for (const DualBall& v : x) s += v;
    return s;
  };
  const PointEvaluation sum_at_point = [](const std::vector<ArbBall>& x) {
    ArbBall s(0.0, 64);
    for (const ArbBall& v : x) s += v;
    return s;
  };
  const CertificateVerdict v = check_certificate(claim, sum_on_box, sum_at_point, 1);
  if (!v.verified()) return 0;
  ArbBall lo(0.0, 128), hi(0.0, 128);
  for (std::size_t i = 0; i < claim.lo.size(); ++i) lo += ArbBall(claim.lo[i], 128), hi += ArbBall(claim.hi[i], 128);
  const double sup = std::max(abs(lo).lower(), abs(hi).lower());
  FUZZ_CHECK(claim.upper >= sup);  // a verified claim is never below the true supremum
  FUZZ_CHECK(claim.lower <= sup);
  return 0;
}
