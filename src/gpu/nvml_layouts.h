#pragma once
// Layouts and constants from NVML's public nvml.h, for the entry points peerbench loads at run
// time (nvml.cpp, nvml_activity.cpp). Only what is used is declared.
#include <climits>

namespace peerbench::gpu::nvml_abi {

constexpr int kSuccess = 0;
constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS

struct PciInfo {  // nvmlPciInfo_t (v3)
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];
};

struct FieldValue {  // nvmlFieldValue_t
  unsigned fieldId;
  unsigned scopeId;
  long long timestamp;
  long long latencyUsec;
  unsigned valueType;
  int nvmlReturn;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
  } value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t layout");

constexpr unsigned kFieldNvlinkDataTx = 138;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX (KiB)
constexpr unsigned kFieldNvlinkDataRx = 139;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX (KiB)

inline double field_as_double(const FieldValue& f) {
  switch (f.valueType) {
    case 0:
      return f.value.d;
    case 1:
      return f.value.ui;
    case 2:
      return static_cast<double>(f.value.ul);
    case 3:
      return static_cast<double>(f.value.ull);
    case 4:
      return static_cast<double>(f.value.sll);
    default:
      return static_cast<double>(f.value.ull);
  }
}

constexpr int kErrorInsufficientSize = 7;         // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kErrorNotFound = 6;                 // NVML_ERROR_NOT_FOUND
constexpr int kErrorVersionMismatch = 25;         // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
constexpr unsigned kFieldNvlinkGetSpeed = 164;    // NVML_FI_DEV_NVLINK_GET_SPEED (scope: link)
constexpr unsigned kFieldNvlinkSpeedCommon = 90;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON

struct ProcessInfo {  // nvmlProcessInfo_v2_t / _v3_t (same layout)
  unsigned pid;
  unsigned long long usedGpuMemory;  // NVML_VALUE_NOT_AVAILABLE (all ones) when unknown
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};
static_assert(sizeof(ProcessInfo) == 24, "nvmlProcessInfo_v2_t layout");

struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
  unsigned pid;
  unsigned long long timeStamp;  // CPU timestamp in microseconds
  unsigned smUtil;
  unsigned memUtil;
  unsigned encUtil;
  unsigned decUtil;
};
static_assert(sizeof(ProcessUtilizationSample) == 32, "nvmlProcessUtilizationSample_t layout");

struct UtilizationRates {  // nvmlUtilization_t
  unsigned gpu;
  unsigned memory;
};

// nvmlGpuFabricInfo_v3_t: version, clusterUuid[16], status (nvmlReturn_t), cliqueId, state
// (unsigned char, then padding), healthMask, healthSummary (unsigned char, then padding).
struct GpuFabricInfoV3 {
  unsigned version;
  unsigned char clusterUuid[16];
  int status;
  unsigned cliqueId;
  unsigned char state;
  unsigned healthMask;
  unsigned char healthSummary;
};
static_assert(sizeof(GpuFabricInfoV3) == 40, "nvmlGpuFabricInfo_v3_t layout");
constexpr unsigned kFabricInfoV3 = 0x3000028;  // NVML_STRUCT_VERSION(GpuFabricInfo, 3)
constexpr unsigned kFabricInfoV2 = 0x2000024;  // v2: the same without healthSummary

struct GpuFabricInfoV1 {  // nvmlGpuFabricInfo_t
  unsigned char clusterUuid[16];
  int status;
  unsigned cliqueId;
  unsigned char state;
};

}  // namespace peerbench::gpu::nvml_abi
