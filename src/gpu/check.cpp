#include "gpu/check.h"

#include <cstring>

namespace peerbench::gpu {
namespace {
std::string where(const char* file, int line) {
  const char* base = std::strstr(file, "src/");
  if (!base) base = std::strstr(file, "kernels/");
  return std::string(base ? base : file) + ":" + std::to_string(line);
}
}  // namespace

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

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  // Clear the error the runtime keeps for cudaGetLastError, so the next call starts clean
  // (sticky errors stay regardless).
  (void)cudaGetLastError();
  throw CudaError(e, std::string(call) + " failed: " + cudaGetErrorName(e) + " (" +
                         cudaGetErrorString(e) + ") at " + where(file, line));
}

void throw_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  throw NcclError(
      r, std::string(call) + " failed: " + ncclGetErrorString(r) + " at " + where(file, line));
}

void throw_mpi(int rc, const char* call, const char* file, int line) {
  char msg[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) std::strcpy(msg, "unknown MPI error");
  throw MpiError(rc, std::string(call) + " failed: " + msg + " at " + where(file, line));
}

}  // namespace peerbench::gpu
