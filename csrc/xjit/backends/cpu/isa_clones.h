// Element-wise kernels are compiled for baseline x86-64 (so the wheel runs on
// any x86-64 CPU) and, through GCC's target_clones, also for the x86-64-v3
// (AVX2, FMA) and x86-64-v4 (AVX-512 F/BW/DQ/VL) levels;
// the loader picks the widest the CPU has (an ifunc per kernel). Only the
// kernel bodies are cloned: helpers they inline become part of each clone,
// and nothing compiled for a wider ISA is ever shared with baseline code.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(XJIT_NO_ISA_CLONES)
#define XJIT_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define XJIT_ISA_CLONES
#endif
