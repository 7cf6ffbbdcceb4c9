// What a backend registers with the runtime: a Platform. It names the
// platform, says how many devices a client has, and provides the compiler,
// the device allocator and the host<->device transfers. Device memory is an
// opaque address to the runtime: it hands it to the platform's programs and
// transfers, and never reads or writes it itself (a CUDA platform's
// addresses are device pointers).
//
// The event type is the runtime's Event (event.h), a one-shot event with a
// status: a transfer completes the Event it is given when the copy is done.
// Host platforms copy synchronously and complete it before returning; a
// device platform completes it later (e.g. from a host callback enqueued on
// its stream), so waiting on it is the only synchronisation the runtime does.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/event.h"

namespace xjit {

class Platform {
 public:
  virtual ~Platform() = default;

  // "cpu", "reference", "cuda".
  virtual const std::string& name() const = 0;
  // Devices of a client of this platform, numbered 0..n-1; read once, when
  // the client is made.
  virtual int DeviceCount() const = 0;
  // The compiler for this platform's devices (one per platform, thread-safe).
  virtual Compiler& compiler() = 0;

  // `bytes` of device memory on device `device` (non-null even for 0 bytes).
  virtual absl::StatusOr<void*> Allocate(int device, size_t bytes) = 0;
  virtual void Deallocate(int device, void* memory) = 0;

  // Copies `bytes` from host memory to device memory and sets `done` (with
  // the copy's status) when finished; `host` must stay valid until then.
  virtual void CopyToDevice(int device, const void* host, void* memory, size_t bytes,
                            Event* done) = 0;
  // Copies device memory to host memory; sets `done` when `host` holds it.
  virtual void CopyToHost(int device, const void* memory, void* host, size_t bytes,
                          Event* done) = 0;

  // True when device memory is ordinary host memory that the bindings may
  // expose to numpy without a copy (the host platforms).
  virtual bool HostVisibleMemory() const { return false; }
};

// Backends register a platform by name; the factory runs on first use.
using PlatformFactory = std::function<std::unique_ptr<Platform>()>;
void RegisterPlatform(const std::string& name, PlatformFactory factory);
// The shared platform instance, or NotFound naming the registered ones.
absl::StatusOr<Platform*> GetPlatform(const std::string& name);
// Registered platform names, "cpu" (the default, as in JAX) first.
std::vector<std::string> RegisteredPlatforms();

}  // namespace xjit
