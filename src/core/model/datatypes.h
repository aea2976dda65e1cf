#pragma once
// Element types and reduction operators of the NCCL collectives, with nccl-tests' names
// (-d/--datatype, -o/--op), and how exactly each result can be checked.
#include <cstddef>
#include <string>
#include <vector>

namespace peerbench {

enum class DataType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBfloat16,
  kFp8E4M3,
  kFp8E5M2
};
enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

std::string to_string(DataType t);
std::string to_string(ReduceOp o);
std::size_t type_size(DataType t);
bool is_floating(DataType t);
std::vector<DataType> all_data_types();  // in nccl-tests' order
std::vector<ReduceOp> all_reduce_ops();

// Comma-separated names or "all"; throws UsageError naming `flag` and the names allowed.
std::vector<DataType> parse_data_types(const std::string& spec, const std::string& flag);
std::vector<ReduceOp> parse_reduce_ops(const std::string& spec, const std::string& flag);
DataType data_type_from_name(const std::string& name);  // throws std::invalid_argument
ReduceOp reduce_op_from_name(const std::string& name);

// Largest relative error the data check accepts for `op` on `t`. The inputs are small integers
// (1..3, or 1..2 for prod) whose sums, products, minima and maxima over up to 8 ranks are exact
// in every type, so those are checked exactly (0). Only avg divides: exact for integer types
// (truncated like NCCL), within the type's rounding for floating types.
double check_tolerance(DataType t, ReduceOp op);

}  // namespace peerbench
