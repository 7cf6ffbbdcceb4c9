// "oneDNN alone" for benchmarks/conv_vs_onednn.py (issue 7's target): the
// 3x3 convolution + ReLU of workloads.conv3x3_relu_* (batch 8, 64 -> 64
// channels, 28x28) as a oneDNN program writes it: oneDNN's preferred layouts
// (`any`), the relu post-op, weights reordered once; for NCHW data the
// activations' reorders run in every call. run() creates the primitive and
// writes the time of `reps` calls (milliseconds) to out.
#include <chrono>
#include <vector>

#include "dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

extern "C" int run(int nchw_i, int reps, double* out) {
  const bool nchw = nchw_i != 0;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::dims src{8,64,28,28}, wei{64,64,3,3}, dst{8,64,28,28};
  tag user = nchw ? tag::nchw : tag::nhwc;
  std::vector<float> x(8*64*28*28, 0.5f), w(64*64*9, 0.01f), y(8*64*28*28);
  post_ops po;
  po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
  primitive_attr attr; attr.set_post_ops(po);
  auto any = [](memory::dims d) { return memory::desc(d, dt::f32, tag::any); };
  memory::desc smd = nchw ? any(src) : memory::desc(src, dt::f32, user);
  memory::desc dmd = nchw ? any(dst) : memory::desc(dst, dt::f32, user);
  convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct,
      smd, any(wei), dmd, {1,1},{1,1},{1,1}, attr);
  memory xu({src, dt::f32, user}, eng, x.data()), yu({dst, dt::f32, user}, eng, y.data());
  memory wu({wei, dt::f32, tag::oihw}, eng, w.data()), wi(pd.weights_desc(), eng);
  reorder(wu, wi).execute(s, wu, wi); s.wait();
  memory xi = pd.src_desc() == xu.get_desc() ? xu : memory(pd.src_desc(), eng);
  memory yi = pd.dst_desc() == yu.get_desc() ? yu : memory(pd.dst_desc(), eng);
  convolution_forward conv(pd);
  const bool reorder_in = xi != xu, reorder_out = yi != yu;
  reorder in = reorder_in ? reorder(xu, xi) : reorder(), out_r = reorder_out ? reorder(yi, yu) : reorder();
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (reorder_in) in.execute(s, xu, xi);
    conv.execute(s, {{DNNL_ARG_SRC, xi}, {DNNL_ARG_WEIGHTS, wi}, {DNNL_ARG_DST, yi}});
    if (reorder_out) out_r.execute(s, yi, yu);
    s.wait();
    out[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return 0;
}
