#include "core/model/datatypes.h"

#include <stdexcept>

#include "core/base/errors.h"
#include "core/base/text.h"

namespace peerbench {
namespace {

struct TypeFacts {
  DataType type;
  const char* name;
  std::size_t size;
  bool floating;
  double avg_tolerance;  // a few units in the last place of the type, relative
};

// nccl-tests' names and order.
const TypeFacts kTypes[] = {
    {DataType::kInt8, "int8", 1, false, 0},
    {DataType::kUint8, "uint8", 1, false, 0},
    {DataType::kInt32, "int32", 4, false, 0},
    {DataType::kUint32, "uint32", 4, false, 0},
    {DataType::kInt64, "int64", 8, false, 0},
    {DataType::kUint64, "uint64", 8, false, 0},
    {DataType::kHalf, "half", 2, true, 4.0 / 1024},
    {DataType::kFloat, "float", 4, true, 1e-6},
    {DataType::kDouble, "double", 8, true, 1e-14},
    {DataType::kBfloat16, "bfloat16", 2, true, 4.0 / 128},
    {DataType::kFp8E4M3, "f8e4m3", 1, true, 2.0 / 8},
    {DataType::kFp8E5M2, "f8e5m2", 1, true, 2.0 / 4},
};

const TypeFacts& facts(DataType t) {
  for (const auto& f : kTypes) {
    if (f.type == t) return f;
  }
  throw std::invalid_argument("unknown data type");
}

const char* const kOpNames[] = {"sum", "prod", "min", "max", "avg"};

template <typename T, typename All, typename FromName>
std::vector<T> parse_list(const std::string& spec, const std::string& flag, All all,
                          FromName from_name, const std::string& allowed) {
  if (spec == "all") return all();
  std::vector<T> out;
  for (const auto& name : split(spec, ',')) {
    try {
      const T v = from_name(name);
      bool seen = false;
      for (const auto& o : out) seen = seen || o == v;
      if (!seen) out.push_back(v);
    } catch (const std::invalid_argument&) {
      throw UsageError(flag + ": unknown value '" + name + "'; allowed: " + allowed + ", or all");
    }
  }
  if (out.empty()) throw UsageError(flag + ": empty; allowed: " + allowed + ", or all");
  return out;
}

}  // namespace

std::string to_string(DataType t) {
  return facts(t).name;
}
std::string to_string(ReduceOp o) {
  return kOpNames[static_cast<int>(o)];
}
std::size_t type_size(DataType t) {
  return facts(t).size;
}
bool is_floating(DataType t) {
  return facts(t).floating;
}

std::vector<DataType> all_data_types() {
  std::vector<DataType> out;
  for (const auto& f : kTypes) out.push_back(f.type);
  return out;
}

std::vector<ReduceOp> all_reduce_ops() {
  return {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg};
}

DataType data_type_from_name(const std::string& name) {
  for (const auto& f : kTypes) {
    if (name == f.name) return f.type;
  }
  throw std::invalid_argument("unknown data type " + name);
}

ReduceOp reduce_op_from_name(const std::string& name) {
  for (int i = 0; i < 5; ++i) {
    if (name == kOpNames[i]) return static_cast<ReduceOp>(i);
  }
  throw std::invalid_argument("unknown op " + name);
}

std::vector<DataType> parse_data_types(const std::string& spec, const std::string& flag) {
  std::string allowed;
  for (const auto& f : kTypes) allowed += (allowed.empty() ? "" : ", ") + std::string(f.name);
  return parse_list<DataType>(spec, flag, all_data_types, data_type_from_name, allowed);
}

std::vector<ReduceOp> parse_reduce_ops(const std::string& spec, const std::string& flag) {
  return parse_list<ReduceOp>(spec, flag, all_reduce_ops, reduce_op_from_name,
                              "sum, prod, min, max, avg");
}

double check_tolerance(DataType t, ReduceOp op) {
  return op == ReduceOp::kAvg ? facts(t).avg_tolerance : 0.0;
}

}  // namespace peerbench
