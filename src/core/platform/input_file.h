#pragma once
// Every file peerbench reads (results files, --expect, --hosts, the PNGs of --plots, NCCL logs
// read back, other tools' outputs imported) is opened here and nowhere else:
//  - without blocking: a FIFO with no writer is refused, never waited on;
//  - only when it is a regular file (followed through links): a folder, FIFO, device or socket
//    is refused with one line naming the file, its role and what it is;
//  - its size checked against its kind's limit before a byte is read, and read through the one
//    descriptor that was checked (a file swapped after the check is not what gets read).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace peerbench {

// kImport: another tool's output (nccl-tests, nvbandwidth, p2pBandwidthLatencyTest, nvidia-smi
// topo -m) that `peerbench import`, report, compare and fleet read (core/import).
enum class InputKind { kResults, kExpect, kHosts, kPlot, kNcclLog, kImport };

// The largest file of each kind peerbench reads (input_limits.h; docs/limits.md, "Limits on what
// is read"). A file over it is refused naming its role, its size and the limit.
std::uint64_t input_size_limit(InputKind kind);
// What the file is to the user, in messages: "results file", "--expect file", ...
std::string input_label(InputKind kind);

// What identifies a file whatever its name: two paths (links, hard links) with one FileId are one
// file.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
};

// An input file, open and checked. Throws InputError (the file, its role, why) when it cannot be
// read as one.
class InputFile {
 public:
  InputFile(const std::string& path, InputKind kind);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  InputKind kind() const { return kind_; }
  std::uint64_t size() const { return size_; }  // when opened
  FileId id() const { return id_; }

  // Up to `max` bytes from where the last read ended; 0 at the end of the file. Throws
  // InputError when reading fails or the file grows past its limit while being read.
  std::size_t read_some(char* buf, std::size_t max);
  // The rest of the file.
  std::string read_rest();
  // Starts reading at `offset` (NCCL logs are read from where an earlier read stopped).
  void seek(std::uint64_t offset);

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  int fd_ = -1;
  std::string path_;
  InputKind kind_;
  std::uint64_t size_ = 0;
  std::uint64_t read_ = 0;  // bytes read so far, including any skipped by seek
  FileId id_;
};

// The whole file, through InputFile's checks.
std::string read_input_file(const std::string& path, InputKind kind);
// The file from byte `offset` to its end (an NCCL log read again from where the last read
// stopped); "" when the file is shorter.
std::string read_input_file_from(const std::string& path, InputKind kind, std::uint64_t offset);

// A file name quoted for a one-line message: control characters, newlines and bytes that are not
// UTF-8 escaped.
std::string quoted_path(const std::string& path);

// Refuses (UsageError, exit code 2) an output path that is one of the inputs: the same file by
// device and inode when it exists (so a link or hard link to an input counts), or the same name.
// `flag` names the output option ("-o/--output"); `inputs` are the paths read.
void refuse_output_over_inputs(const std::string& output, const std::string& flag,
                               const std::vector<std::string>& inputs);

}  // namespace peerbench
