#include "xjit/backends/cpu/onednn_relu.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "xjit/backends/cpu/onednn.h"

namespace xjit::cpu {
namespace {

// Past this many bytes of probe buffers a convolution keeps its ReLU pass
// unless a kernel of the same name was probed already.
constexpr size_t kMaxProbeBytes = size_t{64} << 20;

absl::Mutex verdicts_mu;
absl::flat_hash_map<std::string, bool>& Verdicts() ABSL_EXCLUSIVE_LOCKS_REQUIRED(verdicts_mu) {
  static auto* verdicts = new absl::flat_hash_map<std::string, bool>();
  return *verdicts;
}

std::vector<float> Filled(const dnnl::memory::desc& md, float value) {
  return std::vector<float>(md.get_size() / sizeof(float), value);
}

// Runs `p` on copies of the probe inputs into a fresh destination.
std::vector<float> RunProbe(const ProbePrimitive& p, std::vector<float> src,
                            std::vector<float> weights, const dnnl::memory::desc& src_md,
                            const dnnl::memory::desc& weights_md,
                            const dnnl::memory::desc& bias_md, const dnnl::memory::desc& dst_md) {
  dnnl::engine& eng = OneDnnEngine();
  dnnl::stream stream(eng);
  std::vector<float> dst = Filled(dst_md, 0.f), bias = Filled(bias_md, 0.f);
  std::vector<unsigned char> scratch(p.scratchpad.get_size());
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, dnnl::memory(src_md, eng, src.data())},
      {DNNL_ARG_WEIGHTS, dnnl::memory(weights_md, eng, weights.data())},
      {DNNL_ARG_DST, dnnl::memory(dst_md, eng, dst.data())}};
  if (!bias.empty()) args[DNNL_ARG_BIAS] = dnnl::memory(bias_md, eng, bias.data());
  if (!scratch.empty()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(p.scratchpad, eng, scratch.data());
  p.primitive.execute(stream, args);
  stream.wait();
  return dst;
}

}  // namespace

void AppendNanKeepingRelu(dnnl::post_ops& post_ops) {
  post_ops.append_eltwise(dnnl::algorithm::eltwise_elu, 0.f, 0.f);
  post_ops.append_eltwise(dnnl::algorithm::eltwise_linear, 1.f, 0.f);
}

bool ProbeNanKeepingRelu(const std::string& impl, const ProbePrimitive& fused,
                         const ProbePrimitive& plain, const dnnl::memory::desc& src_md,
                         const dnnl::memory::desc& weights_md, const dnnl::memory::desc& bias_md,
                         const dnnl::memory::desc& dst_md) {
  {
    absl::MutexLock lock(&verdicts_mu);
    auto it = Verdicts().find(impl);
    if (it != Verdicts().end()) return it->second;
  }
  const size_t bytes = src_md.get_size() + weights_md.get_size() + dst_md.get_size();
  if (bytes > kMaxProbeBytes) return false;
  bool keeps = false;
  try {
    // -1 everywhere but a NaN, a -inf and a +inf spread over the activations:
    // the sums are negative, zero (windows in the padding), NaN or infinite.
    std::vector<float> src = Filled(src_md, -1.f), weights = Filled(weights_md, 1.f);
    const float inf = std::numeric_limits<float>::infinity();
    src[0] = std::numeric_limits<float>::quiet_NaN();
    src[src.size() / 2] = -inf;
    src[src.size() - 1] = inf;
    const std::vector<float> want =
        RunProbe(plain, src, weights, src_md, weights_md, bias_md, dst_md);
    const std::vector<float> got =
        RunProbe(fused, src, weights, src_md, weights_md, bias_md, dst_md);
    keeps = true;
    for (size_t i = 0; i < want.size() && keeps; ++i) {
      const float w = want[i], g = got[i];
      if (std::isnan(w)) {
        keeps = std::isnan(g);
      } else if (w > 0) {
        keeps = g == w;
      } else {
        keeps = g == 0 && !std::signbit(g);
      }
    }
  } catch (const dnnl::error&) {
    keeps = false;
  }
  absl::MutexLock lock(&verdicts_mu);
  Verdicts()[impl] = keeps;
  return keeps;
}

}  // namespace xjit::cpu
