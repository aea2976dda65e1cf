#include "gpu/mpi_context.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu/check.h"

namespace peerbench::gpu {

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  PB_MPI(MPI_Initialized(&initialized));
  if (!initialized) PB_MPI(MPI_Init(argc, argv));
  // Errors come back as codes (then exceptions) so a failing peer is reported, not fatal here.
  PB_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  // A destructor cannot throw, and MPI_Finalize's failure at exit changes no result: ignored.
  if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) (void)MPI_Finalize();
}

std::string RankContext::where() const {
  return "rank " + std::to_string(rank) + " on host " + host +
         (device >= 0 ? ", GPU " + std::to_string(device) : "");
}

std::vector<std::string> RankContext::hosts() const {
  std::vector<std::string> out;
  for (const auto& h : host_of_rank) {
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

void barrier(MPI_Comm c) {
  PB_MPI(MPI_Barrier(c));
}

std::vector<std::uint8_t> allgather_bytes(MPI_Comm c, const void* mine, std::size_t bytes) {
  int size = 0;
  PB_MPI(MPI_Comm_size(c, &size));
  std::vector<std::uint8_t> all(bytes * static_cast<std::size_t>(size));
  PB_MPI(MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes),
                       MPI_BYTE, c));
  return all;
}

std::vector<std::string> allgather_strings(MPI_Comm c, const std::string& mine) {
  int size = 0;
  PB_MPI(MPI_Comm_size(c, &size));
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(size);
  PB_MPI(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, c));
  std::vector<int> displs(size);
  int total = 0;
  for (int i = 0; i < size; ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  PB_MPI(MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                        MPI_CHAR, c));
  std::vector<std::string> out(size);
  for (int i = 0; i < size; ++i) out[i] = all.substr(displs[i], lens[i]);
  return out;
}

std::string bcast_string(MPI_Comm c, const std::string& s, int root) {
  int len = static_cast<int>(s.size());
  PB_MPI(MPI_Bcast(&len, 1, MPI_INT, root, c));
  std::string out = s;
  out.resize(static_cast<std::size_t>(len));
  PB_MPI(MPI_Bcast(out.data(), len, MPI_CHAR, root, c));
  return out;
}

bool all_true(MPI_Comm c, bool mine) {
  int v = mine ? 1 : 0;
  int all = 0;
  PB_MPI(MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, c));
  return all == 1;
}

double max_over(MPI_Comm c, double mine) {
  double out = 0;
  PB_MPI(MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MAX, c));
  return out;
}

namespace {

void fill_rank_context(RankContext& ctx) {
  PB_MPI(MPI_Comm_rank(ctx.world, &ctx.rank));
  PB_MPI(MPI_Comm_size(ctx.world, &ctx.size));
  ctx.physical_host = physical_host_name();
  ctx.host = logical_host_name();

  PB_MPI(MPI_Comm_split_type(ctx.world, MPI_COMM_TYPE_SHARED, ctx.rank, MPI_INFO_NULL,
                             ctx.node.out()));
  PB_MPI(MPI_Comm_set_errhandler(ctx.node.get(), MPI_ERRORS_RETURN));
  PB_MPI(MPI_Comm_rank(ctx.node.get(), &ctx.local_rank));
  PB_MPI(MPI_Comm_size(ctx.node.get(), &ctx.local_size));

  ctx.host_of_rank = allgather_strings(ctx.world, ctx.host);
  ctx.physical_host_of_rank = allgather_strings(ctx.world, ctx.physical_host);
  ctx.local_rank_of_rank.resize(ctx.size);
  PB_MPI(MPI_Allgather(&ctx.local_rank, 1, MPI_INT, ctx.local_rank_of_rank.data(), 1, MPI_INT,
                       ctx.world));
}

}  // namespace

RankContext make_rank_context() {
  RankContext ctx;
  try {
    fill_rank_context(ctx);
  } catch (const MpiError& e) {
    // Thrown before the run's own handler: say which rank and host, as every later error does.
    if (ctx.host.empty()) ctx.host = logical_host_name();
    throw MpiError(e.code(), ctx.where() + ": " + e.what());
  }
  return ctx;
}

MpiComm& MpiComm::operator=(MpiComm&& o) noexcept {
  if (this != &o) {
    (void)release();
    c_ = o.c_;
    o.c_ = MPI_COMM_NULL;
  }
  return *this;
}

int MpiComm::release() {
  if (c_ == MPI_COMM_NULL) return MPI_SUCCESS;
  int finalized = 0;
  int rc = MPI_Finalized(&finalized);
  if (rc == MPI_SUCCESS && !finalized) rc = MPI_Comm_free(&c_);
  c_ = MPI_COMM_NULL;
  return rc;
}

void free_rank_context(RankContext& c) {
  const int rc = c.node.release();
  if (rc != MPI_SUCCESS)
    std::fprintf(stderr, "peerbench: warning: MPI_Comm_free(node) failed on %s (code %d)\n",
                 c.where().c_str(), rc);
}

std::string mpi_library_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return "";
  // Open MPI counts the terminating NUL in len; the string ends at the first NUL either way.
  std::string s(v, ::strnlen(v, std::min<std::size_t>(static_cast<std::size_t>(len), sizeof(v))));
  const auto nl = s.find_first_of("\r\n");
  if (nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',')) s.pop_back();
  return s;
}

bool agree_to_start(const std::string& my_refusal, const std::string& identity) {
  int rank = 0;
  PB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  const bool differs = bcast_string(MPI_COMM_WORLD, identity, 0) != identity;
  return any_rank_refuses(differs ? "rank " + std::to_string(rank) +
                                        " was started with other arguments or another peerbench "
                                        "than rank 0; start every rank with the same command "
                                        "line and build"
                                  : my_refusal);
}

bool any_rank_refuses(const std::string& my_refusal) {
  int rank = 0, size = 1;
  PB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  PB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int mine = my_refusal.empty() ? size : rank;
  int first = size;
  PB_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (first == size) return false;
  if (rank == first) {
    std::fprintf(stderr, "peerbench: error: %s\n", my_refusal.c_str());
    std::fflush(stderr);
  }
  PB_MPI(MPI_Barrier(MPI_COMM_WORLD));
  return true;
}

}  // namespace peerbench::gpu
