#include "xjit/runtime/xla_ffi_api.h"

#include <cstdlib>
#include <new>
#include <string>

#include "xjit/runtime/host_transfers.h"

// The opaque error handlers create and return.
struct XLA_FFI_Error {
  XLA_FFI_Error_Code code;
  std::string message;
};

namespace xjit::ffi {
namespace {

XLA_FFI_Error* NewError(XLA_FFI_Error_Code code, std::string message) {
  return new XLA_FFI_Error{code, std::move(message)};
}

XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* args) {
  return NewError(args->errc, args->message ? args->message : "");
}

void ErrorGetMessage(XLA_FFI_Error_GetMessage_Args* args) {
  args->message = args->error->message.c_str();
}

void ErrorDestroy(XLA_FFI_Error_Destroy_Args* args) { delete args->error; }

// What xjit's host platforms do not have (streams, execution-context user
// data, per-handler state, thread pools, futures): a clear error.
template <const char* kWhat>
XLA_FFI_Error* Unimplemented(void*) {
  return NewError(XLA_FFI_Error_Code_UNIMPLEMENTED,
                  std::string(kWhat) + " is not supported by xjit's FFI (host platforms only)");
}
constexpr char kRegister[] = "XLA_FFI_Handler_Register (use xjit.ffi.register_ffi_target)";
constexpr char kStream[] = "XLA_FFI_Stream_Get";
constexpr char kType[] = "XLA_FFI_Type_Register";
constexpr char kContext[] = "XLA_FFI_ExecutionContext_Get";
constexpr char kStateSet[] = "XLA_FFI_State_Set";
constexpr char kStateGet[] = "XLA_FFI_State_Get";
constexpr char kSchedule[] = "XLA_FFI_ThreadPool_Schedule";
constexpr char kThreads[] = "XLA_FFI_ThreadPool_NumThreads";
constexpr char kFutureCreate[] = "XLA_FFI_Future_Create";
constexpr char kFutureAvailable[] = "XLA_FFI_Future_SetAvailable";
constexpr char kFutureError[] = "XLA_FFI_Future_SetError";

// Scratch memory (ffi::ScratchAllocator): host memory.
XLA_FFI_Error* Allocate(void* raw) {
  auto* args = static_cast<XLA_FFI_DeviceMemory_Allocate_Args*>(raw);
  size_t alignment = args->alignment < alignof(std::max_align_t) ? alignof(std::max_align_t)
                                                                  : args->alignment;
  if ((alignment & (alignment - 1)) != 0) {
    return NewError(XLA_FFI_Error_Code_INVALID_ARGUMENT, "alignment must be a power of two");
  }
  size_t size = (args->size + alignment - 1) / alignment * alignment;
  args->data = std::aligned_alloc(alignment, size == 0 ? alignment : size);
  if (args->data == nullptr) {
    return NewError(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "out of host memory");
  }
  return nullptr;
}

XLA_FFI_Error* Free(void* raw) {
  std::free(static_cast<XLA_FFI_DeviceMemory_Free_Args*>(raw)->data);
  return nullptr;
}

XLA_FFI_Error* RunId(void* raw) {
  static_cast<XLA_FFI_RunId_Get_Args*>(raw)->run_id = 0;
  return nullptr;
}

XLA_FFI_Error* DeviceOrdinal(void* raw) {
  static_cast<XLA_FFI_DeviceOrdinal_Get_Args*>(raw)->device_ordinal = RunningDevice();
  return nullptr;
}

XLA_FFI_Api MakeApi() {
  XLA_FFI_Api api{};
  api.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_Api, XLA_FFI_DeviceOrdinal_Get);
  api.api_version = {XJIT_FFI_STRUCT_SIZE(XLA_FFI_Api_Version, minor_version), nullptr,
                     kXlaFfiApiMajor, kXlaFfiApiMinor};
  api.XLA_FFI_Error_Create = ErrorCreate;
  api.XLA_FFI_Error_GetMessage = ErrorGetMessage;
  api.XLA_FFI_Error_Destroy = ErrorDestroy;
  api.XLA_FFI_Handler_Register = Unimplemented<kRegister>;
  api.XLA_FFI_Stream_Get = Unimplemented<kStream>;
  api.XLA_FFI_Type_Register = Unimplemented<kType>;
  api.XLA_FFI_ExecutionContext_Get = Unimplemented<kContext>;
  api.XLA_FFI_State_Set = Unimplemented<kStateSet>;
  api.XLA_FFI_State_Get = Unimplemented<kStateGet>;
  api.XLA_FFI_DeviceMemory_Allocate = Allocate;
  api.XLA_FFI_DeviceMemory_Free = Free;
  api.XLA_FFI_ThreadPool_Schedule = Unimplemented<kSchedule>;
  api.XLA_FFI_ThreadPool_NumThreads = Unimplemented<kThreads>;
  api.XLA_FFI_Future_Create = Unimplemented<kFutureCreate>;
  api.XLA_FFI_Future_SetAvailable = Unimplemented<kFutureAvailable>;
  api.XLA_FFI_Future_SetError = Unimplemented<kFutureError>;
  api.XLA_FFI_RunId_Get = RunId;
  api.XLA_FFI_DeviceOrdinal_Get = DeviceOrdinal;
  return api;
}

absl::StatusCode CodeOf(XLA_FFI_Error_Code c) {
  // XLA's codes are absl's (both follow google.rpc.Code).
  return c >= XLA_FFI_Error_Code_CANCELLED && c <= XLA_FFI_Error_Code_UNAUTHENTICATED
             ? static_cast<absl::StatusCode>(c)
             : absl::StatusCode::kUnknown;
}

}  // namespace

const XLA_FFI_Api* Api() {
  static const XLA_FFI_Api* api = new XLA_FFI_Api(MakeApi());
  return api;
}

absl::Status ConsumeError(XLA_FFI_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  absl::Status s(CodeOf(error->code), error->message);
  delete error;
  return s;
}

}  // namespace xjit::ffi
