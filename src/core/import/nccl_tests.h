#pragma once
// nccl-tests' outputs (github.com/NVIDIA/nccl-tests): the text every *_perf program prints, and
// the JSON of -J (2.19). Internal to core/import.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/results.h"

namespace peerbench::import_detail {

RunDocument read_nccl_tests_text(const std::string& text, const std::string& file);
RunDocument read_nccl_tests_json(const nlohmann::json& j, const std::string& file);

// What the readers of both forms share.
// "2.18.3" from NCCL's version code: 21803 (2.9 on), 2708 (before).
std::string nccl_version_of_code(long code);
// The rank of one "#  Rank  0 Group  0 Pid  123 on host device  0 [0000:1b:00] NVIDIA H100 ..."
// line (older: no Group, "[0x1b]"), added to `d`; false where the line is none.
bool read_rank_line(RunDocument& d, const std::string& line);
// The peerbench method of a program (all_reduce_perf, a path to it, or "all_reduce"), or "" with
// the program noted in config.imported.unmapped.
std::string method_of_program(RunDocument& d, const std::string& program);

// One row of the table: out-of-place and in-place figures (either may be missing).
struct NcclTestsFigures {
  double time_us = 0, algbw = 0, busbw = 0;
  std::optional<double> wrong;  // nullopt: N/A (-c 0, no check)
};
struct NcclTestsRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  std::string type, redop;
  bool redop_cell_empty = false;  // a redop column with nothing in it (old alltoall_perf)
  int root = -1;
  std::optional<NcclTestsFigures> out_of_place, in_place;
};
// The result of a row (out of place where printed, else in place; wrong elements of both), the
// in-place figures kept in config.imported.in_place.
void add_row(RunDocument& d, const std::string& method, const NcclTestsRow& row, int iters,
             int graph_replays);
// The program, where the output does not name it (nccl-tests before 2.13 prints no "Collective
// test starting"), from its rows: reduction and root, and busbw / algbw against the rank count.
// "" where the rows cannot tell (all_gather and alltoall look alike).
std::string program_of_rows(const std::vector<NcclTestsRow>& rows, int ranks);

}  // namespace peerbench::import_detail
