// The platform layer: atomic writes, the recorded environment, launchers, CPU lists.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/platform/atomic_file.h"
#include "core/platform/cpu_affinity.h"
#include "core/platform/environment.h"
#include "core/platform/launcher.h"

namespace peerbench {
namespace {

TEST(AtomicFile, WritesWholeFileAndLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/pb_atomic_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/r.json";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "second");
  EXPECT_NE(::access((path + ".tmp." + std::to_string(::getpid())).c_str(), F_OK), 0);
  EXPECT_THROW(write_file_atomically(dir + "/missing/r.json", "x"), std::runtime_error);
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

TEST(AtomicFile, CheckWritable) {
  const std::string dir = ::testing::TempDir() + "/pb_w_" + std::to_string(::getpid());
  EXPECT_EQ(check_writable(dir + "/a/b/r.json", true), "");  // could create the folders
  EXPECT_NE(check_writable(dir + "/x/r.json", false), "");
  EXPECT_NE(check_writable(dir + "/a/", true).find("folder"), std::string::npos);
  EXPECT_NE(check_writable("/proc/version/r.json", true), "");
  if (::geteuid() != 0) EXPECT_NE(check_writable("/r.json", false), "");
  ::rmdir((dir + "/a/b").c_str());
  ::rmdir((dir + "/a").c_str());
  ::rmdir(dir.c_str());
}
TEST(Environment, RecordsOnlyResultChangingVariablesWithoutSecrets) {
  const auto e = recorded_environment(
      {"NCCL_P2P_DISABLE=1", "NCCL_DEBUG_FILE=/home/ann/logs/n.log", "CUDA_VISIBLE_DEVICES=0,1",
       "OMPI_MCA_btl=^openib", "HOME=/home/ann", "AWS_SECRET_ACCESS_KEY=x", "NCCL_IB_TOKEN=secret",
       "PATH=/usr/bin", "OMPI_MCA_orte_precondition_transports=5adc-6983",
       "OMPI_MCA_ess_base_jobid=1", "PMIX_MCA_psec=native", "PEERBENCH_HOST_ID=a", "GARBAGE"},
      "/home/ann");
  EXPECT_EQ(e, (std::map<std::string, std::string>{{"CUDA_VISIBLE_DEVICES", "0,1"},
                                                   {"NCCL_DEBUG_FILE", "~/logs/n.log"},
                                                   {"NCCL_P2P_DISABLE", "1"},
                                                   {"OMPI_MCA_btl", "^openib"},
                                                   {"PEERBENCH_HOST_ID", "a"}}));
}
TEST(Launcher, DetectsLaunchersFromTheirVariables) {
  auto with = [](std::map<std::string, std::string> m) {
    return detect_launcher([m](const char* n) -> const char* {
      auto it = m.find(n);
      return it == m.end() ? nullptr : it->second.c_str();
    });
  };
  EXPECT_FALSE(with({}).under_launcher);
  auto l = with({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"PMIX_RANK", "3"}});
  EXPECT_TRUE(l.under_launcher);
  EXPECT_EQ(l.launcher, "Open MPI");
  EXPECT_EQ(l.rank, 3);
  EXPECT_EQ(l.size, 8);
  EXPECT_FALSE(is_printing_rank(l));
  EXPECT_EQ(with({{"PMI_RANK", "0"}}).launcher, "PMI");
  EXPECT_EQ(with({{"PMIX_RANK", "1"}}).launcher, "PMIx");
  // Inside an sbatch script (no job step) peerbench is not launched yet.
  EXPECT_FALSE(with({{"SLURM_PROCID", "0"}, {"SLURM_JOB_ID", "7"}}).under_launcher);
  l = with({{"SLURM_PROCID", "5"}, {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "16"}});
  EXPECT_EQ(l.launcher, "Slurm");
  EXPECT_EQ(l.rank, 5);
  EXPECT_TRUE(is_printing_rank(with({})));
}

TEST(Launcher, ReexecCommandAndQuoting) {
  const auto cmd =
      reexec_command("/usr/bin/mpirun", 8, {"/opt/pb/peerbench", "run", "-m", "ce-write"}, true);
  EXPECT_EQ(
      shell_join(cmd),
      "/usr/bin/mpirun -np 8 --allow-run-as-root --bind-to none /opt/pb/peerbench run -m ce-write");
  EXPECT_EQ(shell_join({"a b", "it's", ""}), "'a b' 'it'\\''s' ''");
  EXPECT_EQ(shell_join(reexec_command("mpirun", 2, {"pb"}, false)),
            "mpirun -np 2 --bind-to none pb");
}
TEST(CpuList, ParsesLinuxCpuLists) {
  std::vector<int> c;
  ASSERT_TRUE(parse_cpulist("0-3,8,10-11", c));
  EXPECT_EQ(c, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_FALSE(parse_cpulist("", c));
  EXPECT_FALSE(parse_cpulist("3-1", c));
  EXPECT_FALSE(parse_cpulist("a-b", c));
  EXPECT_FALSE(parse_cpulist("1,,2", c));
  EXPECT_FALSE(parse_cpulist("1-", c));
}
}  // namespace
}  // namespace peerbench
