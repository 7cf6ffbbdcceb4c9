// The ducc0 FFT entry points the cpu backend calls (backends/cpu/fft.cc),
// instantiated for float and double. ducc0's own fft_inst*.cc instantiate
// every transform it has (DCT, DST, Hartley, ...); this builds only ours.
#include "ducc0/fft/fftnd_impl.h"

namespace ducc0 {
namespace detail_fft {

#define XJIT_DUCC0_INSTANCES(T)                                                                 \
  template void c2c(const cfmav<std::complex<T>>&, const vfmav<std::complex<T>>&,               \
                    const shape_t&, bool, T, size_t);                                           \
  template void r2c(const cfmav<T>&, const vfmav<std::complex<T>>&, const shape_t&, bool, T,    \
                    size_t);                                                                    \
  template void c2r(const cfmav<std::complex<T>>&, const vfmav<T>&, const shape_t&, bool, T,    \
                    size_t);

XJIT_DUCC0_INSTANCES(float)
XJIT_DUCC0_INSTANCES(double)

#undef XJIT_DUCC0_INSTANCES

}  // namespace detail_fft
}  // namespace ducc0
