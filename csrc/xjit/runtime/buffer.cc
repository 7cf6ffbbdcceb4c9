#include "xjit/runtime/buffer.h"

#include "absl/strings/str_cat.h"
#include "xjit/runtime/device.h"
#include "xjit/runtime/platform.h"

namespace xjit {
namespace {

absl::StatusOr<void*> AllocateFor(const Shape& shape, Device* device) {
  if (device == nullptr) return absl::InvalidArgumentError("Buffers need a device");
  if (shape.is_tuple) {
    return absl::InvalidArgumentError(
        absl::StrCat("Buffers hold arrays, not tuples: ", shape.ToString()));
  }
  for (int64_t d : shape.dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Negative dimension in buffer shape ", shape.ToString()));
    }
  }
  return device->platform_impl().Allocate(device->id(), static_cast<size_t>(shape.byte_size()));
}

}  // namespace

Buffer::Buffer(PrivateTag, Shape shape, Device* device, void* data)
    : shape_(std::move(shape)), device_(device), data_(data) {}

Buffer::~Buffer() {
  if (owns_memory_) device_->platform_impl().Deallocate(device_->id(), data_);
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(Shape shape, Device* device) {
  absl::StatusOr<void*> data = AllocateFor(shape, device);
  if (!data.ok()) return data.status();
  return std::make_shared<Buffer>(PrivateTag(), std::move(shape), device, *data);
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::FromHost(Shape shape, const void* data,
                                                         Device* device) {
  absl::StatusOr<void*> memory = AllocateFor(shape, device);
  if (!memory.ok()) return memory.status();
  size_t bytes = static_cast<size_t>(shape.byte_size());
  auto b = std::make_shared<Buffer>(PrivateTag(), std::move(shape), device, *memory);
  device->platform_impl().CopyToDevice(device->id(), data, *memory, bytes, &b->ready_);
  // Callers free `data` (and may drop the buffer) on return: wait for an
  // asynchronous transfer (host platforms have finished already).
  absl::Status s = b->ready_.AwaitSettled();
  if (!s.ok()) return s;
  return b;
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::WrapHostMemory(Shape shape, void* data,
                                                               Device* device) {
  if (device == nullptr || !device->platform_impl().HostVisibleMemory()) {
    return absl::InvalidArgumentError("WrapHostMemory: the device's memory is not host memory");
  }
  if (shape.is_tuple) {
    return absl::InvalidArgumentError(
        absl::StrCat("Buffers hold arrays, not tuples: ", shape.ToString()));
  }
  auto b = std::make_shared<Buffer>(PrivateTag(), std::move(shape), device, data);
  b->owns_memory_ = false;
  b->AddExternalReference();
  b->ready_.SetReady();
  return b;
}

std::shared_ptr<Buffer> Buffer::TakeOverMemory(Buffer& donor) {
  // Deleting first, atomically, makes exactly one taker the memory's owner.
  if (donor.deleted_.exchange(true, std::memory_order_acq_rel)) return nullptr;
  donor.owns_memory_ = false;
  return std::make_shared<Buffer>(PrivateTag(), donor.shape_, donor.device_, donor.data_);
}

absl::Status Buffer::CopyToHost(void* dst) const {
  absl::Status status = ready_.Await();
  if (!status.ok()) return status;
  Event done;
  device_->platform_impl().CopyToHost(device_->id(), data_, dst,
                                      static_cast<size_t>(shape_.byte_size()), &done);
  return done.AwaitSettled();
}

}  // namespace xjit
