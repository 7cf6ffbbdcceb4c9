// The XLA FFI C ABI, as xjit's runtime implements it for custom_call
// handlers compiled against XLA's headers (xla/ffi/api/c_api.h, which
// jax.ffi.include_dir() ships): the structs a handler reads and the function
// table (XLA_FFI_Api) it calls. Declared here from the published layout, not
// copied: field order, types and enum values must match XLA's exactly.
//
// Version followed: XLA FFI API 0.3 (XLA_FFI_API_MAJOR 0, XLA_FFI_API_MINOR
// 3), the one jaxlib 0.10.x ships. Every struct's `struct_size` is computed
// as XLA does (the offset of its last field plus that field's size), since
// handlers compare it (the call frame's exactly).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

#define XJIT_FFI_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type*)0)->last))

inline constexpr int kXlaFfiApiMajor = 0;
inline constexpr int kXlaFfiApiMinor = 3;

typedef struct XLA_FFI_Api XLA_FFI_Api;
typedef struct XLA_FFI_InternalApi XLA_FFI_InternalApi;
typedef struct XLA_FFI_Error XLA_FFI_Error;  // defined by xjit (xla_ffi_api.cc)
typedef struct XLA_FFI_ExecutionContext XLA_FFI_ExecutionContext;
typedef struct XLA_FFI_Future XLA_FFI_Future;

typedef enum { XLA_FFI_Extension_Metadata = 1 } XLA_FFI_Extension_Type;

typedef struct XLA_FFI_Extension_Base {
  size_t struct_size;
  XLA_FFI_Extension_Type type;
  struct XLA_FFI_Extension_Base* next;
} XLA_FFI_Extension_Base;

typedef struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int major_version;
  int minor_version;
} XLA_FFI_Api_Version;

typedef enum {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_CANCELLED = 1,
  XLA_FFI_Error_Code_UNKNOWN = 2,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_DEADLINE_EXCEEDED = 4,
  XLA_FFI_Error_Code_NOT_FOUND = 5,
  XLA_FFI_Error_Code_ALREADY_EXISTS = 6,
  XLA_FFI_Error_Code_PERMISSION_DENIED = 7,
  XLA_FFI_Error_Code_RESOURCE_EXHAUSTED = 8,
  XLA_FFI_Error_Code_FAILED_PRECONDITION = 9,
  XLA_FFI_Error_Code_ABORTED = 10,
  XLA_FFI_Error_Code_OUT_OF_RANGE = 11,
  XLA_FFI_Error_Code_UNIMPLEMENTED = 12,
  XLA_FFI_Error_Code_INTERNAL = 13,
  XLA_FFI_Error_Code_UNAVAILABLE = 14,
  XLA_FFI_Error_Code_DATA_LOSS = 15,
  XLA_FFI_Error_Code_UNAUTHENTICATED = 16
} XLA_FFI_Error_Code;

typedef struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const char* message;
  XLA_FFI_Error_Code errc;
} XLA_FFI_Error_Create_Args;

typedef struct XLA_FFI_Error_GetMessage_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Error* error;
  const char* message;  // out
} XLA_FFI_Error_GetMessage_Args;

typedef struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Error* error;
} XLA_FFI_Error_Destroy_Args;

// Element types (XLA's PrimitiveType numbers).
typedef enum {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_PRED = 1,
  XLA_FFI_DataType_S8 = 2,
  XLA_FFI_DataType_S16 = 3,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_U8 = 6,
  XLA_FFI_DataType_U16 = 7,
  XLA_FFI_DataType_U32 = 8,
  XLA_FFI_DataType_U64 = 9,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_C64 = 15,
  XLA_FFI_DataType_BF16 = 16,
  XLA_FFI_DataType_TOKEN = 17,
  XLA_FFI_DataType_C128 = 18,
} XLA_FFI_DataType;

typedef struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_DataType dtype;
  void* data;
  int64_t rank;
  int64_t* dims;
} XLA_FFI_Buffer;

typedef enum { XLA_FFI_ArgType_BUFFER = 1 } XLA_FFI_ArgType;
typedef enum { XLA_FFI_RetType_BUFFER = 1 } XLA_FFI_RetType;
typedef enum {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
} XLA_FFI_AttrType;

