#include "xjit/runtime/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

// oneDNN and the vectorized kernels want cache-line aligned storage.
constexpr size_t kAlignment = 64;

absl::StatusOr<void*> AlignedAllocate(const Shape& shape) {
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
  // std::aligned_alloc needs a multiple of the alignment; a zero-size array
  // still gets a real (one line) allocation so data() is never null.
  size_t bytes = static_cast<size_t>(shape.byte_size());
  size_t rounded = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("Out of memory allocating ", bytes, " bytes for ", shape.ToString()));
  }
  return p;
}

}  // namespace

Buffer::Buffer(PrivateTag, Shape shape, Device* device, void* data)
    : shape_(std::move(shape)), device_(device), data_(data) {}

Buffer::~Buffer() { std::free(data_); }

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(Shape shape, Device* device) {
  absl::StatusOr<void*> data = AlignedAllocate(shape);
  if (!data.ok()) return data.status();
  return std::make_shared<Buffer>(PrivateTag(), std::move(shape), device, *data);
}

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::FromHost(Shape shape, const void* data,
                                                         Device* device) {
  absl::StatusOr<void*> storage = AlignedAllocate(shape);
  if (!storage.ok()) return storage.status();
  size_t bytes = static_cast<size_t>(shape.byte_size());
  if (bytes != 0) std::memcpy(*storage, data, bytes);
  auto b = std::make_shared<Buffer>(PrivateTag(), std::move(shape), device, *storage);
  b->ready_.SetReady();
  return b;
}

absl::Status Buffer::CopyToHost(void* dst) const {
  absl::Status status = ready_.Await();
  if (!status.ok()) return status;
  size_t bytes = static_cast<size_t>(shape_.byte_size());
  if (bytes != 0) std::memcpy(dst, data_, bytes);
  return absl::OkStatus();
}

}  // namespace xjit
