// "oneDNN alone" for benchmarks/vs_onednn.py (issue 12's matmul target): an
// n x n by n x n float32 matmul as a oneDNN program writes it, as benchdnn
// runs it: row-major operands and result in memory oneDNN allocates, the
// primitive created once. run() writes the time of `reps` calls
// (milliseconds) to out.
#include <chrono>

#include "dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

extern "C" int run(int n, int reps, double* out) {
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const memory::desc md({n, n}, dt::f32, tag::ab);
  memory a(md, eng), b(md, eng), c(md, eng);
  float* pa = static_cast<float*>(a.get_data_handle());
  float* pb = static_cast<float*>(b.get_data_handle());
  for (int i = 0; i < n * n; ++i) {
    pa[i] = 0.001f * static_cast<float>(i % 997);
    pb[i] = 0.002f * static_cast<float>(i % 991);
  }
  matmul::primitive_desc pd(eng, md, md, md);
  matmul mm(pd);
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    mm.execute(s, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    s.wait();
    out[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return 0;
}