typedef struct XLA_FFI_ByteSpan {
  const char* ptr;
  size_t len;
} XLA_FFI_ByteSpan;

typedef struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void* value;
} XLA_FFI_Scalar;

typedef struct XLA_FFI_Array {
  XLA_FFI_DataType dtype;
  size_t size;
  void* data;
} XLA_FFI_Array;

typedef struct XLA_FFI_TypeId {
  int64_t type_id;
} XLA_FFI_TypeId;

typedef enum {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
} XLA_FFI_ExecutionStage;

typedef struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_ArgType* types;
  void** args;
} XLA_FFI_Args;

typedef struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_RetType* types;
  void** rets;
} XLA_FFI_Rets;

// Attributes sorted by name (handlers find them by their sorted index).
typedef struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_AttrType* types;
  XLA_FFI_ByteSpan** names;
  void** attrs;
} XLA_FFI_Attrs;

typedef struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const XLA_FFI_Api* api;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  XLA_FFI_Future* future;  // out; not counted in struct_size (as in XLA)
} XLA_FFI_CallFrame;

typedef XLA_FFI_Error* XLA_FFI_Handler(XLA_FFI_CallFrame* call_frame);

typedef uint32_t XLA_FFI_Handler_Traits;

typedef struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_Handler_Traits traits;
  XLA_FFI_TypeId state_type_id;
} XLA_FFI_Metadata;

typedef struct XLA_FFI_Metadata_Extension {
  XLA_FFI_Extension_Base extension_base;
  XLA_FFI_Metadata* metadata;
} XLA_FFI_Metadata_Extension;

// The function table: every entry takes a pointer to its own args struct.
// xjit implements the error functions, memory allocation, the run id and the
// device ordinal; the rest fail with UNIMPLEMENTED (xla_ffi_api.cc).
typedef void XjitFfiFn(void* args);
struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Api_Version api_version;
  const XLA_FFI_InternalApi* internal_api;
  XLA_FFI_Error* (*XLA_FFI_Error_Create)(XLA_FFI_Error_Create_Args* args);
  void (*XLA_FFI_Error_GetMessage)(XLA_FFI_Error_GetMessage_Args* args);
  void (*XLA_FFI_Error_Destroy)(XLA_FFI_Error_Destroy_Args* args);
  XLA_FFI_Error* (*XLA_FFI_Handler_Register)(void* args);
  XLA_FFI_Error* (*XLA_FFI_Stream_Get)(void* args);
  XLA_FFI_Error* (*XLA_FFI_Type_Register)(void* args);
  XLA_FFI_Error* (*XLA_FFI_ExecutionContext_Get)(void* args);
  XLA_FFI_Error* (*XLA_FFI_State_Set)(void* args);
  XLA_FFI_Error* (*XLA_FFI_State_Get)(void* args);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Allocate)(void* args);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Free)(void* args);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_Schedule)(void* args);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_NumThreads)(void* args);
  XLA_FFI_Error* (*XLA_FFI_Future_Create)(void* args);
  XLA_FFI_Error* (*XLA_FFI_Future_SetAvailable)(void* args);
  XLA_FFI_Error* (*XLA_FFI_Future_SetError)(void* args);
  XLA_FFI_Error* (*XLA_FFI_RunId_Get)(void* args);
  XLA_FFI_Error* (*XLA_FFI_DeviceOrdinal_Get)(void* args);
};

// Args of the functions xjit implements beyond errors (XLA's layouts).
typedef struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  size_t size;
  size_t alignment;
  void* data;  // out
} XLA_FFI_DeviceMemory_Allocate_Args;

typedef struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  size_t size;
  void* data;
} XLA_FFI_DeviceMemory_Free_Args;

typedef struct XLA_FFI_RunId_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  int64_t run_id;  // out
} XLA_FFI_RunId_Get_Args;

typedef struct XLA_FFI_DeviceOrdinal_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  int32_t device_ordinal;  // out
} XLA_FFI_DeviceOrdinal_Get_Args;

}  // extern "C"
