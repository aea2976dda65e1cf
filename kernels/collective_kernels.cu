#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

#include "collective_kernels.h"
#include "pattern_formula.h"

namespace peerbench::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 4096 ? (b ? b : 1) : 4096);
}

__device__ __forceinline__ bool small_range(const CollectiveData& d) {
  return d.op == ReduceOp::kProd || d.type == DataType::kFp8E4M3 || d.type == DataType::kFp8E5M2;
}

__device__ __forceinline__ int input_value(const CollectiveData& d, int rank, std::uint64_t index) {
  return collective_input(d.seed, rank, index, small_range(d));
}

// The exact reduction of the ranks' inputs at `index` (small integers: exact in double).
__device__ double reduce_exact(const CollectiveData& d, std::uint64_t index, bool* integer_avg) {
  double acc = input_value(d, 0, index);
  for (int r = 1; r < d.nranks; ++r) {
    const double v = input_value(d, r, index);
    switch (d.op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        acc += v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kMin:
        acc = v < acc ? v : acc;
        break;
      case ReduceOp::kMax:
        acc = v > acc ? v : acc;
        break;
    }
  }
  *integer_avg = false;
  if (d.op == ReduceOp::kAvg) {
    const bool integer = d.type != DataType::kHalf && d.type != DataType::kFloat &&
                         d.type != DataType::kDouble && d.type != DataType::kBfloat16 &&
                         d.type != DataType::kFp8E4M3 && d.type != DataType::kFp8E5M2;
    *integer_avg = integer;
    acc = integer ? static_cast<double>(static_cast<long long>(acc) / d.nranks) : acc / d.nranks;
  }
  return acc;
}

// What output element `e` of this rank must hold.
__device__ double expected(const CollectiveData& d, std::uint64_t e) {
  bool integer_avg = false;
  const std::uint64_t c = d.count;
  switch (d.kind) {
    case CollKind::kAllReduce:
    case CollKind::kReduce:
      return reduce_exact(d, e, &integer_avg);
    case CollKind::kBroadcast:
      return input_value(d, d.root, e);
    case CollKind::kAllGather:
      return input_value(d, static_cast<int>(e / c), e % c);
    case CollKind::kReduceScatter:
      return reduce_exact(d, static_cast<std::uint64_t>(d.rank) * c + e, &integer_avg);
    case CollKind::kAllToAll:
      return input_value(d, static_cast<int>(e / c),
                         static_cast<std::uint64_t>(d.rank) * c + e % c);
    case CollKind::kRing:
      return input_value(d, (d.rank + d.nranks - 1) % d.nranks, e);
  }
  return -1;
}

// Integer results wrap as NCCL's integer arithmetic does (a product of 2s overflows int8 to 0):
// convert through a 64-bit integer, which wraps, instead of saturating float conversion.
template <typename T>
__device__ __forceinline__ T from_double(double v) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(static_cast<unsigned long long>(static_cast<long long>(v)));
  } else {
    return static_cast<T>(v);
  }
}
template <>
__device__ __forceinline__ __half from_double<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_double<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(static_cast<float>(v));
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 from_double<__nv_fp8_e5m2>(double v) {
  return __nv_fp8_e5m2(static_cast<float>(v));
}

template <typename T>
__device__ __forceinline__ double to_double(T v) {
  return static_cast<double>(v);
}
template <>
__device__ __forceinline__ double to_double<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ double to_double<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ double to_double<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) {
  return static_cast<float>(v);
}

template <typename T>
__global__ void fill_kernel(T* buf, std::size_t n, CollectiveData d) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    buf[i] = from_double<T>(input_value(d, d.rank, i));
}

// 0 is never a result: inputs are >= 1, so sums, products, minima, maxima and averages are too
// (integer avg of values >= 1 over n ranks is >= 1).
template <typename T>
__global__ void poison_kernel(T* buf, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    buf[i] = from_double<T>(0);
}

template <typename T>
__global__ void check_kernel(const T* buf, std::size_t n, CollectiveData d,
                             unsigned long long* wrong) {
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double want = expected(d, i);
    // Integer types wrap like NCCL's arithmetic: compare in the type.
    const double got = to_double(buf[i]);
    const double want_t = to_double(from_double<T>(want));
    const double err = got > want_t ? got - want_t : want_t - got;
    if (d.tolerance > 0 ? !(err <= d.tolerance * (want_t < 0 ? -want_t : want_t)) : got != want_t)
      ++bad;
  }
  if (bad) atomicAdd(wrong, bad);
}

template <typename T>
cudaError_t launch_fill(cudaStream_t s, void* buf, std::size_t n, const CollectiveData& d) {
  fill_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<T*>(buf), n, d);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_poison(cudaStream_t s, void* buf, std::size_t n) {
  poison_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<T*>(buf), n);
  return cudaGetLastError();
}
template <typename T>
cudaError_t launch_check(cudaStream_t s, const void* buf, std::size_t n, const CollectiveData& d,
                         unsigned long long* wrong) {
  check_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<const T*>(buf), n, d, wrong);
  return cudaGetLastError();
}

// Calls f.template operator()<T>() for the C++ type of `t`.
template <typename F>
cudaError_t with_type(ElemType t, F&& f) {
  switch (t) {
    case DataType::kInt8:
      return f(static_cast<std::int8_t*>(nullptr));
    case DataType::kUint8:
      return f(static_cast<std::uint8_t*>(nullptr));
    case DataType::kInt32:
      return f(static_cast<std::int32_t*>(nullptr));
    case DataType::kUint32:
      return f(static_cast<std::uint32_t*>(nullptr));
    case DataType::kInt64:
      return f(static_cast<std::int64_t*>(nullptr));
    case DataType::kUint64:
      return f(static_cast<std::uint64_t*>(nullptr));
    case DataType::kHalf:
      return f(static_cast<__half*>(nullptr));
    case DataType::kFloat:
      return f(static_cast<float*>(nullptr));
    case DataType::kDouble:
      return f(static_cast<double*>(nullptr));
    case DataType::kBfloat16:
      return f(static_cast<__nv_bfloat16*>(nullptr));
    case DataType::kFp8E4M3:
      return f(static_cast<__nv_fp8_e4m3*>(nullptr));
    case DataType::kFp8E5M2:
      return f(static_cast<__nv_fp8_e5m2*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t fill_collective_input(cudaStream_t s, void* buf, std::size_t send_elems,
                                  const CollectiveData& d) {
  return with_type(d.type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return launch_fill<T>(s, buf, send_elems, d);
  });
}

cudaError_t poison_collective_output(cudaStream_t s, void* buf, std::size_t elems, ElemType t) {
  return with_type(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return launch_poison<T>(s, buf, elems);
  });
}

cudaError_t check_collective_output(cudaStream_t s, const void* buf, std::size_t recv_elems,
                                    const CollectiveData& d, unsigned long long* wrong) {
  return with_type(d.type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return launch_check<T>(s, buf, recv_elems, d, wrong);
  });
}

}  // namespace peerbench::kernels
