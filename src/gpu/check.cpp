#include "gpu/check.h"
#include "core/model/versions.h"

#include <dlfcn.h>

#include <cstring>

namespace peerbench::gpu {
namespace {

// cudart says cudaErrorInsufficientDriver both when the driver is older than the runtime and
// when there is no driver at all, and the second reads as "upgrade your driver". Loading the
// driver library ourselves tells the two apart.
std::string describe_insufficient_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return std::string("no NVIDIA driver or GPU on this host (") +
           (why ? why : "libcuda.so.1 cannot be loaded") + ")";
  }
  using DriverVersionFn = int (*)(int*);
  const auto driver_version = reinterpret_cast<DriverVersionFn>(dlsym(lib, "cuDriverGetVersion"));
  int driver = 0;
  const bool have_driver = driver_version && driver_version(&driver) == 0 && driver > 0;
  dlclose(lib);
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  return "the NVIDIA driver is too old for this build's CUDA runtime: the driver supports CUDA " +
         (have_driver ? format_cuda_version(driver) : std::string("(unknown)")) +
         ", the runtime is CUDA " + format_cuda_version(runtime);
}
}  // namespace

std::string call_site(const char* file, int line) {
  const char* base = std::strstr(file, "src/");
  if (!base) base = std::strstr(file, "kernels/");
  return std::string(base ? base : file) + ":" + std::to_string(line);
}

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

std::string describe_cuda_error(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver) return describe_insufficient_driver();
  return cudaGetErrorString(e);
}

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  // Clear the error the runtime keeps for cudaGetLastError, so the next call starts clean
  // (sticky errors stay regardless).
  (void)cudaGetLastError();
  throw CudaError(e, std::string(call) + " failed: " + cudaGetErrorName(e) + " (" +
                         describe_cuda_error(e) + ") at " + call_site(file, line));
}

void throw_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  throw NcclError(
      r, std::string(call) + " failed: " + ncclGetErrorString(r) + " at " + call_site(file, line));
}

void throw_mpi(int rc, const char* call, const char* file, int line) {
  char msg[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) std::strcpy(msg, "unknown MPI error");
  throw MpiError(rc, std::string(call) + " failed: " + msg + " at " + call_site(file, line));
}

}  // namespace peerbench::gpu
